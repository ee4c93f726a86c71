"""Play: the seat's view, its legal actions, and the move itself (the server loop).

A move is checked in boardgame.io's order (credentials, game exists and is running, the state
version matches, it is this seat's turn), applied by the engine, then committed with the
store's compare-and-set together with its events. Every refusal is a :class:`ProblemError`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import orjson

import engine
from schema.bodies import (
    ActionResponse,
    HandRecord,
    LegalActionsResponse,
    LogEntry,
    LogResponse,
    NextTurn,
    ViewResponse,
)
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.core import (
    Caller,
    GameCore,
    engine_problem,
    your_turn,
)
from service.store import retention
from service.store.keys import STATUS_ACTIVE, STATUS_FINISHED, STATUS_WAITING
from service.store.records import GameMissing, GameRecord, SeatLost, VersionConflict


class Play(GameCore):
    """The seat's view, its legal actions and the move itself."""

    async def view(self, gid: str, token: str | None, claimed_seat: int | None = None) -> ViewResponse:
        record, caller = await self.viewer(gid, token, claimed_seat)
        return self.view_of(record, caller)

    async def viewer(
        self, gid: str, token: str | None, claimed_seat: int | None = None
    ) -> tuple[GameRecord, Caller]:
        """The game and whose view of it ``token`` asks for (every refusal decided): the first half of
        :meth:`view`, so that REST can answer 304 to a copy still current without building the view."""
        record = await self.get(gid)
        caller = await self.caller_of(record, token, required=False, claimed_seat=claimed_seat)
        if claimed_seat is not None and caller.seat is None:
            raise ProblemError(
                "missing_token", Text("Seat {seat}'s view needs that seat's token.", seat=claimed_seat)
            )
        return record, caller

    def view_of(self, record: GameRecord, caller: Caller) -> ViewResponse:
        m = self.match_of(record)
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
        record = await self.get(gid)
        caller = await self.caller_of(record, token, required=True)
        assert caller.seat is not None
        return record, caller

    def legal_actions_of(self, record: GameRecord, caller: Caller) -> LegalActionsResponse:
        assert caller.seat is not None
        m = self.match_of(record)
        running = record.status == STATUS_ACTIVE
        return LegalActionsResponse.model_construct(  # built from trusted values: no validation
            game_id=record.id,
            version=record.version,
            seat=caller.seat,
            to_act=m.to_act if running else None,
            actions=engine.legal_actions(m, caller.seat) if running else [],
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
        """The game whose log ``token`` may read (409 ``game_not_over`` before its end, but for the
        administrator), and who reads it."""
        record = await self.get(gid)
        caller = await self.caller_of(record, token, required=False)
        if record.status != STATUS_FINISHED and not caller.admin:
            raise ProblemError(
                "game_not_over", "The replay log (with the seed) is published when the match is over."
            )
        return record, caller

    async def replay_log_of(self, record: GameRecord) -> LogResponse:
        gid = record.id
        m = self.match_of(record)
        actions = await retention.read_log(self.store, gid)
        published = self._replayed_events(record, m, actions)
        return LogResponse(
            game_id=gid,
            game=record.game,
            options=record.options,
            seed=record.seed,
            deal=record.extra.get("deal"),
            actions=[LogEntry.model_construct(**e) for e in actions],  # as the engine wrote them
            version=record.version,
            winners=m.winners,
            key=m.key.hex(),
            commitment=engine.match_commitment(m),
            client_seeds=list(m.client_seeds),
            hands=[HandRecord.model_validate(h) for h in engine.hand_records(published)],
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
        caller = await self.caller_of(record, token, required=True, claimed_seat=claimed_seat)
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
                replayed = self._replay(prior, fingerprint)
                await self.resume_bot_turn(gid)
                return replayed, True
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
            timed_out = [{"type": "turn_timed_out", "seat": seat}] if by == "timer" else []
            of_move = [*timed_out, *nxt.events, {"type": "turn", "to_act": nxt.to_act, "status": status}]
            turn = your_turn(nxt, version, record)  # the stream's; the answer says it as next_turn
            events = [*of_move, *turn]
            response = ActionResponse.model_construct(  # built from trusted values: no validation
                game_id=gid,
                version=version,
                seat=seat,
                action=applied,
                events=[e for e in (engine.event_for(ev, seat) for ev in of_move) if e is not None],
                to_act=nxt.to_act,
                status=status,
                winners=nxt.winners,
                next_turn=self._next_turn(record, seat, nxt, turn) if credential and not by else None,
            )
            state = orjson.dumps(engine.to_dict(nxt)).decode()  # engine.to_json's text, faster
            turn_notice = self.account_turn(record, nxt, version) if status == STATUS_ACTIVE else None
            try:
                result = await self.store.commit(
                    gid,
                    record.version,
                    state,
                    status,
                    [orjson.dumps(e).decode() for e in events],
                    log_entry=retention.log_entry(version, seat, applied, by),
                    idempotency=(scope, idempotency_key) if idempotency_key else None,
                    idempotent_result=json.dumps(
                        {
                            "fingerprint": fingerprint,
                            "response": response.model_dump(mode="json", warnings=False),
                        }
                    )
                    if idempotency_key
                    else "",
                    seat=seat if credential or by else None,
                    credential=credential or by,
                    notice=None if turn_notice is None else (turn_notice[0], json.dumps(turn_notice[1])),
                    to_act=nxt.to_act,
                )
            except SeatLost:
                raise ProblemError(
                    "invalid_token",
                    Text("This token no longer holds seat {seat}: the seat was given up.", seat=seat),
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
                    "game_not_found", Text("There is no game {gid!r} (it may have expired).", gid=gid)
                ) from None
            if result.replayed is not None:
                replayed = self._replay(result.replayed, fingerprint)
                await self.resume_bot_turn(gid)
                return replayed, True
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
            # The next turn is enqueued before anything else can fail: the move is written, and a
            # request failing after it (its client then replays it) must not leave the game
            # without its turn (seen in the reshard drill: a fold refused mid-migration).
            await self._maybe_enqueue_bot(record, nxt)
            await retention.after_move(
                self.store,
                gid,
                version,
                status == STATUS_FINISHED,
                self.settings.stream_window,
                self.settings.finished_stream_ttl,
            )
            if status == STATUS_FINISHED and record.extra.get("rated"):
                await self.rate_match(gid, nxt)  # every finish passes here: a person's, a bot's, a timer's
            if any(s.owner for s in record.seats):
                await self._notify_accounts(record, nxt, told=result.notified)
            return response, False

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
    def _replay(stored: str, fingerprint: str) -> ActionResponse:
        data = json.loads(stored)
        if data["fingerprint"] != fingerprint:
            raise ProblemError(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with another action; use a fresh key per action.",
            )
        # the answer we stored (trusted), as a replay
        return ActionResponse.model_construct(**{**data["response"], "replayed": True})
