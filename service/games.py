"""What a caller may do with games, whatever the API (REST or GraphQL): the server loop.

A move is checked in boardgame.io's order (credentials, game exists and is running, the state
version matches, it is this seat's turn), applied by the engine, then committed with the
store's compare-and-set together with its events. Every refusal is a :class:`ProblemError`.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import hmac
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import engine
from schema.rest import (
    ActionResponse,
    CreateGameRequest,
    GameSummary,
    LegalActionsResponse,
    LogEntry,
    LogResponse,
    SeatInfo,
    ViewResponse,
)
from service.errors import ProblemError
from service.metrics import Metrics
from service.settings import Settings
from service.store import (
    STATUS_ACTIVE,
    STATUS_FINISHED,
    STATUS_WAITING,
    GameMissing,
    GameOver,
    GameRecord,
    Seat,
    SeatLost,
    SeatTaken,
    Store,
    StreamEvent,
    VersionConflict,
    hash_token,
)

EnqueueBot = Callable[[str, int, str], Awaitable[None]]  # game, version, bot level
ScheduleTimer = Callable[[str, int, int], Awaitable[None]]

# engine IllegalAction.code -> our problem code
ENGINE_CODES = {
    "malformed_action": "illegal_action",
    "illegal_action": "illegal_action",
    "not_your_turn": "not_your_turn",
    "match_over": "game_over",
    "unknown_game": "unknown_game",
    "invalid_options": "invalid_options",
    "invalid_deal": "invalid_deal",
    "invalid_seed": "invalid_options",
}


def engine_problem(error: engine.IllegalAction) -> ProblemError:
    code = ENGINE_CODES.get(getattr(error, "code", "illegal_action"), "illegal_action")
    return ProblemError(code, str(error), rule=error.rule, reason=getattr(error, "code", "illegal_action"))


@dataclass(frozen=True)
class Caller:
    """Who sent the request: a seat of this game, the administrator, or nobody (a spectator)."""

    seat: int | None = None
    admin: bool = False
    token_hash: str = ""


def new_game_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


class Games:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        metrics: Metrics | None = None,
        enqueue_bot: EnqueueBot | None = None,
        schedule_timer: ScheduleTimer | None = None,
    ) -> None:
        self.store = store
        self.schedule_timer = schedule_timer
        self.settings = settings
        self.metrics = metrics
        self.enqueue_bot = enqueue_bot
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
        if m is None:
            m = engine.from_json(record.state)
            self._remember(key, m)
        else:
            self._matches.move_to_end(key)
        return m

    def _remember(self, key: tuple[str, int], m: engine.Match) -> None:
        self._matches[key] = m
        if len(self._matches) > self.MATCH_CACHE_SIZE:
            self._matches.popitem(last=False)

    def cached(self, gid: str) -> GameRecord | None:
        """The last version of ``gid`` this process read or wrote, possibly stale.

        Good enough to start a move: the compare-and-set refuses a stale version or a seat token
        given up since, and every refusal is re-checked against a fresh read.
        """
        return self._records.get(gid)

    def _keep(self, record: GameRecord) -> None:
        self._records[record.id] = record
        self._records.move_to_end(record.id)
        if len(self._records) > self.MATCH_CACHE_SIZE:
            self._records.popitem(last=False)

    # --- who is calling -------------------------------------------------------------------

    def is_admin(self, token: str | None) -> bool:
        admin = self.settings.admin_token
        return bool(token and admin and hmac.compare_digest(token.encode(), admin.encode()))

    def caller(
        self, record: GameRecord, token: str | None, required: bool, claimed_seat: int | None = None
    ) -> Caller:
        """Resolve a bearer token to a seat of ``record``; 401 for a missing or foreign token, 403 for
        a token of another seat than the one claimed."""
        if not token:
            if required:
                raise ProblemError(
                    "missing_token",
                    "Send your seat token as `Authorization: Bearer <token>` (from the join).",
                )
            return Caller()
        if self.is_admin(token):
            if required:
                raise ProblemError(
                    "invalid_token", "The administrator token is not a seat token; join a seat."
                )
            return Caller(admin=True)
        digest = hash_token(token)
        for i, seat in enumerate(record.seats):
            if seat.token_hash and hmac.compare_digest(seat.token_hash, digest):
                if claimed_seat is not None and claimed_seat != i:
                    raise ProblemError(
                        "wrong_seat", f"Your token is for seat {i}, not seat {claimed_seat}.", token_seat=i
                    )
                return Caller(seat=i, token_hash=digest)
        raise ProblemError("invalid_token", f"This token does not hold a seat in game {record.id}.")

    @staticmethod
    def seat_of(record: GameRecord, token: str) -> int | None:
        """The seat of ``record`` that ``token`` holds, or None."""
        digest = hash_token(token)
        for i, seat in enumerate(record.seats):
            if seat.token_hash and hmac.compare_digest(seat.token_hash, digest):
                return i
        return None

    # --- reading --------------------------------------------------------------------------

    async def get(self, gid: str) -> GameRecord:
        record = await self.store.load(gid)
        if record is None:
            self._records.pop(gid, None)
            raise ProblemError("game_not_found", f"There is no game {gid!r} (it may have expired).")
        self._keep(record)
        return record

    def summary(self, record: GameRecord, caller: Caller | None = None) -> GameSummary:
        m = self.match_of(record)
        show_seed = record.status == STATUS_FINISHED or (caller is not None and caller.admin)
        return GameSummary(
            id=record.id,
            game=record.game,
            players=record.players,
            options=record.options,
            status=record.status,  # type: ignore[arg-type]
            version=record.version,
            to_act=m.to_act if record.status == STATUS_ACTIVE else None,
            seats=[
                SeatInfo(seat=i, kind=s.kind, name=s.name, filled=not s.is_open)
                for i, s in enumerate(record.seats)
            ],
            listed=record.listed,
            created_at=record.created_at,
            winners=m.winners,
            seed=record.seed if show_seed else None,
            rematch=record.rematch or None,
            turn_seconds=record.extra.get("turn_seconds"),
        )

    async def open_games(self, limit: int = 50) -> list[GameSummary]:
        return [self.summary(r) for r in await self.store.open_games(limit)]

    async def view(self, gid: str, token: str | None, claimed_seat: int | None = None) -> ViewResponse:
        record = await self.get(gid)
        caller = self.caller(record, token, required=False, claimed_seat=claimed_seat)
        if claimed_seat is not None and caller.seat is None:
            raise ProblemError("missing_token", f"Seat {claimed_seat}'s view needs that seat's token.")
        m = self.match_of(record)
        return ViewResponse(
            game_id=gid,
            version=record.version,
            seat=caller.seat,
            status=record.status,
            view=engine.view(m, caller.seat),
        )

    async def legal_actions(self, gid: str, token: str | None) -> LegalActionsResponse:
        record = await self.get(gid)
        caller = self.caller(record, token, required=True)
        assert caller.seat is not None
        m = self.match_of(record)
        running = record.status == STATUS_ACTIVE
        return LegalActionsResponse.model_construct(  # built from trusted values: no validation
            game_id=gid,
            version=record.version,
            seat=caller.seat,
            to_act=m.to_act if running else None,
            actions=engine.legal_actions(m, caller.seat) if running else [],
        )

    async def replay_log(self, gid: str, token: str | None) -> LogResponse:
        record = await self.get(gid)
        caller = self.caller(record, token, required=False)
        if record.status != STATUS_FINISHED and not caller.admin:
            raise ProblemError(
                "game_not_over", "The replay log (with the seed) is published when the match is over."
            )
        m = self.match_of(record)
        return LogResponse(
            game_id=gid,
            game=record.game,
            options=record.options,
            seed=record.seed,
            deal=record.extra.get("deal"),
            actions=[LogEntry.model_validate(e) for e in await self.store.log(gid)],
            version=record.version,
            winners=m.winners,
        )

    async def events_after(self, gid: str, seat: int | None, after: str) -> list[dict[str, Any]]:
        return [e for e in (self.deliver(ev, seat) for ev in await self.store.events(gid, after)) if e]

    async def follow(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[dict[str, Any]]:
        """The game's events after the stream id ``after`` as ``seat`` may see them (ALL-7),
        waiting for new ones while the match runs (unless ``wait`` is false); it ends once the
        match is over. The one loop behind the SSE stream and the GraphQL subscription."""
        cursor = after
        while True:
            batch = await self.store.events(gid, cursor)
            if not batch:
                current = await self.store.load(gid)
                if not wait or current is None or current.status == STATUS_FINISHED:
                    return
                batch = await self.store.wait_events(gid, cursor, block_ms)
            finished = False
            for item in batch:
                cursor = item.id
                seen = self.deliver(item, seat)
                if seen is None:
                    continue
                yield seen
                finished = finished or (seen.get("type") == "turn" and seen.get("status") == STATUS_FINISHED)
            if finished:
                return
            await asyncio.sleep(0)

    @staticmethod
    def deliver(stream_event: StreamEvent, seat: int | None) -> dict[str, Any] | None:
        """The stream event as ``seat`` may see it (ALL-7), with its stream id and version."""
        seen = engine.event_for(stream_event.event, seat)
        if seen is None:
            return None
        return {"id": stream_event.id, "version": stream_event.version, **seen}

    # --- writing --------------------------------------------------------------------------

    async def create(self, request: CreateGameRequest, token: str | None) -> tuple[GameRecord, str | None]:
        admin = self.is_admin(token)
        if request.deal is not None and not admin:
            raise ProblemError(
                "admin_required", "Creating a game with an explicit deal needs the administrator token."
            )
        players = int(engine.games()[request.game]["players"])
        seats = request.seats or ["open"] * players
        if len(seats) != players:
            raise ProblemError(
                "invalid_seats",
                f"{request.game} is played by {players}; give one seat entry each, not {len(seats)}.",
            )
        seed = request.seed if request.seed is not None else secrets.randbelow(2**53)
        try:
            m = engine.new_match(request.game, seed=seed, options=request.options or None, deal=request.deal)
        except engine.IllegalAction as error:
            raise engine_problem(error) from None
        invite = None if request.listed else secrets.token_urlsafe(12)
        status = STATUS_WAITING if "open" in seats else STATUS_ACTIVE
        now = time.time()
        record = GameRecord(
            id=new_game_id(),
            game=request.game,
            players=players,
            options=engine.view(m, None).get("options", request.options),
            seed=seed,
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
                **({"deal": request.deal} if request.deal is not None else {}),
                **({"turn_seconds": request.turn_seconds} if request.turn_seconds else {}),
                **({"timeouts_to_bot": request.timeouts_to_bot} if request.timeouts_to_bot else {}),
            },
        )
        created = {"type": "game_created", "game": request.game, "seats": seats}
        events = [created, *m.events]
        if status == STATUS_ACTIVE:
            events.append({"type": "game_started"})
        await self.store.create(record, [json.dumps(e) for e in events])
        if self.metrics:
            self.metrics.games_created.labels(request.game).inc()
        if status == STATUS_ACTIVE:
            await self._maybe_enqueue_bot(record, m)
        return record, invite

    async def join(
        self, gid: str, seat: int | None, name: str, invite_code: str | None, bot_key: str | None = None
    ) -> tuple[int, str, bool]:
        """Take a seat; with a bot account's API key the seat is the bot's, and its turns are
        announced on the bot's stream."""
        owner = await self.bot_of(bot_key) if bot_key else ""
        record = await self.get(gid)
        if record.invite_hash and not (
            invite_code and hmac.compare_digest(record.invite_hash, hash_token(invite_code))
        ):
            raise ProblemError(
                "invalid_invite", "This game is private: send the invite code its creator got."
            )
        if seat is not None and seat >= record.players:
            raise ProblemError("invalid_seats", f"Seats of this game are 0..{record.players - 1}.")
        token = secrets.token_urlsafe(32)
        try:
            taken, started = await self.store.join(gid, seat, hash_token(token), name, owner=owner)
        except GameMissing:
            raise ProblemError("game_not_found", f"There is no game {gid!r} (it may have expired).") from None
        except SeatTaken as error:
            if error.seat is None:
                raise ProblemError("game_full", "Every seat of this game is taken.") from None
            raise ProblemError(
                "seat_taken", f"Seat {error.seat} is taken; join another or omit `seat`."
            ) from None
        if owner:
            await self.store.add_bot_game(owner, gid)
        if started:
            record = await self.get(gid)
            await self._maybe_enqueue_bot(record, self.match_of(record))
            await self._notify_bots(record, self.match_of(record))
        return taken, token, started

    # --- bot accounts ---------------------------------------------------------------------

    async def register_bot(self, name: str, contact: str | None = None) -> tuple[str, str]:
        """A new bot account: its id and its API key (``atb_<id>_<secret>``, stored only hashed)."""
        bid = new_game_id()
        key = f"atb_{bid}_{secrets.token_urlsafe(32)}"
        await self.store.create_bot(bid, name, hash_token(key), contact or "")
        return bid, key

    async def bot_notice(self, notice: dict[str, Any]) -> dict[str, Any] | None:
        """A stored notice as delivered: ``your_turn`` gains the seat's view and legal actions, or is
        dropped when its game has moved on; ``game_over`` is delivered as is."""
        if notice.get("type") != "your_turn":
            return notice
        record = await self.store.load(str(notice["game_id"]))
        if record is None or record.version != notice["version"] or record.status != STATUS_ACTIVE:
            return None
        m = self.match_of(record)
        seat = int(notice["seat"])
        return {**notice, "view": engine.view(m, seat), "legal_actions": engine.legal_actions(m, seat)}

    async def bot_of(self, key: str | None) -> str:
        """The bot account of an API key; 401 otherwise."""
        if not key:
            raise ProblemError("missing_token", "Send the bot's API key as `Authorization: Bearer <key>`.")
        parts = key.split("_", 2)
        bot = await self.store.load_bot(parts[1]) if len(parts) == 3 and parts[0] == "atb" else None
        if bot is None or not hmac.compare_digest(bot["key_hash"], hash_token(key)):
            raise ProblemError(
                "invalid_token", "This is not a bot API key (register one with POST /v1/bots)."
            )
        return parts[1]

    async def bot_status(self, key: str | None) -> tuple[str, str, list[dict[str, Any]]]:
        """The bot's id, name and seats, with whether each is to act now (to catch up after a gap)."""
        bid = await self.bot_of(key)
        bot = await self.store.load_bot(bid)
        assert bot is not None
        seats: list[dict[str, Any]] = []
        for gid in await self.store.bot_games(bid):
            record = await self.store.load(gid)
            if record is None:
                await self.store.forget_bot_game(bid, gid)  # the game expired
                continue
            m = self.match_of(record)
            for i, seat in enumerate(record.seats):
                if seat.owner == bid:
                    to_act = m.to_act if record.status == STATUS_ACTIVE else None
                    seats.append(
                        {
                            "game_id": gid,
                            "seat": i,
                            "status": record.status,
                            "version": record.version,
                            "your_turn": to_act == i,
                        }
                    )
        return bid, bot.get("name", ""), seats

    async def _notify_bots(self, record: GameRecord, m: engine.Match) -> None:
        """Tell bot accounts that it is their turn (or that a match of theirs is over)."""
        if record.status == STATUS_ACTIVE and m.to_act is not None:
            owner = record.seats[m.to_act].owner
            if owner:
                notice = {
                    "type": "your_turn",
                    "game_id": record.id,
                    "seat": m.to_act,
                    "version": record.version,
                }
                await self.store.notify_bot(owner, notice)
        elif record.status == STATUS_FINISHED:
            for owner in sorted({s.owner for s in record.seats if s.owner}):
                notice = {
                    "type": "game_over",
                    "game_id": record.id,
                    "winners": m.winners,
                    "version": record.version,
                }
                await self.store.notify_bot(owner, notice)

    async def act(
        self,
        gid: str,
        token: str | None,
        action: dict[str, Any],
        expected_version: int | None = None,
        claimed_seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[ActionResponse, bool]:
        """Apply ``action`` for the caller's seat. Returns the response and whether it is a replay."""
        record = await self.get(gid)
        caller = self.caller(record, token, required=True, claimed_seat=claimed_seat)
        assert caller.seat is not None
        return await self.act_as(
            record, caller.seat, action, expected_version, idempotency_key, credential=caller.token_hash
        )

    async def act_checked(
        self,
        record: GameRecord,
        caller: Caller,
        action: dict[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        fresh: bool = True,
    ) -> tuple[ActionResponse, bool]:
        """``act`` for a caller already resolved against ``record`` (saves reading the game twice)."""
        assert caller.seat is not None
        return await self.act_as(
            record, caller.seat, action, expected_version, idempotency_key, fresh, caller.token_hash
        )

    async def act_as(
        self,
        record: GameRecord,
        seat: int,
        action: dict[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        fresh: bool = True,
        credential: str = "",
        by: str = "",
    ) -> tuple[ActionResponse, bool]:
        """Apply ``action`` for ``seat``. ``fresh=False``: ``record`` may be stale (from the cache);
        every refusal is then decided again on a fresh read. ``credential`` (the seat token's hash,
        or "bot") is checked again in the atomic write."""
        gid = record.id
        fingerprint = (
            hashlib.sha256(
                json.dumps({"action": action, "expected_version": expected_version}, sort_keys=True).encode()
            ).hexdigest()
            if idempotency_key
            else ""
        )
        scope = str(seat)
        if idempotency_key:
            prior = await self.store.idempotent_result(gid, scope, idempotency_key)
            if prior is not None:
                return self._replay(prior, fingerprint), True
        retries = 0
        while True:
            refused = record.status != STATUS_ACTIVE or (
                expected_version is not None and expected_version != record.version
            )
            if refused and not fresh:
                record, fresh = await self.get(gid), True
                continue
            if record.status == STATUS_WAITING:
                raise ProblemError("game_not_started", "The game starts when every seat is taken.")
            if record.status == STATUS_FINISHED:
                raise ProblemError("game_over", "The match is over; see /log for the replay.")
            if expected_version is not None and expected_version != record.version:
                raise self._conflict(record.version)
            m = self.match_of(record)
            try:
                applied = engine.parse(action).to_json()
                nxt = engine.apply(m, seat, action)
            except engine.IllegalAction as error:
                if not fresh:
                    record, fresh = await self.get(gid), True
                    continue
                if self.metrics:
                    self.metrics.actions.labels(record.game, "refused").inc()
                raise engine_problem(error) from None
            version = record.version + 1
            status = STATUS_FINISHED if nxt.over else STATUS_ACTIVE
            events = [*nxt.events, {"type": "turn", "to_act": nxt.to_act, "status": status}]
            if by == "timer":
                events.insert(0, {"type": "turn_timed_out", "seat": seat})
            response = ActionResponse.model_construct(  # built from trusted values: no validation
                game_id=gid,
                version=version,
                seat=seat,
                action=applied,
                events=[e for e in (engine.event_for(ev, seat) for ev in events) if e is not None],
                to_act=nxt.to_act,
                status=status,
                winners=nxt.winners,
            )
            state = engine.to_json(nxt)
            try:
                result = await self.store.commit(
                    gid,
                    record.version,
                    state,
                    status,
                    [json.dumps(e) for e in events],
                    log_entry=json.dumps(
                        {"version": version, "seat": seat, "action": applied, **({"by": by} if by else {})}
                    ),
                    idempotency=(scope, idempotency_key) if idempotency_key else None,
                    idempotent_result=json.dumps(
                        {"fingerprint": fingerprint, "response": response.model_dump(mode="json")}
                    )
                    if idempotency_key
                    else "",
                    seat=seat if credential or by else None,
                    credential=credential or by,
                )
            except SeatLost:
                raise ProblemError(
                    "invalid_token", f"This token no longer holds seat {seat}: the seat was given up."
                ) from None
            except VersionConflict as conflict:
                if not fresh:
                    record, fresh = await self.get(gid), True
                    continue
                if self.metrics:
                    self.metrics.conflicts.inc()
                if expected_version is not None or retries >= self.settings.cas_retries:
                    raise self._conflict(conflict.current) from None
                retries += 1
                record = await self.get(gid)
                continue
            except GameMissing:
                raise ProblemError(
                    "game_not_found", f"There is no game {gid!r} (it may have expired)."
                ) from None
            if result.replayed is not None:
                return self._replay(result.replayed, fingerprint), True
            if self.metrics:
                self.metrics.actions.labels(record.game, "applied").inc()
            record = dataclasses.replace(record, version=version, state=state, status=status)
            limit = record.extra.get("timeouts_to_bot")
            if by == "timer" and limit and result.timeouts >= int(limit) and status == STATUS_ACTIVE:
                await self.store.replace_seat(
                    gid, seat, "bot:heuristic", f"{result.timeouts} turns timed out"
                )
                record = await self.get(gid)
            self._keep(record)
            self._remember((gid, version), nxt)
            await self._maybe_enqueue_bot(record, nxt)
            if any(s.owner for s in record.seats):
                await self._notify_bots(record, nxt)
            return response, False

    async def leave(self, gid: str, token: str | None) -> tuple[int, str]:
        """Give up the caller's seat. Before the start the seat opens again; during the match a
        random bot plays it out so the others can finish (the token stops working either way)."""
        record = await self.get(gid)
        caller = self.caller(record, token, required=True)
        assert caller.seat is not None
        if record.status == STATUS_FINISHED:
            raise ProblemError("game_over", "The match is over; there is no seat to give up.")
        try:
            outcome = await self.store.leave(gid, caller.seat, caller.token_hash, "bot:random")
        except GameMissing:
            raise ProblemError("game_not_found", f"There is no game {gid!r} (it may have expired).") from None
        except SeatLost:
            raise ProblemError("invalid_token", "This token no longer holds a seat in this game.") from None
        except GameOver:
            raise ProblemError("game_over", "The match is over; there is no seat to give up.") from None
        self._records.pop(gid, None)
        if outcome == "replaced":
            await self._maybe_enqueue_bot(await self.get(gid), self.match_of(record))
        return caller.seat, outcome

    async def rematch(self, gid: str, token: str | None) -> tuple[GameRecord, int, str, bool]:
        """Offer (or take up) the rematch of a finished game: the same game, options and seats, a new
        seed. Each player claims the same seat with the token of the old game; bots stay bots.
        Returns the rematch, the caller's seat, its new token and whether the rematch started."""
        record = await self.get(gid)
        caller = self.caller(record, token, required=True)
        assert caller.seat is not None
        if record.status != STATUS_FINISHED:
            raise ProblemError("game_not_over", "A rematch is offered once the match is over.")
        digest = hashlib.sha256(f"{gid}:{record.seed}:rematch".encode()).digest()
        rid = base64.b32encode(digest[:10]).decode().lower()
        seed = int.from_bytes(digest[10:17], "big")
        if not record.rematch:
            m = engine.new_match(record.game, seed=seed, options=record.options)
            now = time.time()
            seats = [
                Seat(kind=s.kind, name=s.name)
                if s.is_bot
                else Seat(kind="reserved", name=s.name, reserved_for=s.token_hash)
                for s in record.seats
            ]
            rematch = GameRecord(
                id=rid,
                game=record.game,
                players=record.players,
                options=record.options,
                seed=seed,
                version=0,
                state=engine.to_json(m),
                status=STATUS_WAITING,
                seats=seats,
                listed=False,
                created_at=now,
                updated_at=now,
                extra={
                    "rematch_of": gid,
                    **{k: v for k, v in record.extra.items() if k in {"turn_seconds", "timeouts_to_bot"}},
                },
            )
            created = {"type": "game_created", "game": record.game, "seats": [s.kind for s in seats]}
            await self.store.create(rematch, [json.dumps(e) for e in (created, *m.events)])
            await self.store.set_field(gid, "rematch", rid)
        token_new = secrets.token_urlsafe(32)
        try:
            old_seat = record.seats[caller.seat]
            seat, started = await self.store.join(
                rid,
                caller.seat,
                hash_token(token_new),
                old_seat.name,
                caller.token_hash,
                owner=old_seat.owner,
            )
            if old_seat.owner:
                await self.store.add_bot_game(old_seat.owner, rid)
        except SeatTaken:
            raise ProblemError("seat_taken", f"Seat {caller.seat} of the rematch is already taken.") from None
        except GameMissing:
            raise ProblemError("game_not_found", "The rematch has expired.") from None
        fresh = await self.get(rid)
        if started:
            await self._maybe_enqueue_bot(fresh, self.match_of(fresh))
        return fresh, seat, token_new, started

    @staticmethod
    def _conflict(current: int) -> ProblemError:
        return ProblemError(
            "version_conflict",
            f"The game is at version {current}: reload the view and decide again.",
            current_version=current,
        )

    @staticmethod
    def _replay(stored: str, fingerprint: str) -> ActionResponse:
        data = json.loads(stored)
        if data["fingerprint"] != fingerprint:
            raise ProblemError(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with another action; use a fresh key per action.",
            )
        return ActionResponse.model_validate(data["response"])

    async def _maybe_enqueue_bot(self, record: GameRecord, m: engine.Match) -> None:
        """A bot seat to act gets a job now; a human seat of a timed game gets a turn timer."""
        if record.status != STATUS_ACTIVE or m.to_act is None:
            return
        if record.seats[m.to_act].is_bot:
            if self.enqueue_bot is not None:
                level = record.seats[m.to_act].kind.partition(":")[2]
                await self.enqueue_bot(record.id, record.version, level)
        elif self.schedule_timer is not None and record.extra.get("turn_seconds"):
            await self.schedule_timer(record.id, record.version, int(record.extra["turn_seconds"]))
