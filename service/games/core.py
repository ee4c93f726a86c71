"""What every part of the server loop shares, in two pieces each part is given:

- :class:`Credentials`: who a bearer token names (the administrator, a bot account's API key, a
  player's token or a JWT of the app's identity provider);
- :class:`GameCore`: the game cache, who is calling in a game (a seat, the administrator, a
  spectator), and what to set going after a change (a bot's job, a turn timer, the seated accounts'
  notices and the players' webhooks, sent through the ``emit_webhook`` it is given).

The parts themselves live in one module each (Nakama's ``core_<concern>`` split) and are held by
:class:`service.games.Games`, the one object REST, GraphQL and the workers call
(``games.lobby.create(...)``, ``games.play.submit(...)``): :func:`service.games.build_games` builds it.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import engine
from schema.display import refusal
from service.base.catalogue import REASONS
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.identity import Identity, IdentityVerifier, looks_like_jwt
from service.store import BotAccountStore, PlayerStore, Store
from service.store.keys import (
    STATUS_ACTIVE,
    STATUS_FINISHED,
    STATUS_WAITING,
    hash_token,
    owner_player,
    player_owner,
)
from service.store.records import GameRecord

EnqueueBot = Callable[[str, int, str], Awaitable[None]]  # game, version, bot level
ScheduleTimer = Callable[[str, int, int, int | None], Awaitable[None]]  # game, version, seconds, remind in


class EmitWebhook(Protocol):
    """Tell the app backends' webhooks of a player's event: the webhooks part's
    :meth:`service.games.webhooks.Webhooks.emit_webhook`, given to :class:`GameCore` by the composition
    root (:func:`service.games.build_games`)."""

    async def __call__(self, event_type: str, data: Mapping[str, Any], *, key: str | None = None) -> str: ...


REMINDER_MAX_LEAD = 24 * 3600
"""A player's reminder comes when a quarter of the turn's clock is left, at most a day before the end."""

# engine IllegalAction.code (the problem's `reason`) -> our problem code (service.base.catalogue.REASONS)
ENGINE_CODES = {reason.reason: reason.code for reason in REASONS.values()}


def engine_problem(error: engine.IllegalAction) -> ProblemError:
    """The engine's refusal as a problem: its template and values become the detail, said in the
    caller's language (the French of every engine template: service/base/french/rules.py)."""
    code = ENGINE_CODES.get(error.code, "illegal_action")
    return ProblemError(code, Text(error.template, **error.params), rule=error.rule, reason=error.code)


def your_turn(m: engine.Match, version: int, record: GameRecord) -> list[dict[str, Any]]:
    """The private ``your_turn`` event of the seat to act in ``m`` at ``version``, with its legal
    actions (none when nobody is to act: the match waits or is over, and none for a computer seat:
    a worker plays it from the state, and nobody follows its stream). Written to the game's stream
    with the move or the start that gives the turn, so a seat following its stream learns its turn
    and what it may do in one frame; ``visible_to`` keeps it from every other seat (ALL-7)."""
    seat = m.to_act
    if seat is None or m.over or m.phase == "waiting" or record.seats[seat].is_bot:
        return []
    actions = engine.legal_actions(m, seat)
    return [{"type": "your_turn", "seat": seat, "version": version, "actions": actions, "visible_to": [seat]}]


@dataclass(frozen=True)
class Caller:
    """Who sent the request: a seat of this game, the administrator, or nobody (a spectator).
    ``owner``: the account (a bot account's id, ``player:<id>``) whose credential named the seat, ""
    for a seat token; an account may hold several seats of a game (a bot entered in a tournament
    plays both seats of its team), and name another of them in its request (:meth:`GameCore.claim`)."""

    seat: int | None = None
    admin: bool = False
    token_hash: str = ""
    owner: str = ""


def missing_token() -> ProblemError:
    """401 for a seat's request without a credential."""
    return ProblemError(
        "missing_token", "Send your seat token as `Authorization: Bearer <token>` (from the join)."
    )


def wrong_seat(held: int, claimed: int) -> ProblemError:
    """403 for a request claiming seat ``claimed`` with the credential of seat ``held``."""
    return ProblemError(
        "wrong_seat",
        Text("Your token is for seat {seat}, not seat {claimed}.", seat=held, claimed=claimed),
        token_seat=held,
    )


