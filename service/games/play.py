"""Play: the seat's view, its legal actions, and the move itself (the server loop): ``games.play``.

A move has one entry, :meth:`Play.submit`, which REST and GraphQL both call: it holds the one
ordered list of checks (boardgame.io's master: credential, game, seat, the request's shape, the
version, legality), the transports only parsing the request and encoding the answer. The move is
applied by the engine, then committed with the store's compare-and-set together with its events
(:meth:`Play.act_as`, where a bot's job and a turn timer come in, through the
:class:`service.games.core.GameCore` it holds, and a finished rated match is rated, by the
:class:`service.games.ratings.Ratings` it holds). Every refusal is a :class:`ProblemError`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

import engine
from schema.games import (
    ActionRequest,
    ActionResponse,
    HandRecord,
    LegalActionsResponse,
    LogEntry,
    LogResponse,
    NextTurn,
    ViewResponse,
    game_options,
)
from schema.views import public_event
from service.base.counters import Metrics
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import (
    Caller,
    Credentials,
    GameCore,
    engine_problem,
    missing_token,
    your_turn,
)
from service.games.ratings import Ratings
from service.store import Store, retention
from service.store.keys import STATUS_ACTIVE, STATUS_FINISHED, STATUS_WAITING
from service.store.records import CommitResult, GameMissing, GameRecord, SeatLost, VersionConflict


def key_fits(key: str | None) -> bool:
    """An Idempotency-Key, when one is sent, is 1 to 200 characters (checked by each transport's
    parse, which names the key as its caller sent it)."""
    return key is None or 1 <= len(key) <= 200


Count = Callable[[str | None], Awaitable[None]]
"""A transport's rate limit of a move: awaited with the credential once it proved to hold a seat,
with None when it did not (the request then counts for its address alone)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """A move to apply: who plays what, on which version, under which Idempotency-Key (and the
    fingerprint its stored answer is kept with), with which credential (a seat token's hash, "bot")
    or by whom (``by``: "timer")."""

    seat: int
    action: dict[str, Any]
    expected_version: int | None
    key: str | None
    credential: str
    by: str
    fingerprint: str = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        fingerprint = ""
        if self.key:
            body = {"action": self.action, "expected_version": self.expected_version}
            fingerprint = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        object.__setattr__(self, "fingerprint", fingerprint)


@dataclasses.dataclass(frozen=True, slots=True)
class Planned:
    """A move the engine applied, ready to commit: the next match, its version, status and state,
    the action as applied, the stream's events and the caller's answer."""

    nxt: engine.Match
    version: int
    status: str
    state: str
    applied: dict[str, Any]
    events: list[dict[str, Any]]
    response: ActionResponse

    @property
    def running(self) -> bool:
        return self.status == STATUS_ACTIVE


