"""Players: a person who lasts beyond one table. A player is a guest (``POST /v1/players``: an id and a
token shown once) or an identity of the app's own identity provider (a JWT from a trusted issuer,
verified by :class:`service.identity.IdentityVerifier`, given to the process's
:class:`service.games.core.Credentials`, which tells the player any credential names); a guest may later
be linked to an identity.

A seat joined with a player's credential is bound to the player (its ``owner`` is ``player:<id>``):
the same credential acts in every game of the player, from any device, and one player holds at most
one seat of a table. The player's list of games (:meth:`Players.my_games`) reads a few fields of
each game, never its state; the player's notices (their turns, invitations, games started and over,
rematches) come on one stream, as a bot account's do.

Deleting a player (``DELETE /v1/me``) voids their credentials at once, hands their seats in running
games to a bot (as a leave does), and removes their name from every seat they held; their finished
games stay for the others. Names are never written into a game's history or a stored notice
(service/store/players.py), so nothing else holds one. "Every seat" is the seats index, not the games
list: the list keeps ``player_max_games`` entries and drops finished games first, while the seats
index keeps each game the player ever sat in for as long as that game exists
(:meth:`service.store.players.PlayerStore.add_player_seat`, which says why names are not resolved at
read time instead).

A player chooses who may invite them: everyone (the default) or nobody (``invitations`` of
``PATCH /v1/me``), and never the players they block (``POST /v1/me/blocks``). What one player's
actions put on another's stream (invitations, rematch offers) is counted per sender and recipient,
``player_notices_per_sender`` an hour at most (service/games/invitations.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import DEFAULT_NAME as DEFAULT_NAME  # the API names it from here
from service.games.core import PLAYER_TOKEN_PREFIX, Credentials, GameCore, new_game_id
from service.games.cursors import decode_my_games_cursor, encode_my_games_cursor
from service.games.events import stream_cursor
from service.games.ratings import Ratings
from service.games.webhooks import Webhooks
from service.identity import looks_like_jwt
from service.store import Store
from service.store.keys import (
    STATUS_ACTIVE,
    STATUS_FINISHED,
    STATUS_WAITING,
    hash_token,
    notices_from_key,
    owner_player,
    player_owner,
)
from service.store.players import INVITATIONS_NOBODY
from service.store.records import GameRecord, StoreError


@dataclass(frozen=True)
class MyGame:
    """One game of a player's list: what the list shows and how it sorts (your turn first)."""

    game_id: str
    kind: str
    status: str
    version: int
    seat: int
    to_act: int | None
    your_turn: bool
    updated_at: float  # POSIX seconds: the contract's model (schema.players.MyGame) says it as a moment

    @property
    def rank(self) -> int:
        """0: the player is to act; 1: waiting for players or for another's move; 2: over."""
        return 0 if self.your_turn else 2 if self.status == STATUS_FINISHED else 1

    @property
    def position(self) -> tuple[int, float, str]:
        return (self.rank, -self.updated_at, self.game_id)


GAME_STATUSES = (STATUS_WAITING, STATUS_ACTIVE, STATUS_FINISHED)


def game_status(status: str | None, where: tuple[str, ...]) -> str | None:
    """The status a player's list is filtered by (None: every game); anything else is 422
    ``invalid_request`` (``where`` locates the parameter in the problem's ``errors``)."""
    if status is not None and status not in GAME_STATUSES:
        raise ProblemError(
            "invalid_request",
            "status is one of waiting, active, finished.",
            errors=[{"loc": list(where), "msg": "not a game status", "type": "enum"}],
        )
    return status


def player_required(token: str | None) -> ProblemError:
    """401: ``missing_token`` when the request sent no credential at all, ``invalid_token`` when it
    sent one that is no player's (a seat token or a bot's key is not a player)."""
    if not token:
        return ProblemError("missing_token", PLAYER_CREDENTIAL)
    return ProblemError("invalid_token", PLAYER_CREDENTIAL)


PLAYER_CREDENTIAL = Text(
    "Send a player token (from POST /v1/players) or a token of your app's identity provider as "
    "`Authorization: Bearer <token>`."
)