def seat_not_held(gid: str) -> ProblemError:
    """403 for an account's credential (a bot's API key, a player's) where a seat is needed in a game in
    which the account holds none: the credential is good (401 would tell a bot its key stopped
    working), it just gives no seat here."""
    return ProblemError(
        "seat_not_held",
        Text("Your account holds no seat in game {gid}: join it first.", gid=gid),
    )


ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Every id this server gives (games, bots, tournaments, invitations, webhooks, dead letters): at most 64
URL-safe characters."""


def check_id(name: str, value: str, code: str) -> None:
    """404 ``code`` (the resource's own: ``game_not_found`` …) for a ``value`` no id of this server can
    be, before any store key is built from it, whichever transport sent it; the detail quotes at most
    64 of its characters."""
    if not ID.fullmatch(value):
        raise ProblemError(
            code,
            Text(
                "{name} {value!r} is not an id this server gives (1 to 64 letters, digits, - or _).",
                name=name,
                value=value[:64],
            ),
        )


def new_game_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


PLAYER_TOKEN_PREFIX = "atp_"
BOT_KEY_PREFIX = "atb_"
DEFAULT_NAME = "Player"

# The kinds of credential, by the names of their security schemes (docs/credentials.md): a seat token
# (a join's, for anonymous play), a player's token (a guest's ``atp_…`` or a JWT of the app's identity
# provider: both name a player), a bot account's API key (``atb_…``), the administrator's token.
SEAT_TOKEN, PLAYER_TOKEN, BOT_KEY, ADMIN_TOKEN = "seatToken", "playerToken", "botKey", "adminToken"
CREDENTIAL_KINDS = (SEAT_TOKEN, PLAYER_TOKEN, BOT_KEY, ADMIN_TOKEN)


def display_name(claimed: str | None) -> str:
    """The name an identity provider's token gives, if it is one a table may show (the rule of
    schema/display.py, 40 characters at most); otherwise the default."""
    if not claimed or len(claimed) > 40 or any(refusal(c) for c in claimed) or not claimed.strip():
        return DEFAULT_NAME
    return claimed


class Credentials:
    """Who a bearer token names: the administrator (its token), a bot account (its API key), a player (a
    guest's token, or a token of the app's identity provider, verified by ``identities``: the API's
    lifespan gives the verifier, :meth:`use_identities`). Reads the bot accounts and the players only."""

    def __init__(
        self,
        bots: BotAccountStore,
        players: PlayerStore,
        settings: Settings,
        identities: IdentityVerifier | None = None,
    ) -> None:
        self.bots = bots
        self.players = players
        self.settings = settings
        self.identities = identities

    def use_identities(self, verifier: IdentityVerifier) -> None:
        self.identities = verifier

    def is_admin(self, token: str | None) -> bool:
        admin = self.settings.admin_token
        return bool(token and admin and hmac.compare_digest(token.encode(), admin.encode()))

    def kind_of(self, token: str) -> str:
        """The kind of credential ``token`` presents itself as, from its shape alone (no store read):
        the administrator's, a bot's key (``atb_``), a player's (``atp_`` or a JWT); anything else can
        only be a seat token, which only its game can tell from a made-up one."""
        if self.is_admin(token):
            return ADMIN_TOKEN
        if token.startswith(BOT_KEY_PREFIX):
            return BOT_KEY
        if token.startswith(PLAYER_TOKEN_PREFIX) or looks_like_jwt(token):
            return PLAYER_TOKEN
        return SEAT_TOKEN

    async def owner_of(self, token: str | None) -> str | None:
        """The account a credential names, as a seat's ``owner`` says it (``player:<id>`` for a
        player's credential, the bot account's id for its API key): the seats it holds are its own in
        every game, with no seat token. None for a seat token, the administrator's or none; 401 for a
        player's or a bot's credential that does not hold (deleted, expired, revoked, mistyped)."""
        player = await self.player_of(token)
        if player is not None:
            return player_owner(player)
        if token and token.startswith(BOT_KEY_PREFIX) and not self.is_admin(token):
            return await self.bot_of(token)
        return None

    async def account_token(self, token: str | None) -> str | None:
        """``token`` when it is the administrator's or a bot account's API key, else None: only a token
        the service issued is counted by the rate limits on its own (service/api/ratelimit.py)."""
        if not token:
            return None
        if self.is_admin(token):
            return token
        try:
            await self.bot_of(token)
        except ProblemError:
            return None
        return token

    async def bot_of(self, key: str | None) -> str:
        """The bot account of an API key; 401 otherwise."""
        if not key:
            raise ProblemError("missing_token", "Send the bot's API key as `Authorization: Bearer <key>`.")
        parts = key.split("_", 2)
        bot = await self.bots.load_bot(parts[1]) if len(parts) == 3 and parts[0] == "atb" else None
        if bot is None or not hmac.compare_digest(bot["key_hash"], hash_token(key)):
            raise ProblemError(
                "invalid_token", "This is not a bot API key (register one with POST /v1/bots)."
            )
        return parts[1]

    async def player_of(self, token: str | None) -> str | None:
        """The player a bearer token names; None when it is no player's credential (a seat token, a
        bot's key, the administrator's). A player credential that does not hold is refused (401)."""
        if not token:
            return None
        if token.startswith(PLAYER_TOKEN_PREFIX):
            parts = token.split("_", 2)
            # verified in the store's read, which refreshes the player's TTL only for its own token
            player = (
                await self.players.load_player(parts[1], self.settings.player_idle_ttl, hash_token(token))
                if len(parts) == 3
                else None
            )
            held = player is not None and player.get("token_hash", "")
            if not held or not hmac.compare_digest(str(held), hash_token(token)):
                raise ProblemError(
                    "invalid_token",
                    "This player token is not valid: the player was deleted or expired, or the token "
                    "was mistyped.",
                )
            return parts[1]
        if self.identities is not None and looks_like_jwt(token):
            return await self._player_of_identity(await self.identities.verify(token))
        return None

    async def _player_of_identity(self, identity: Identity) -> str:
        """The player of an identity, made on its first request (the name its token gives, if any)."""
        ttl = self.settings.player_idle_ttl
        pid = await self.players.player_of_identity(identity.issuer, identity.subject)
        if pid is not None and await self.players.load_player(pid, ttl) is not None:
            await self.players.refresh_identity(identity.issuer, identity.subject, ttl)
            return pid
        if pid is not None:  # the player expired: the identity starts afresh
            await self.players.forget_identity(identity.issuer, identity.subject, pid)
        fresh = new_game_id()
        fields = {
            "name": display_name(identity.name),
            "locale": "",
            "issuer": identity.issuer,
            "subject": identity.subject,
        }
        await self.players.create_player(fresh, fields, ttl)
        winner = await self.players.claim_identity(identity.issuer, identity.subject, fresh, ttl)
        if winner != fresh:  # another request of the same identity made its player a moment ago
            await self.players.delete_player(fresh)
        return winner


class GameCore:
    """The game cache, who is calling in a game, and what a change sets going; held by every part that
    reads or changes games (the lobby, play, players, bot accounts, events, tournaments)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        credentials: Credentials,
        emit_webhook: EmitWebhook,
        enqueue_bot: EnqueueBot | None = None,
        schedule_timer: ScheduleTimer | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.emit_webhook = emit_webhook
        self.enqueue_bot = enqueue_bot
        self.schedule_timer = schedule_timer
        self._matches: OrderedDict[tuple[str, int], engine.Match] = OrderedDict()
        self._records: OrderedDict[str, GameRecord] = OrderedDict()

    MATCH_CACHE_SIZE = 1024

    def match_of(self, record: GameRecord) -> engine.Match:
        """The engine's match for ``record``, parsed once per (game, version).

        A version names exactly one state (compare-and-set), and the service never changes a
        ``Match`` in place (``engine.apply`` returns a new one), so a parsed match can be reused.
        """
        key = (record.id, record.version)
        m = self._matches.get(key)
        # The one state change without a new version: a waiting game's start deals the first hand
        # (version 0 stays the first move's version), so a cached undealt match is stale once active.
        if m is None or (m.phase == "waiting" and record.status != STATUS_WAITING):
            m = engine.from_json(record.state)
            self.remember(key, m)
        else:
            self._matches.move_to_end(key)
        return m

    def remember(self, key: tuple[str, int], m: engine.Match) -> None:
        self._matches[key] = m
        if len(self._matches) > self.MATCH_CACHE_SIZE:
            self._matches.popitem(last=False)

    def cached(self, gid: str) -> GameRecord | None:
        """The last version of ``gid`` this process read or wrote, possibly stale.

        Good enough to start a move: the compare-and-set refuses a stale version or a seat token
        given up since, and every refusal is re-checked against a fresh read.
        """
        return self._records.get(gid)

    def keep(self, record: GameRecord) -> None:
        self._records[record.id] = record
        self._records.move_to_end(record.id)
        if len(self._records) > self.MATCH_CACHE_SIZE:
            self._records.popitem(last=False)

    def forget(self, gid: str) -> None:
        """Drop this process's copy of ``gid`` (after a change it did not read back)."""
        self._records.pop(gid, None)

    async def caller_of(
        self, record: GameRecord, token: str | None, required: bool, claimed_seat: int | None = None
    ) -> Caller:
        """:meth:`caller`, for any credential: a seat token, the administrator's, or an account's (a
        player's credential or a bot's API key, which holds the seats its account was seated in;
        resolving it may read the store)."""
        return self.caller(record, token, required, claimed_seat, await self.credentials.owner_of(token))

    def caller(
        self,
        record: GameRecord,
        token: str | None,
        required: bool,
        claimed_seat: int | None = None,
        owner: str | None = None,
    ) -> Caller:
        """Resolve a bearer token to a seat of ``record`` (``owner``: the account the token names, whose
        seats it holds); 401 for a missing or foreign token, 403 for a token of another seat than the
        one claimed, or an account's credential with no seat here where one is needed."""
        if owner is not None:
            return self.account_caller(record, owner, required, claimed_seat)
        if not token:
            if required:
                raise missing_token()
            return Caller()
        if self.credentials.is_admin(token):
            if required:  # a good credential, of a kind that acts in no seat (REST refuses it alike)
                raise ProblemError(
                    "credential_not_accepted",
                    "The administrator token acts in no seat: a seat token, a player's token or a bot's "
                    "key does.",
                )
            return Caller(admin=True)
        holder = self.seat_holder(record, token)
        if holder is None:
            raise ProblemError(
                "invalid_token", Text("This token does not hold a seat in game {gid}.", gid=record.id)
            )
        if claimed_seat is not None and claimed_seat != holder.seat:
            assert holder.seat is not None
            raise wrong_seat(holder.seat, claimed_seat)
        return holder

    def account_caller(
        self, record: GameRecord, owner: str, required: bool, claimed_seat: int | None = None
    ) -> Caller:
        """The seat of ``record`` an account's credential acts in: the one claimed (403 ``wrong_seat``
        when it is not the account's), else the account's seat to act, else its first. Without a seat
        here: a spectator, or 403 ``seat_not_held`` when one is ``required`` or claimed."""
        held = self.seats_of(record, owner)
        if not held:
            if required or claimed_seat is not None:
                raise seat_not_held(record.id)
            return Caller()
        if claimed_seat is not None:
            return self.claim(record, Caller(seat=held[0], owner=owner), claimed_seat)
        to_act = self.match_of(record).to_act if record.status == STATUS_ACTIVE else None
        seat = to_act if to_act in held else held[0]
        return Caller(seat=seat, token_hash=record.seats[seat].token_hash, owner=owner)

    @staticmethod
    def seats_of(record: GameRecord, owner: str) -> list[int]:
        """The seats of ``record`` that the account ``owner`` holds (not given up)."""
        return [i for i, s in enumerate(record.seats) if s.owner == owner and s.token_hash]

    def claim(self, record: GameRecord, caller: Caller, seat: int) -> Caller:
        """``caller`` acting in ``seat``, which a request names: its own seat, or another seat of the
        same account (a bot holding both seats of a team); 403 ``wrong_seat`` otherwise."""
        if seat == caller.seat:
            return caller
        if caller.owner and seat in self.seats_of(record, caller.owner):
            return Caller(seat=seat, token_hash=record.seats[seat].token_hash, owner=caller.owner)
        assert caller.seat is not None
        raise wrong_seat(caller.seat, seat)

    @staticmethod
    def seat_holder(record: GameRecord, token: str) -> Caller | None:
        """The caller holding the seat of ``record`` that the seat token ``token`` is for, or None."""
        digest = hash_token(token)
        for i, seat in enumerate(record.seats):
            if seat.token_hash and hmac.compare_digest(seat.token_hash, digest):
                return Caller(seat=i, token_hash=digest)
        return None

    async def get(self, gid: str) -> GameRecord:
        check_id("game_id", gid, "game_not_found")
        record = await self.store.games.load(gid)
        if record is None:
            self._records.pop(gid, None)
            raise ProblemError(
                "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=gid)
            )
        self.keep(record)
        return record

    @staticmethod
    def account_turn(record: GameRecord, m: engine.Match, version: int) -> tuple[str, dict[str, Any]] | None:
        """The account (a bot account, or a player: the seat's ``owner``) whose seat is to act in ``m``
        (at ``version``), and its ``your_turn`` notice; None when no account is to act."""
        if m.over or m.to_act is None or not record.seats[m.to_act].owner:
            return None
        notice = {"type": "your_turn", "game_id": record.id, "seat": m.to_act, "version": version}
        return record.seats[m.to_act].owner, notice

    async def notify_accounts(self, record: GameRecord, m: engine.Match, told: bool = False) -> None:
        """Tell the accounts seated (bot accounts and players) that it is their turn (unless ``told``:
        the move's commit did) or that a match of theirs is over."""
        if record.status == STATUS_ACTIVE and m.to_act is not None:
            turn = self.account_turn(record, m, record.version)
            if turn is not None and not told:
                await self.store.bots.notify_account(*turn)
            pid = owner_player(turn[0]) if turn is not None else None
            if pid is not None:  # a person: the app's backend may wake their phone (never their cards)
                seat = m.to_act
                facts = {"game_id": record.id, "kind": record.game, "seat": seat, "version": record.version}
                await self.emit_webhook(
                    "your_turn",
                    {**facts, "player_id": pid, "deadline_at": self.deadline(record)},
                    key=f"{record.id}:{record.version}:{seat}",
                )
        elif record.status == STATUS_FINISHED:
            for owner in sorted({s.owner for s in record.seats if s.owner}):
                notice = {
                    "type": "game_finished",
                    "game_id": record.id,
                    "winners": m.winners,
                    "version": record.version,
                }
                await self.store.bots.notify_account(owner, notice)
            players = [owner_player(s.owner) for s in record.seats]
            if any(players):
                finished = {"game_id": record.id, "kind": record.game, "version": record.version}
                await self.emit_webhook(
                    "game_finished",
                    {**finished, "winners": m.winners or [], "player_ids": players},
                    key=f"{record.id}:over",
                )

    @staticmethod
    def deadline(record: GameRecord) -> float | None:
        """When the turn of ``record``'s seat to act runs out (the move that gave it, plus the clock)."""
        seconds = record.extra.get("turn_seconds")
        return record.updated_at + int(seconds) if seconds else None

    async def notify_players(self, owners: Sequence[str], notice: dict[str, Any]) -> None:
        """Tell each player among ``owners`` (seat owners; bot accounts are skipped) ``notice``."""
        for owner in sorted({o for o in owners if owner_player(o) is not None}):
            await self.store.bots.notify_account(owner, notice)

    async def resume_bot_turn(self, gid: str) -> None:
        """The bot turn ``gid`` is at, enqueued (a no-op when it is queued already): for a replayed
        move, whose first request may have failed right after writing it (a write a replica did not
        confirm in time, a store fault) and before enqueuing the next turn. Timers are not touched:
        scheduling one again would restart its clock."""
        if self.enqueue_bot is None:
            return
        record = await self.store.games.load(gid)
        if record is None or record.status != STATUS_ACTIVE:
            return
        seat = self.match_of(record).to_act
        if seat is not None and record.seats[seat].is_bot:
            await self.enqueue_bot(gid, record.version, record.seats[seat].kind.partition(":")[2])

    async def maybe_enqueue_bot(self, record: GameRecord, m: engine.Match) -> None:
        """A bot seat to act gets a job now; a human seat of a timed game gets a turn timer, and a
        player's seat with a long clock (correspondence play) a reminder before it runs out."""
        if record.status != STATUS_ACTIVE or m.to_act is None:
            return
        if record.seats[m.to_act].is_bot:
            if self.enqueue_bot is not None:
                level = record.seats[m.to_act].kind.partition(":")[2]
                await self.enqueue_bot(record.id, record.version, level)
        elif self.schedule_timer is not None and record.extra.get("turn_seconds"):
            seconds = int(record.extra["turn_seconds"])
            remind_in = None
            if (
                owner_player(record.seats[m.to_act].owner)
                and seconds >= self.settings.reminder_min_turn_seconds
            ):
                remind_in = seconds - min(seconds // 4, REMINDER_MAX_LEAD)
            await self.schedule_timer(record.id, record.version, seconds, remind_in)