class Play:
    """The seat's view, its legal actions and the move itself."""

    def __init__(
        self,
        core: GameCore,
        store: Store,
        settings: Settings,
        credentials: Credentials,
        ratings: Ratings,
        metrics: Metrics | None = None,
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.ratings = ratings
        self.metrics = metrics

    async def view(self, gid: str, token: str | None, claimed_seat: int | None = None) -> ViewResponse:
        record, caller = await self.viewer(gid, token, claimed_seat)
        return self.view_of(record, caller)

    async def viewer(
        self, gid: str, token: str | None, claimed_seat: int | None = None
    ) -> tuple[GameRecord, Caller]:
        """The game and whose view of it ``token`` asks for (every refusal decided): the first half of
        :meth:`view`, so that REST can answer 304 to a copy still current without building the view."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=False, claimed_seat=claimed_seat)
        if claimed_seat is not None and caller.seat is None:
            raise ProblemError(
                "missing_token", Text("Seat {seat}'s view needs that seat's token.", seat=claimed_seat)
            )
        return record, caller

    def view_of(self, record: GameRecord, caller: Caller) -> ViewResponse:
        m = self.core.match_of(record)
        turn = caller.seat is not None and record.status == STATUS_ACTIVE and m.to_act == caller.seat
        return ViewResponse.model_construct(  # built from trusted values: no validation
            game_id=record.id,
            version=record.version,
            seat=caller.seat,
            status=record.status,
            view=engine.view(m, caller.seat),
            legal_actions=engine.legal_actions(m, m.to_act) if turn and m.to_act is not None else None,
        )

    async def legal_actions(self, gid: str, token: str | None) -> LegalActionsResponse:
        record, caller = await self.seated(gid, token)
        return self.legal_actions_of(record, caller)

    async def seated(self, gid: str, token: str | None) -> tuple[GameRecord, Caller]:
        """The game and the seat ``token`` holds in it (401 otherwise)."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=True)
        assert caller.seat is not None
        return record, caller

    def legal_actions_of(self, record: GameRecord, caller: Caller) -> LegalActionsResponse:
        assert caller.seat is not None
        m = self.core.match_of(record)
        running = record.status == STATUS_ACTIVE
        return LegalActionsResponse.model_construct(  # built from trusted values: no validation
            game_id=record.id,
            version=record.version,
            seat=caller.seat,
            to_act=m.to_act if running else None,
            legal_actions=engine.legal_actions(m, caller.seat) if running else [],
        )

    async def replay_log(self, gid: str, token: str | None) -> LogResponse:
        """The replay log and, per hand, the material to verify its deal (docs/fairness.md): the
        commitments the event stream published, the revealed seeds, the cards dealt, and the match
        key K, which tells every hand and so is shown only once the match is over (or to the
        administrator). The hand records come from replaying the log (:meth:`_replayed_events`), not
        from the stream, which expires soon after the match (service/store/retention.py)."""
        record, _caller = await self.log_reader(gid, token)
        return await self.replay_log_of(record)

    async def log_reader(self, gid: str, token: str | None) -> tuple[GameRecord, Caller]:
        """The game whose log ``token`` may read (409 ``game_not_finished`` before its end, but for the
        administrator), and who reads it."""
        record = await self.core.get(gid)
        caller = await self.core.caller_of(record, token, required=False)
        if record.status != STATUS_FINISHED and not caller.admin:
            raise ProblemError(
                "game_not_finished", "The replay log (with the seed) is published when the match is over."
            )
        return record, caller

    async def replay_log_of(self, record: GameRecord) -> LogResponse:
        gid = record.id
        m = self.core.match_of(record)
        actions = await retention.read_log(self.store.games, gid)
        published = self._replayed_events(record, m, actions)
        return LogResponse.model_validate(
            {
                "game_id": gid,
                "kind": record.game,
                "options": game_options(record.game, record.options),
                "seed": str(record.seed),  # the key's hex, or the administrator's number as its digits
                "deal": record.extra.get("deal"),
                "actions": [LogEntry.model_construct(**e) for e in actions],  # as the engine wrote them
                "version": record.version,
                "winners": m.winners,
                "key": m.key.hex(),
                "commitment": engine.match_commitment(m),
                "client_seeds": list(m.client_seeds),
                "hands": [HandRecord.model_validate(h) for h in engine.hand_records(published)],
            }
        )

    @staticmethod
    def _replayed_events(
        record: GameRecord, m: engine.Match, actions: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The public events of the match so far, as its stream published them: the engine replays
        the log from the match key and client seeds of ``m`` (its current state), which deals and
        plays every hand again exactly (docs/fairness.md); the start and each move give the same
        events as when they were played."""
        if record.status == STATUS_WAITING:
            return []
        replay = engine.new_match(record.game, seed=m.key, options=record.options, wait=True)
        replay = engine.start(replay, m.client_seeds, deal=record.extra.get("deal"))
        events = list(replay.events)
        for entry in actions:
            replay = engine.apply(replay, entry["seat"], entry["action"])
            events += replay.events
        return [e for e in events if engine.event_for(e, None) is not None]

    async def submit(
        self,
        gid: str,
        credential: str | None,
        parse: Callable[[], Awaitable[ActionRequest]],
        idempotency_key: str | None = None,
        count: Count | None = None,
    ) -> ActionResponse:
        """A seat's move, as REST and GraphQL submit it: every check in one order, the first refusal
        told (``response.replayed`` says whether the answer is a stored one). The transport parses
        and encodes only: ``parse`` (its Idempotency-Key's and body's reading, with the names it
        gives them) runs at step 4, and ``count`` (its rate limit) at step 3.

        1. a credential is sent — 401 ``missing_token``: nothing is read, so a request without
           one learns nothing, not even whether the game exists;
        2. the game exists — 404 ``game_not_found``;
        3. the credential holds a seat of it — 401 ``invalid_token`` (forged, another game's, a
           bot's key revoked), 403 ``seat_not_held`` (a player or bot account not seated here), 403
           ``credential_not_accepted`` (the administrator's: it acts in no seat). Then the request
           is counted (``count``, the transport's rate limit): by its address whatever steps 1-3
           said, and by its token once proven (a made-up token makes no counter of its own); over a
           limit, 429 ``rate_limited`` is the answer;
        4. the request's shape, its Idempotency-Key (1 to 200 characters) then its body — 422
           ``invalid_request``: only a seat learns what its request lacks;
        5. the seat the body claims, if any, is the credential's (or its account's: a bot holding
           both seats of a team names the one it moves) — 403 ``wrong_seat``;
        6. the key seen before for this seat: its stored answer, or 422 ``idempotency_key_reused``
           for another body — before the game's state, so a retried move gets its first answer
           however the game went on;
        7. the game runs — 409 ``game_not_started``, ``game_finished``;
        8. the expected version is the game's — 409 ``version_conflict``;
        9. the action is legal — the engine's order: 409 ``not_your_turn``, 422 ``illegal_action``
           (or its named reason);
        10. the commit (compare-and-set with the seat's credential) — 409 ``version_conflict``, 401
            ``invalid_token`` for a seat given up meanwhile, 404 for a game expired meanwhile.

        The transports refuse a malformed ``Authorization`` header (401) and REST a malformed path
        id (404), then a credential of a kind the operation does not take (the administrator's: 403
        ``credential_not_accepted``, as step 3 says it) before this, from the request alone.
        Steps 2-3 start from this process's last copy of the game (the hot path): steps 7-9 on that
        copy are decided again on a fresh read before any refusal, and the commit checks the version
        and the seat's credential again.
        """
        record, caller, fresh = await self._counted(self._mover(gid, credential), credential, count)
        request = await parse()
        if request.seat is not None:  # the credential's seat, or another seat of its account
            caller = self.core.claim(record, caller, request.seat)
        assert caller.seat is not None
        response, _ = await self.act_as(
            record,
            caller.seat,
            request.action.model_dump(exclude_none=True),
            request.expected_version,
            idempotency_key,
            fresh,
            caller.token_hash,
        )
        return response

    @staticmethod
    async def _counted(
        mover: Awaitable[tuple[GameRecord, Caller, bool]], credential: str | None, count: Count | None
    ) -> tuple[GameRecord, Caller, bool]:
        """``mover`` (steps 1-3 of :meth:`submit`), then its rate limit: the request counts by address
        whatever it says, and by ``credential`` once proven."""
        if count is None:
            return await mover
        try:
            found = await mover
        except ProblemError:
            await count(None)
            raise
        await count(credential)
        return found

    async def _mover(self, gid: str, credential: str | None) -> tuple[GameRecord, Caller, bool]:
        """Steps 1-3 of :meth:`submit`: the game, the seat ``credential`` holds in it, and whether
        the record is a fresh read (a seat token holding a seat of the cached copy is not re-read: a
        token's seat never changes, and the commit checks that the token still holds it)."""
        if not credential:
            raise missing_token()
        owner = await self.credentials.owner_of(credential)  # an account's credential: its own seats
        if owner is None and (cached := self.core.cached(gid)) is not None:
            holder = self.core.seat_holder(cached, credential)
            if holder is not None:
                return cached, holder, False
        record = await self.core.get(gid)
        return record, self.core.caller(record, credential, True, None, owner), True

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
        """Apply ``action`` for ``seat`` (steps 6-10 of :meth:`submit`; a bot's job and a turn timer
        start here). Returns the response and whether it is a replay. ``fresh=False``: ``record`` may
        be stale (from the cache); every refusal is then decided again on a fresh read.
        ``credential`` (the seat token's hash, or "bot") is checked again in the atomic write."""
        move = Move(seat, action, expected_version, idempotency_key or None, credential, by)
        try:
            record, planned, result = await self._write(record, move, fresh)
        except ProblemError:
            prior = await self._prior(record, move)
            if prior is None:
                raise
            return await self._replayed(record, prior, move.fingerprint), True
        if result.replayed is not None:
            return await self._replayed(record, result.replayed, move.fingerprint), True
        await self._after_move(record, move, planned, result)
        return planned.response, False

    async def _prior(self, record: GameRecord, move: Move) -> str | None:
        """The answer stored for the move's key, if an earlier request with it was applied.

        Looked up only once the move is refused: a retry of an applied move always is (the game has
        moved on: the version, the turn or the cards are no longer those it was made on), or else
        the commit's script finds the key itself and answers the stored result, atomically. So a
        first request, the common case, costs no extra round trip, and no move is applied twice."""
        if not move.key:
            return None
        return await self.store.games.idempotent_result(record.id, str(move.seat), move.key)

    async def _write(
        self, record: GameRecord, move: Move, fresh: bool
    ) -> tuple[GameRecord, Planned, CommitResult]:
        """Steps 7-10 of :meth:`submit`: the move checked, planned and committed, on a fresh read
        whenever a stale copy refuses it or the compare-and-set finds the game moved on."""
        retries = 0
        while True:
            if not fresh and not self._runs_at(record, move.expected_version):
                record, fresh = await self.core.get(record.id), True
            self._check_runs_at(record, move.expected_version)
            planned = self._plan(record, move, fresh)
            if planned is None:  # refused on a copy that may be stale: decided on a fresh read
                record, fresh = await self.core.get(record.id), True
                continue
            try:
                return record, planned, await self._commit(record, move, planned)
            except VersionConflict as conflict:
                if fresh:
                    self._conflicted(conflict, move.expected_version, retries)
                    retries += 1
                record, fresh = await self.core.get(record.id), True

    @staticmethod
    def _runs_at(record: GameRecord, expected_version: int | None) -> bool:
        """Whether ``record`` is running, at ``expected_version`` if one is given (steps 7-8)."""
        return record.status == STATUS_ACTIVE and (
            expected_version is None or expected_version == record.version
        )

    def _check_runs_at(self, record: GameRecord, expected_version: int | None) -> None:
        """Steps 7-8 of :meth:`submit`: 409 unless the game runs at the expected version."""
        if record.status == STATUS_WAITING:
            raise ProblemError("game_not_started", "The game starts when every seat is taken.")
        if record.status == STATUS_FINISHED:
            raise ProblemError("game_finished", "The match is over; see /log for the replay.")
        if expected_version is not None and expected_version != record.version:
            raise self._conflict(record.version)

    def _conflicted(self, conflict: VersionConflict, expected_version: int | None, retries: int) -> None:
        """A fresh record's commit met another write: 409 when the caller named its version or the
        retries are spent; otherwise the move is tried again on the new version."""
        if self.metrics:
            self.metrics.conflicts.inc()
        if expected_version is not None or retries >= self.settings.cas_retries:
            raise self._conflict(conflict.current) from None

    def _plan(self, record: GameRecord, move: Move, fresh: bool) -> Planned | None:
        """Step 9 of :meth:`submit`, and what the commit writes: the engine applies the move to
        ``record``; None when it refuses on a copy that may be stale (``fresh`` false)."""
        seat = move.seat
        try:
            applied = engine.parse(move.action).to_json()
            nxt = engine.apply(self.core.match_of(record), seat, move.action)
        except engine.IllegalAction as error:
            if not fresh:
                return None
            if self.metrics:
                self.metrics.actions.labels(record.game, "refused").inc()
            raise engine_problem(error) from None
        version = record.version + 1
        status = STATUS_FINISHED if nxt.over else STATUS_ACTIVE
        timed_out = [{"type": "turn_timed_out", "seat": seat}] if move.by == "timer" else []
        of_move = [*timed_out, *nxt.events, {"type": "turn", "to_act": nxt.to_act, "status": status}]
        turn = your_turn(nxt, version, record)  # the stream's; the answer says it as next_turn
        response = ActionResponse.model_construct(  # built from trusted values: no validation
            game_id=record.id,
            version=version,
            seat=seat,
            action=applied,
            events=[public_event(e, record.game) for ev in of_move if (e := engine.event_for(ev, seat))],
            to_act=nxt.to_act,
            status=status,
            winners=nxt.winners,
            next_turn=self._next_turn(record, seat, nxt, turn) if move.credential and not move.by else None,
            replayed=False,
        )
        state = orjson.dumps(engine.to_dict(nxt)).decode()  # engine.to_json's text, faster
        return Planned(nxt, version, status, state, applied, [*of_move, *turn], response)

    async def _commit(self, record: GameRecord, move: Move, planned: Planned) -> CommitResult:
        """Step 10 of :meth:`submit`: the compare-and-set of the move with its events, log entry,
        stored answer (with a key) and turn notice. A :class:`VersionConflict` goes to the caller."""
        notice = self.core.account_turn(record, planned.nxt, planned.version) if planned.running else None
        stored = ""  # the answer a retry with the same key gets
        if move.key:  # the answer serialized once (REST sends the same text), in the record json.loads reads
            answer = planned.response.json_text()
            stored = f'{{"fingerprint": {json.dumps(move.fingerprint)}, "response": {answer}}}'
        try:
            return await self.store.games.commit(
                record.id,
                record.version,
                planned.state,
                planned.status,
                [orjson.dumps(e).decode() for e in planned.events],
                log_entry=retention.log_entry(planned.version, move.seat, planned.applied, move.by),
                idempotency=(str(move.seat), move.key) if move.key else None,
                idempotent_result=stored,
                seat=move.seat if move.credential or move.by else None,
                credential=move.credential or move.by,
                notice=None if notice is None else (notice[0], json.dumps(notice[1])),
                to_act=planned.nxt.to_act,
            )
        except SeatLost:
            raise ProblemError(
                "invalid_token",
                Text("This token no longer holds seat {seat}: the seat was given up.", seat=move.seat),
            ) from None
        except GameMissing:
            raise ProblemError(
                "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=record.id)
            ) from None

    async def _after_move(
        self, record: GameRecord, move: Move, planned: Planned, result: CommitResult
    ) -> None:
        """What a written move sets going: the next turn (a bot's job, a timer), the stream's
        retention, the rating of a finished rated match, the seated accounts' notices."""
        gid, nxt, status = record.id, planned.nxt, planned.status
        if self.metrics:
            self.metrics.actions.labels(record.game, "applied").inc()
        record = dataclasses.replace(record, version=planned.version, state=planned.state, status=status)
        limit = record.extra.get("timeouts_to_bot")
        if move.by == "timer" and limit and result.timeouts >= int(limit) and planned.running:
            await self.store.games.replace_seat(
                gid, move.seat, "bot:heuristic", f"{result.timeouts} turns timed out"
            )
            record = await self.core.get(gid)
        self.core.keep(record)
        self.core.remember((gid, planned.version), nxt)
        # The next turn is enqueued before anything else can fail: the move is written, and a
        # request failing after it (its client then replays it) must not leave the game
        # without its turn (seen in the reshard drill: a fold refused mid-migration).
        await self.core.maybe_enqueue_bot(record, nxt)
        finished = status == STATUS_FINISHED
        await retention.after_move(
            self.store.games,
            gid,
            planned.version,
            finished,
            self.settings.stream_window,
            self.settings.finished_stream_ttl,
        )
        if finished and record.extra.get("rated"):
            await self.ratings.rate_match(gid, nxt)  # every finish passes here: a person, a bot, a timer
        if any(s.owner for s in record.seats):
            await self.core.notify_accounts(record, nxt, told=result.notified)

    async def _replayed(self, record: GameRecord, stored: str, fingerprint: str) -> ActionResponse:
        """The stored answer of a key seen before (step 6), once the bot turn the game is at is
        enqueued again (see :meth:`GameCore.resume_bot_turn`)."""
        replayed = self._replay(stored, fingerprint, record.game)
        await self.core.resume_bot_turn(record.id)
        return replayed

    @staticmethod
    def _next_turn(
        record: GameRecord, seat: int, nxt: engine.Match, turn: list[dict[str, Any]]
    ) -> NextTurn | None:
        """The caller's next turn when the caller holds the seat to act: ``seat`` again, or a seat
        of the same bot account (whose key could read that seat's view anyway). Never another
        player's: their legal actions tell their cards (ALL-7)."""
        if not turn:
            return None
        notice = turn[0]
        nxt_seat: int = notice["seat"]
        owner = record.seats[seat].owner
        if nxt_seat != seat and not (owner and record.seats[nxt_seat].owner == owner):
            return None
        return NextTurn.model_construct(
            seat=nxt_seat,
            version=notice["version"],
            view=engine.view(nxt, nxt_seat),
            legal_actions=notice["actions"],
        )

    @staticmethod
    def _conflict(current: int) -> ProblemError:
        return ProblemError(
            "version_conflict",
            Text("The game is at version {current}: reload the view and decide again.", current=current),
            current_version=current,
        )

    @staticmethod
    def _replay(stored: str, fingerprint: str, kind: str) -> ActionResponse:
        data = json.loads(stored)
        if data["fingerprint"] != fingerprint:
            raise ProblemError(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with another action; use a fresh key per action.",
            )
        # the answer we stored (trusted), as a replay, in v1's words if stored before the upgrade
        return ActionResponse.model_construct(
            **{**stored_answer_in_v1(data["response"], kind), "replayed": True}
        )


def stored_answer_in_v1(answer: dict[str, Any], kind: str) -> dict[str, Any]:
    """A move's answer stored for its Idempotency-Key (a day) in v1's words: one stored by the
    pre-v1 release, retried across the upgrade, named its events, a view's kind and a discard's
    cards otherwise (CHANGELOG v1.0.0). One written by v1 comes back the same."""
    events = [public_event(event, kind) for event in answer.get("events", [])]
    turn = answer.get("next_turn")
    if turn:
        view = turn["view"]
        turn = {
            **turn,
            "view": {("kind" if name == "game" else name): value for name, value in view.items()},
            "legal_actions": [
                {("choices" if name == "from" else name): value for name, value in action.items()}
                for action in turn["legal_actions"]
            ],
        }
    return {**answer, "events": events, "next_turn": turn}