class Players:
    """Guests, identities, the player's own record and list of games, and deleting a player (which
    forgets their ratings: ``ratings``); a long turn's reminder (a notice and a webhook: ``webhooks``)."""

    def __init__(
        self,
        core: GameCore,
        store: Store,
        settings: Settings,
        credentials: Credentials,
        ratings: Ratings,
        webhooks: Webhooks,
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.ratings = ratings
        self.webhooks = webhooks

    async def create_guest(self, name: str, locale: str) -> tuple[str, str]:
        """A new guest player: its id and its token (``atp_<id>_<secret>``, stored only hashed)."""
        pid = new_game_id()
        token = f"{PLAYER_TOKEN_PREFIX}{pid}_{secrets.token_urlsafe(32)}"
        fields = {"name": name or DEFAULT_NAME, "locale": locale, "token_hash": hash_token(token)}
        await self.store.players.create_player(pid, fields, self.settings.player_idle_ttl)
        return pid, token

    async def offer_rematch(self, record: GameRecord, asker: int, rid: str) -> None:
        """The players of a finished game learn of its rematch, which their lists show (a seat waits
        for each, reserved). The asker's offer is a notice one player sends others, so it goes as an
        invitation would: none to a player who refuses the asker's invitations (blocked, or nobody's),
        and it counts against the asker's hourly notices to each (:meth:`may_notify`). The rematch
        itself still waits in their list."""
        sender = owner_player(record.seats[asker].owner)
        for i, s in enumerate(record.seats):
            pid = owner_player(s.owner)
            cap = self.settings.player_max_games
            if pid is None or not await self.store.players.add_player_game(pid, rid, cap) or i == asker:
                continue
            if sender is not None and await self.store.players.refuses_invitations(pid, sender):
                continue
            if await self.may_notify(pid, sender):
                notice = {"type": "rematch_offered", "game_id": record.id, "rematch_id": rid}
                await self.store.bots.notify_account(s.owner, notice)

    async def may_notify(self, recipient: str, sender: str | None) -> bool:
        """Whether a notice ``sender`` (a player; None: no player, nothing to count) causes may go on
        ``recipient``'s stream: at most ``player_notices_per_sender`` an hour from one sender to one
        recipient, so no player floods another's stream (the invitation or rematch itself stands)."""
        if sender is None:
            return True
        sent, _ = await self.store.players.count_hit(notices_from_key(recipient, sender))
        return sent <= self.settings.player_notices_per_sender

    async def account_of(self, credential: str | None) -> tuple[str, str]:
        """The seat owner a join's credential makes (``player:<id>`` for a player, a bot account's id
        for its API key, "" for none) and the account's display name (a player's)."""
        if not credential:
            return "", ""
        pid = await self.credentials.player_of(credential)
        if pid is None:
            return await self.credentials.bot_of(credential), ""
        player = await self.store.players.load_player(pid, self.settings.player_idle_ttl)
        return player_owner(pid), "" if player is None else player.get("name", "")

    async def index_player_game(self, pid: str, gid: str) -> bool:
        """Add ``gid`` to the player's list, first dropping games over or gone when the list is full;
        429 ``too_many_games`` when it is full of games in play."""
        cap = self.settings.player_max_games
        if await self.store.players.add_player_game(pid, gid, cap):
            return True
        gids = await self.store.players.player_game_ids(pid)
        for old, facts in zip(gids, await self.store.players.game_facts(gids), strict=True):
            if facts is None or facts.get("status") == STATUS_FINISHED:
                await self.store.players.forget_player_game(pid, old)
        if await self.store.players.add_player_game(pid, gid, cap):
            return True
        raise ProblemError(
            "too_many_games",
            Text("You are seated in {cap} games not over yet: finish or leave one first.", cap=cap),
            headers={"Retry-After": "60"},
            limit=cap,
        )

    async def require_player(self, token: str | None) -> tuple[str, dict[str, str]]:
        """The caller's player and its record; 401 for any other credential (:func:`player_required`)."""
        pid = await self.credentials.player_of(token)
        player = (
            None if pid is None else await self.store.players.load_player(pid, self.settings.player_idle_ttl)
        )
        if pid is None or player is None:
            raise player_required(token)
        return pid, player

    async def update_me(
        self, token: str | None, name: str | None, locale: str | None, invitations: str | None = None
    ) -> None:
        """Change the caller's display name, locale or who may invite them (``everyone`` or
        ``nobody``). Seats already taken keep the name they were taken with (a table's names do not
        change under the others mid-match)."""
        pid, _ = await self.require_player(token)
        fields = {k: v for k, v in (("name", name), ("locale", locale)) if v is not None}
        if invitations is not None:
            fields["invitations"] = INVITATIONS_NOBODY if invitations == INVITATIONS_NOBODY else ""
        if fields and not await self.store.players.update_player(pid, fields):
            raise player_required(token)

    async def block(self, token: str | None, other: str) -> None:
        """Refuse invitations (and rematch notices) from ``other`` from now on; the invitations of
        theirs the caller holds go. 404 for no such player, 409 ``too_many_blocks`` at the cap."""
        pid, _ = await self.require_player(token)
        if not await self.store.players.player_exists(other):
            raise ProblemError("player_not_found", Text("There is no player {pid!r}.", pid=other))
        cap = self.settings.player_max_blocks
        done = await self.store.players.block_player(pid, other, cap)
        if done == 0:
            raise player_required(token)
        if done < 0:
            raise ProblemError(
                "too_many_blocks",
                Text(
                    "You block {cap} players already: unblock one, or refuse everyone's invitations.",
                    cap=cap,
                ),
                limit=cap,
            )
        for iid, invitation in (await self.store.players.invitations(pid)).items():
            if invitation.get("from_player") == other:
                await self.store.players.take_invitation(pid, iid)

    async def unblock(self, token: str | None, other: str) -> None:
        """Take invitations from ``other`` again (a no-op when they were not blocked, or are gone)."""
        pid, _ = await self.require_player(token)
        await self.store.players.unblock_player(pid, other)

    async def blocks(self, token: str | None) -> list[str]:
        """The players the caller blocks, by id."""
        pid, _ = await self.require_player(token)
        return await self.store.players.blocked_players(pid)

    async def link_identity(self, token: str | None, identity_token: str) -> None:
        """Link the caller (a guest) to an identity of the app's provider: from then on either
        credential is the same player. 409 when the identity already has a player of its own."""
        pid, player = await self.require_player(token)
        identities = self.credentials.identities
        if identities is None or not looks_like_jwt(identity_token):
            raise ProblemError(
                "invalid_token", "`identity_token` is not a token of a trusted identity provider."
            )
        identity = await identities.verify(identity_token)
        if player.get("issuer"):
            raise ProblemError("identity_taken", "This player is linked to an identity already.")
        ttl = self.settings.player_idle_ttl
        held = await self.store.players.player_of_identity(identity.issuer, identity.subject)
        if held is not None and held != pid and await self.store.players.load_player(held, ttl) is not None:
            raise ProblemError("identity_taken", "This identity already has a player of its own.")
        if held is not None and held != pid:
            await self.store.players.forget_identity(identity.issuer, identity.subject, held)
        if await self.store.players.claim_identity(identity.issuer, identity.subject, pid, ttl) != pid:
            raise ProblemError("identity_taken", "This identity already has a player of its own.")
        await self.store.players.update_player(pid, {"issuer": identity.issuer, "subject": identity.subject})

    async def my_games(
        self,
        token: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        where: tuple[str, ...] = ("query", "cursor"),
    ) -> tuple[list[MyGame], str | None]:
        """A page of the caller's games, those where it is their turn first, then those waiting or
        running, then those over; each group most recently changed first. ``next_cursor`` resumes
        after the page's last game (a game whose turn changed between pages may move groups: a
        client that wants the order of one moment reads from the start). A ``cursor`` this server
        did not give is 422 ``invalid_request`` (``where``: the parameter's place, for ``errors``)."""
        pid, _ = await self.require_player(token)
        after = decode_my_games_cursor(cursor, where) if cursor else None
        games = [g for g in await self.games_of_player(pid) if status is None or g.status == status]
        games.sort(key=lambda g: g.position)
        if after is not None:
            games = [g for g in games if g.position > after]
        page = games[:limit]
        more = len(games) > limit
        return page, encode_my_games_cursor(page[-1].position) if more and page else None

    async def games_of_player(self, pid: str) -> list[MyGame]:
        """Every game of the player's index in which they still hold their seat (entries of games gone
        or seats given up are dropped from the index as they are met)."""
        owner = player_owner(pid)
        gids = await self.store.players.player_game_ids(pid)
        out: list[MyGame] = []
        for gid, facts in zip(gids, await self.store.players.game_facts(gids), strict=True):
            seat = None if facts is None else seat_of_owner(facts, owner)
            if facts is None or seat is None:
                await self.store.players.forget_player_game(pid, gid)
                continue
            status = facts.get("status", STATUS_WAITING)
            to_act = await self._to_act(gid, facts) if status == STATUS_ACTIVE else None
            out.append(
                MyGame(
                    game_id=gid,
                    kind=facts.get("game", ""),
                    status=status,
                    version=int(facts.get("version", "0")),
                    seat=seat,
                    to_act=to_act,
                    your_turn=to_act == seat,
                    updated_at=float(facts.get("updated_at", "0")),
                )
            )
        return out

    async def _to_act(self, gid: str, facts: dict[str, str]) -> int | None:
        """The seat to act, as the last move's commit wrote it; a game not moved yet since its start
        (or written before the field existed) is read whole once."""
        if "to_act" in facts:
            return int(facts["to_act"]) if facts["to_act"] else None
        record = await self.store.games.load(gid)
        if record is None or record.status != STATUS_ACTIVE:
            return None
        return self.core.match_of(record).to_act

    async def delete_me(self, token: str | None) -> None:
        """Delete the caller: credentials void at once, seats of running games played out by a bot,
        the name gone from every seat; finished games stay for the others. The games visited are the
        seats index's (every game the player sat in that still exists) with the list's: a finished
        game the list's cap dropped still held the name."""
        pid, player = await self.require_player(token)
        owner = player_owner(pid)
        listed = await self.store.players.player_game_ids(pid)
        gids = list(dict.fromkeys([*listed, *await self.store.players.player_seat_game_ids(pid)]))
        await self.store.players.delete_player(pid)  # the token stops working here
        await self.ratings.forget_ratings(owner)
        if player.get("issuer"):
            await self.store.players.forget_identity(player["issuer"], player.get("subject", ""), pid)
        for gid in gids:
            await self.release_seats(gid, owner, "bot:random")

    async def release_seats(self, gid: str, owner: str, replacement: str) -> list[int]:
        """Give up ``owner``'s seats of ``gid`` (open again before the start, played by
        ``replacement`` during the match) and, for a player, remove the name from each. Returns the
        seats given up."""
        record = await self.store.games.load(gid)
        if record is None:
            return []
        released: list[int] = []
        for i, seat in enumerate(record.seats):
            if seat.owner != owner:
                continue
            if record.status != STATUS_FINISHED and seat.token_hash:
                try:
                    outcome = await self.store.games.leave(gid, i, seat.token_hash, replacement)
                except StoreError:
                    outcome = ""  # the seat changed hands or the game ended meanwhile
                if outcome:
                    released.append(i)
                if outcome == "left":  # open again before the start: nobody's
                    await self.store.players.free_seat(gid, i, owner)
                if outcome == "replaced":
                    self.core.forget(gid)
                    fresh = await self.core.get(gid)
                    await self.core.maybe_enqueue_bot(fresh, self.core.match_of(fresh))
            if owner_player(owner) is not None:
                await self.store.players.forget_seat(gid, i, owner)
        self.core.forget(gid)
        return released

    async def remind(self, gid: str, version: int) -> str:
        """The reminder of a long turn: if ``gid`` is still at ``version`` with a player to act, tell
        them when the clock runs out. What happened, for the job's log."""
        record = await self.store.games.load(gid)
        if record is None or record.version != version or record.status != STATUS_ACTIVE:
            return "stale"
        seat = self.core.match_of(record).to_act
        owner = record.seats[seat].owner if seat is not None else ""
        if seat is None or owner_player(owner) is None:
            return "no player to act"
        deadline = self.core.deadline(record)
        notice = {
            "type": "reminder",
            "game_id": gid,
            "seat": seat,
            "version": version,
            "deadline_at": deadline,
        }
        await self.core.notify_players([owner], notice)
        facts = {
            "game_id": gid,
            "kind": record.game,
            "seat": seat,
            "version": version,
            "deadline_at": deadline,
        }
        await self.webhooks.emit_webhook(
            "reminder", {**facts, "player_id": owner_player(owner)}, key=f"{gid}:{version}"
        )
        return "reminded"

    async def open_player_stream(self, token: str | None, after: str | None, name: str) -> tuple[str, str]:
        """The first steps of following a player's notices: the player (as a seat owner names it) and
        where the stream resumes."""
        pid, _ = await self.require_player(token)
        return player_owner(pid), stream_cursor(after, name)


def seat_of_owner(facts: dict[str, str], owner: str) -> int | None:
    """The seat ``owner`` holds in a game read by :meth:`PlayerStore.game_facts`."""
    players = int(facts.get("players", "0"))
    return next((i for i in range(players) if facts.get(f"seat:{i}:owner") == owner), None)
