"""The lobby: create, list, join, leave and rematch games (``games.lobby``)."""

from __future__ import annotations

import hmac
import json
import secrets
import time
from typing import Any

import engine
from schema.games import (
    GameList,
    GameSummary,
    NewGame,
    SeatInfo,
    game_options,
)
from service.base.counters import Metrics
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games import quotas
from service.games.core import (
    Caller,
    Credentials,
    GameCore,
    engine_problem,
    new_game_id,
    your_turn,
)
from service.games.cursors import decode_cursor, encode_cursor
from service.games.players import Players
from service.games.ratings import check_rated_game, check_rated_join, rated_clock
from service.store import Store
from service.store.keys import (
    STATUS_ACTIVE,
    STATUS_FINISHED,
    STATUS_WAITING,
    hash_token,
    owner_player,
)
from service.store.records import (
    AlreadySeated,
    GameMissing,
    GameOver,
    GameRecord,
    GameStart,
    Seat,
    SeatLost,
    SeatTaken,
    StartChanged,
)

JOIN_ATTEMPTS = 8
"""Reads of the game a join may take when other seats change under it (each retry is one read)."""


class Lobby:
    """Create, list, join, leave and rematch games; a join with a player's credential, and a rematch,
    go through the player's records (``players``)."""

    def __init__(
        self,
        core: GameCore,
        store: Store,
        settings: Settings,
        credentials: Credentials,
        players: Players,
        metrics: Metrics | None = None,
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.players = players
        self.metrics = metrics

    def summary(self, record: GameRecord, caller: Caller | None = None) -> GameSummary:
        m = self.core.match_of(record)
        show_seed = record.status == STATUS_FINISHED or (caller is not None and caller.admin)
        return GameSummary.model_validate(
            {
                "game_id": record.id,
                "kind": record.game,
                "players": record.players,
                "options": game_options(record.game, record.options),
                "status": record.status,
                "version": record.version,
                "to_act": m.to_act if record.status == STATUS_ACTIVE else None,
                "seats": [SeatInfo.of(i, s.kind, s.name, not s.is_open) for i, s in enumerate(record.seats)],
                "listed": record.listed,
                "created_at": record.created_at,  # POSIX seconds, stored: a moment in the contract
                "winners": m.winners,
                "seed": str(record.seed) if show_seed else None,
                "commitment": engine.match_commitment(m),
                "rematch_id": record.rematch or None,
                "turn_seconds": record.extra.get("turn_seconds"),
                "rated": bool(record.extra.get("rated")),
            }
        )

    async def open_games(
        self, limit: int = 50, cursor: str | None = None, where: tuple[str, ...] = ("query", "cursor")
    ) -> GameList:
        """A page of the open games, newest first, and the cursor of the next (None: the last page).
        A ``cursor`` this server did not give is 422 ``invalid_request`` (``where``: the parameter's
        place, for the problem's ``errors``)."""
        page = await self.store.games.open_page(
            limit, None if cursor is None else decode_cursor(cursor, where)
        )
        return GameList(
            games=[self.summary(r) for r in page.records],
            next_cursor=None if page.next is None else encode_cursor(page.next),
        )

    async def create(self, request: NewGame, token: str | None) -> tuple[GameRecord, str | None]:
        """A new game and its invite code (a private game's): checked, dealt or waiting for its seats,
        admitted by the caps on unfinished games, written with its opening events."""
        request, seats = self._checked_request(request, self.credentials.is_admin(token))
        # The match key K: fresh from `secrets` for every game (docs/fairness.md); its commitment is
        # published now, before any seat joins. A waiting game deals when its last seat is taken.
        chosen = request.seed_number()
        key: int | bytes = chosen if chosen is not None else secrets.token_bytes(32)
        status = STATUS_WAITING if "open" in seats else STATUS_ACTIVE
        try:
            m = engine.new_match(
                request.kind,
                seed=key,
                options=request.options or None,
                deal=request.deal_json(),
                wait=status == STATUS_WAITING,
            )
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        invite = None if request.listed else secrets.token_urlsafe(12)
        record = new_record(request, seats, key, m, status, invite)
        await quotas.admit(self.core, record, token)  # 429/503 past the caps on unfinished games
        await self.store.games.create(
            record, [json.dumps(e) for e in opening_events(request, seats, m, record)]
        )
        if self.metrics:
            self.metrics.games_created.labels(request.kind).inc()
        if status == STATUS_ACTIVE:
            await self.core.maybe_enqueue_bot(record, m)
        return record, invite

    def _checked_request(self, request: NewGame, admin: bool) -> tuple[NewGame, list[str]]:
        """``request`` as it will be played (a rated game's clock filled in) and its seats, or the
        refusal: a chosen seed or deal without the administrator token (403), a rated game that cannot
        be rated, a seat count that is not the game's (422)."""
        if (request.deal is not None or request.seed is not None) and not admin:
            chosen = Text("an explicit deal") if request.deal is not None else Text("a chosen seed")
            raise ProblemError(
                "admin_required",
                Text(
                    "Creating a game with {chosen} needs the administrator token: whoever knows the seed "
                    "knows every hand. Omit `seed` and `deal` (add your own `client_seed` when you join).",
                    chosen=chosen,
                ),
            )
        players = int(engine.games()[request.kind]["players"])
        given = list(request.seats or [])
        if len(given) > players:
            raise ProblemError(
                "invalid_seats",
                Text(
                    "{game} is played by {players}; give at most one seat entry each, not {given}.",
                    game=request.kind,
                    players=players,
                    given=len(given),
                ),
            )
        seats = given + ["open"] * (players - len(given))  # the seats not given are open
        if request.rated:  # a clock, so nobody escapes a loss by never moving again (ratings.py)
            check_rated_game(seats, request.seed is not None or request.deal is not None)
            request = rated_clock(request, self.settings)
        return request, seats

    async def join(
        self,
        gid: str,
        seat: int | None,
        name: str,
        invite_code: str | None,
        credential: str | None = None,
        client_seed: str = "",
        invited: bool = False,
    ) -> tuple[int, str, bool]:
        """Take a seat; with a bot account's API key the seat is the bot's, and its turns are
        announced on the bot's stream; with a player's credential the seat is the player's (one seat
        a table), and the player's credential acts in it from any device. ``client_seed`` is the
        seat's own entropy, mixed into every hand (docs/fairness.md). ``invited``: the caller holds an
        invitation to this table, which stands for its invite code."""
        owner, account_name = await self.players.account_of(credential)
        record = await self.core.get(gid)
        if record.extra.get("rated"):
            await check_rated_join(self.core, owner)
        if (
            record.invite_hash
            and not invited
            and not (invite_code and hmac.compare_digest(record.invite_hash, hash_token(invite_code)))
        ):
            raise ProblemError(
                "invalid_invite", "This game is private: send the invite code its creator got."
            )
        if seat is not None and seat >= record.players:
            raise ProblemError(
                "invalid_seats", Text("Seats of this game are 0..{last}.", last=record.players - 1)
            )
        token = secrets.token_urlsafe(32)
        pid = owner_player(owner)
        indexed = pid is not None and await self.players.index_player_game(pid, gid)
        try:
            taken, started = await self._take_seat(
                record, seat, hash_token(token), name or account_name, "", owner, client_seed
            )
        except (SeatTaken, AlreadySeated, ProblemError) as error:
            if indexed and pid is not None and not isinstance(error, AlreadySeated):
                await self.store.players.forget_player_game(pid, gid)  # (a seat held: the game stays listed)
            if isinstance(error, AlreadySeated):
                raise ProblemError(
                    "already_seated",
                    Text("You hold seat {seat} of this game already: one player, one seat.", seat=error.seat),
                    seat=error.seat,
                ) from None
            if isinstance(error, ProblemError):
                raise
            if error.seat is None:
                raise ProblemError("game_full", "Every seat of this game is taken.") from None
            raise ProblemError(
                "seat_taken", Text("Seat {seat} is taken; join another or omit `seat`.", seat=error.seat)
            ) from None
        if owner and pid is None:
            await self.store.bots.add_bot_game(owner, gid)
        if started:
            await self._started(await self.core.get(gid))
        return taken, token, started

    async def _started(self, record: GameRecord) -> None:
        """What follows a start: the first bot's job, the accounts told (the player to act, and every
        player that the match began)."""
        m = self.core.match_of(record)
        await self.core.maybe_enqueue_bot(record, m)
        await self.core.notify_players(
            [s.owner for s in record.seats],
            {"type": "game_started", "game_id": record.id, "version": record.version},
        )
        await self.core.notify_accounts(record, m)

    async def _take_seat(
        self,
        record: GameRecord,
        seat: int | None,
        token_hash: str,
        name: str,
        reservation: str,
        owner: str,
        client_seed: str,
    ) -> tuple[int, bool]:
        """The store's join, with the game's start computed here when this join takes the last seat:
        the first hand is dealt from every seat's client seed, so it cannot be dealt before. The store
        writes that start only if the seeds read still hold; otherwise read again (bounded)."""
        gid = record.id
        for _ in range(JOIN_ATTEMPTS):
            start = self._start_if_last(record, seat, client_seed)
            try:
                return await self.store.games.join(
                    gid,
                    seat,
                    token_hash,
                    name,
                    reservation,
                    owner=owner,
                    client_seed=client_seed,
                    start=start,
                )
            except GameMissing:
                raise ProblemError(
                    "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=gid)
                ) from None
            except StartChanged:
                record = await self.core.get(gid)
        raise ProblemError(
            "version_conflict",
            "The seats of this game kept changing while you joined; join again.",
            current_version=record.version,
        )

    def _start_if_last(self, record: GameRecord, seat: int | None, client_seed: str) -> GameStart | None:
        """The start of ``record`` if joining ``seat`` (None: the first open one) takes its last seat."""
        if record.status != STATUS_WAITING:
            return None
        if seat is None:
            seat = next((i for i, s in enumerate(record.seats) if s.is_open), None)
            if seat is None:
                return None
        waiting = [i for i, s in enumerate(record.seats) if s.kind in ("open", "reserved") and i != seat]
        if waiting:
            return None
        seeds = [client_seed if i == seat else s.client_seed for i, s in enumerate(record.seats)]
        try:
            started = engine.start(self.core.match_of(record), seeds, deal=record.extra.get("deal"))
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        events = [{"type": "game_started", "client_seeds": seeds}, *started.events]
        events += your_turn(started, record.version, record)
        return GameStart(engine.to_json(started), seeds, [json.dumps(e) for e in events], started.to_act)

    async def leave(self, gid: str, token: str | None) -> tuple[int, str]:
        """Give up the caller's seat. Before the start the seat opens again, nobody's: its owner is
        cleared, so the same player may join the table again (any seat) and another may take it;
        during the match a random bot plays it out so the others can finish (the token stops working
        either way; the seat keeps its owner, whose deletion must still find it)."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=True)
        assert caller.seat is not None
        if record.status == STATUS_FINISHED:
            raise ProblemError("game_finished", "The match is over; there is no seat to give up.")
        try:
            outcome = await self.store.games.leave(gid, caller.seat, caller.token_hash, "bot:random")
        except GameMissing:
            raise ProblemError(
                "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=gid)
            ) from None
        except SeatLost:
            raise ProblemError("invalid_token", "This token no longer holds a seat in this game.") from None
        except GameOver:
            raise ProblemError("game_finished", "The match is over; there is no seat to give up.") from None
        owner = record.seats[caller.seat].owner
        if outcome == "left" and owner:
            await self.store.players.free_seat(gid, caller.seat, owner)
            pid = owner_player(owner)
            if pid is not None:  # off their list too (its seats index keeps it: harmless)
                await self.store.players.forget_player_game(pid, gid)
        self.core.forget(gid)
        if outcome == "replaced":
            await self.core.maybe_enqueue_bot(await self.core.get(gid), self.core.match_of(record))
        return caller.seat, outcome

    async def rematch(
        self, gid: str, token: str | None, client_seed: str = ""
    ) -> tuple[GameRecord, int, str, bool]:
        """Offer (or take up) the rematch of a finished game: the same game, options and seats, a fresh
        key and a random id (nothing about it follows from the finished game's public record). Each
        player claims the same seat with the token of the old game; bots stay bots. Players asking at
        once all land in one rematch: the finished game's ``rematch`` field is set once (HSETNX).
        Returns the rematch, the caller's seat, its new token and whether the rematch started."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=True)
        assert caller.seat is not None
        if record.status != STATUS_FINISHED:
            raise ProblemError("game_not_finished", "A rematch is offered once the match is over.")
        rid = record.rematch or await self._new_rematch(record, caller.seat, token)
        self.core.forget(gid)
        token_new = secrets.token_urlsafe(32)
        old_seat = record.seats[caller.seat]
        pid = owner_player(old_seat.owner)
        if pid is not None:
            await self.players.index_player_game(pid, rid)
        try:
            seat, started = await self._take_seat(
                await self.core.get(rid),
                caller.seat,
                hash_token(token_new),
                old_seat.name,
                caller.token_hash,
                old_seat.owner,
                client_seed,
            )
            if old_seat.owner and pid is None:
                await self.store.bots.add_bot_game(old_seat.owner, rid)
        except SeatTaken:
            raise ProblemError(
                "seat_taken", Text("Seat {seat} of the rematch is already taken.", seat=caller.seat)
            ) from None
        except ProblemError as error:
            if error.code == "game_not_found":
                raise ProblemError("game_not_found", "The rematch has expired.") from None
            raise
        fresh = await self.core.get(rid)
        if started:
            await self._started(fresh)
        return fresh, seat, token_new, started

    async def _new_rematch(self, record: GameRecord, seat: int, token: str | None) -> str:
        """The id of the rematch of ``record``: one created here (admitted by the caps on unfinished
        games, counted for the asking seat's owner) unless another player's won the claim meanwhile."""
        rematch, created = rematch_record(record)
        await quotas.admit(self.core, rematch, token, owner=record.seats[seat].owner)
        # Created before it is linked, so whoever reads the link finds the game.
        await self.store.games.create(rematch, [json.dumps(created)])
        rid = await self.store.games.claim_rematch(record.id, rematch.id)
        if rid != rematch.id:  # another player's rematch won the claim a moment ago
            await self.store.games.drop_unstarted(rematch.id)
        elif rid:
            await self.players.offer_rematch(record, seat, rid)
        if not rid:
            raise ProblemError(
                "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=record.id)
            )
        return rid


def new_record(
    request: NewGame, seats: list[str], key: int | bytes, m: engine.Match, status: str, invite: str | None
) -> GameRecord:
    """The record of a game about to be created (nothing written yet)."""
    now = time.time()
    return GameRecord(
        id=new_game_id(),
        game=request.kind,
        players=len(seats),
        options=engine.view(m, None).get("options", request.options),
        seed=key.hex() if isinstance(key, bytes) else key,
        version=0,
        state=engine.to_json(m),
        status=status,
        seats=[Seat(kind=k, name=k if k.startswith("bot:") else "") for k in seats],
        listed=request.listed,
        invite_hash=hash_token(invite) if invite else "",
        explicit_deal=request.deal is not None,
        created_at=now,
        updated_at=now,
        extra={
            **({"deal": request.deal_json()} if request.deal is not None else {}),
            **({"turn_seconds": request.turn_seconds} if request.turn_seconds else {}),
            **({"timeouts_to_bot": request.timeouts_to_bot} if request.timeouts_to_bot else {}),
            **({"rated": True} if request.rated else {}),
        },
    )


def opening_events(
    request: NewGame, seats: list[str], m: engine.Match, record: GameRecord
) -> list[dict[str, Any]]:
    """A new game's first events: created (with the match commitment, docs/fairness.md); when no seat
    is open, started, dealt and the first turn at once (no client seed to wait for)."""
    events: list[dict[str, Any]] = [
        {
            "type": "game_created",
            "kind": request.kind,
            "seats": seats,
            "commitment": engine.match_commitment(m),
        }
    ]
    if record.status == STATUS_ACTIVE:
        events.append({"type": "game_started", "client_seeds": list(m.client_seeds)})
    events += m.events
    if record.status == STATUS_ACTIVE:
        events += your_turn(m, record.version, record)
    return events


def rematch_record(record: GameRecord) -> tuple[GameRecord, dict[str, Any]]:
    """The rematch of a finished game, not written yet, and its ``game_created`` event: the same game,
    options and seats (each player's reserved for its old token, bots staying bots), a fresh key and a
    random id (nothing about it follows from the finished game's public record)."""
    key = secrets.token_bytes(32)
    m = engine.new_match(record.game, seed=key, options=record.options, wait=True)
    now = time.time()
    seats = [
        Seat(kind=s.kind, name=s.name)
        if s.is_bot
        else Seat(kind="reserved", name=s.name, reserved_for=s.token_hash, owner=s.owner)
        for s in record.seats
    ]
    kept = {k: v for k, v in record.extra.items() if k in {"turn_seconds", "timeouts_to_bot", "rated"}}
    rematch = GameRecord(
        id=new_game_id(),
        game=record.game,
        players=record.players,
        options=record.options,
        seed=key.hex(),
        version=0,
        state=engine.to_json(m),
        status=STATUS_WAITING,
        seats=seats,
        listed=False,
        created_at=now,
        updated_at=now,
        extra={"rematch_of": record.id, **kept},
    )
    created = {
        "type": "game_created",
        "kind": record.game,
        "seats": [s.kind for s in seats],
        "commitment": engine.match_commitment(m),
    }
    return rematch, created
