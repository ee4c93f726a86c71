"""The runner's loop: follow a bot account's stream and play every game it is seated in, several at
once.

**Tasks.** One asyncio task follows ``GET /v1/bots/me/stream`` and hands each notice to its game:
one task a game (:class:`GameDriver`), which plays that game's turns in order, so that the games go
on side by side; ``concurrency`` bounds the decisions in flight (a semaphore), and Play now
(:mod:`atout.runner.seek`) keeps that many games going. Each seat of each game has its engine
(:mod:`atout.runner.engines`: the Python class's instance, or the program's process), told the
game's start, each hand's end and the game's end as the bot protocol says
(``workers.arena.protocol``).

**A move** is the bot's answer, sent with the bot's API key (which acts in every seat its bot holds,
joined, matched or given by a tournament: the runner keeps no seat token, docs/credentials.md), the
``seat``, ``expected_version`` and an ``Idempotency-Key`` fixed by the game, seat and version (a
retry after a broken connection, even from a restarted runner, is never played twice: the service
answers it ``replayed``). A ``game_finished`` ends the game's engines (their ``game_end``).

**A failing bot** (it raised, crashed, timed out, answered garbage, or a move the rules refuse) is
logged loudly, a ``bot_failed`` line at level error with the game, seat, version, the reason, the
exception (its traceback) or the refused action, then handled as ``on_failure`` says: ``fallback``
plays a legal move (``fallback_action``) and goes on; ``leave`` gives the seat up (``POST …/leave``:
a random bot of the service plays it out).

On connecting the first time, the runner plays the seats its account says are to act
(``GET /v1/bots/me``): a runner restarted without any state file finishes its games with its key
alone. A drop of the connection, a restart of the service: the stream resumes after its last
notice (no gap, no duplicate), a move whose answer was lost is sent again with its key until
answered; when the service stays away the runner tries again with a doubling wait, up to
``max_backoff`` seconds, for ``max_outage`` seconds, then gives up (:class:`ServiceGone`).
``stop()`` (the command calls it on SIGTERM) lets the moves in flight finish and ends the runner;
a second ``stop()`` does not wait for them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from typing import Any

from atout.client import NO_RETRY, ApiError, AsyncClient, ConnectionLost, StreamResync
from atout.runner.config import RunnerConfig
from atout.runner.engines import Crash, Engines, SeatEngine, Turn
from atout.runner.journal import Journal
from atout.runner.seek import Seeker
from atout.runner.state import RunnerState
from schema.games import ActionResponse, BotNotice, BotStatus, GameFinishedNotice
from workers.arena import BotFailure
from workers.arena.protocol import action_json, fallback_action

REFUSED_MOVES = {"version_conflict", "not_your_turn", "game_finished", "game_not_started"}
"""Refusals that say the turn is gone (a turn clock played it, the match ended): nothing to do."""
ILLEGAL = {"illegal_action", "invalid_request"}
"""Refusals of the move itself: the bot's failure."""
REMEMBERED_ENDS = 1000
"""Finished games remembered, so that a notice of one seen late is dropped."""


class Stopped(BaseException):
    """Kept for programs that caught it: the runner's loop no longer raises it (``stop()`` ends it)."""


class ServiceGone(Exception):
    """The service stayed unreachable longer than the runner's ``max_outage``."""


class Outage:
    """How long the runner has waited for the service, and the next wait: doubling from half a
    second up to ``max_backoff`` (or the service's Retry-After); :class:`ServiceGone` past
    ``max_outage`` seconds. An answer that is not 429 or 503 is no outage: re-raised."""

    def __init__(self, max_outage: float, max_backoff: float) -> None:
        self.max_outage, self.max_backoff = max_outage, max_backoff
        self.started: float | None = None
        self.backoff = 0.5

    def wait(self, error: ConnectionLost | ApiError) -> float:
        if isinstance(error, ApiError) and error.status not in (429, 503):
            raise error
        now = time.monotonic()
        self.started = now if self.started is None else self.started
        if now - self.started > self.max_outage:
            raise ServiceGone(
                f"the service was unreachable for {now - self.started:.0f} s: {error}"
            ) from error
        wait = max(self.backoff, error.retry_after or 0) if isinstance(error, ApiError) else self.backoff
        self.backoff = min(self.max_backoff, self.backoff * 2)
        return wait


def _json(model: Any) -> Any:
    """A view or legal action as the engine wrote it (the fields it sent, nothing added)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def turn_of(game_id: str, seat: int, version: int, view: Any, legal: list[Any]) -> Turn:
    return Turn(game_id, seat, version, view, legal, _json(view), [_json(a) for a in legal])


class Runner:
    def __init__(
        self, config: RunnerConfig, journal: Journal | None = None, *, max_backoff: float = 10.0
    ) -> None:
        """Ready to run ``config`` (its bot class loaded, its program found, its state file read:
        ``ConfigError``, ``ArenaError`` or ``StateError`` otherwise). Nothing is sent yet."""
        self.config, self.max_backoff = config, max_backoff
        self.journal = (
            journal if journal is not None else Journal(level=config.log_level, fmt=config.log_format)
        )
        self.engines = Engines(config, self.journal)
        self.state = RunnerState.load(config.state)
        self.games: dict[str, GameDriver] = {}
        self.acted: dict[tuple[str, int], int] = {}  # the version each seat last played at
        self.over: OrderedDict[str, None] = OrderedDict()
        self.wanted: set[str] = set()  # joined or sought: what exit_when_done waits for
        self.in_play: set[str] = set()  # known and not over: what Play now counts
        self.moves = 0
        self.stopping = False
        self.error: BaseException | None = None
        self._stop: asyncio.Event | None = None
        self._client: AsyncClient | None = None
        self.seeker: Seeker | None = None
        self.slots: asyncio.Semaphore | None = None
        """At most ``concurrency`` decisions in flight (made in :meth:`main`, for its loop)."""

    @property
    def client(self) -> AsyncClient:
        assert self._client is not None, "the runner is not running"
        return self._client

    # --- running and stopping --------------------------------------------------------------------

    def run(self) -> None:
        """:meth:`main` in an event loop of its own, until it ends."""
        asyncio.run(self.main())

    async def main(self) -> None:
        """Connect (``connected``: a wrong URL or key fails at once), join, then follow the stream
        and play until :meth:`stop`, or every game is over with ``exit_when_done``; raises
        :class:`ServiceGone`, an ``ApiError`` (a refused join, a key that stopped working) or
        ``ConnectionLost`` (at the start)."""
        self._stop, self.slots = asyncio.Event(), asyncio.Semaphore(self.config.concurrency)
        if self.stopping:
            self._stop.set()
        config = self.config
        async with AsyncClient(config.url, config.key) as client:
            self._client = client
            if config.seek:
                self.seeker = Seeker(
                    client, config.seek, config.concurrency, lambda: len(self.in_play), self.journal
                )
            try:
                await self._connect()
                await self._serve()
            finally:
                await self._shut_down()
        if self.error is not None:
            raise self.error

    async def _connect(self) -> None:
        async with AsyncClient(self.config.url, self.config.key, retry=NO_RETRY) as once:
            await self.check(once)
        if self.config.key_from:
            self.journal("key", source=self.config.key_from)
        for join in self.config.join:
            await self.join(join.game_id, join.seat)

    async def _serve(self) -> None:
        assert self._stop is not None
        tasks = {asyncio.create_task(self._follow()), asyncio.create_task(self._stop.wait())}
        if self.seeker is not None:
            tasks.add(asyncio.create_task(self.seeker.run()))
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            if task.exception() is not None and self.error is None:
                self.error = task.exception()

    def stop(self) -> None:
        """End the runner: the moves in flight are played, then :meth:`main` returns. A second
        call does not wait for them (their engines are stopped at once). Call it in the runner's
        loop (from another thread: ``loop.call_soon_threadsafe(runner.stop)``)."""
        if self.stopping:
            for driver in list(self.games.values()):
                driver.task.cancel()
            return
        self.stopping = True
        if self._stop is not None:
            self._stop.set()

    def _fail(self, error: BaseException) -> None:
        """A game's task met what the runner cannot go on after (an ApiError such as a key that
        stopped working): the runner ends with it."""
        if self.error is None:
            self.error = error
        self.stopping = True
        if self._stop is not None:
            self._stop.set()

    async def _shut_down(self) -> None:
        self.stopping = True
        if self.seeker is not None:
            await self.seeker.cancel_all()
        for driver in list(self.games.values()):
            driver.queue.put_nowait(None)
        drivers = [driver.task for driver in self.games.values()]
        await asyncio.gather(*drivers, return_exceptions=True)

    def _check_done(self) -> None:
        """With ``exit_when_done``: stop once every game joined or sought is over and Play now has
        nothing left to find."""
        if not self.config.exit_when_done or self.stopping:
            return
        if self.wanted <= set(self.over) and (self.seeker is None or self.seeker.done):
            self.journal("done", games=len(self.wanted))
            self.stop()

    # --- set-up ----------------------------------------------------------------------------------

    async def check(self, client: AsyncClient | None = None) -> BotStatus:
        """The bot account the key names (ApiError ``invalid_token`` otherwise)."""
        status = await (client or self.client).bot_me()
        self.journal(
            "connected",
            bot_id=status.bot_id,
            name=status.name,
            seats=len(status.seats),
            bot=self.engines.label,
        )
        return status

    async def join(self, game_id: str, seat: int | None = None) -> int:
        """Take a seat with the bot's API key (the seat is the bot's: the key acts in it)."""
        joined = await self.client.join(game_id, seat)
        self.journal("joined", game=joined.game_id, seat=joined.seat, started=joined.started)
        self.wanted.add(joined.game_id)
        self.in_play.add(joined.game_id)
        return joined.seat

    # --- the stream ------------------------------------------------------------------------------

    async def _follow(self) -> None:
        """Follow the stream until cancelled (or :class:`ServiceGone`, or an ApiError)."""
        outage = Outage(self.config.max_outage, self.max_backoff)
        caught_up = False
        while True:
            stream = self.client.bot_turns(last_event_id=self.state.last_event_id, ndjson=self.config.ndjson)
            try:
                if not caught_up:  # the turns waiting since before this runner (no state: every one)
                    await self.catch_up()
                    caught_up = True
                async for notice in stream:
                    outage = Outage(self.config.max_outage, self.max_backoff)
                    self.handle(notice)
                    self.state.last_event_id = stream.last_event_id
                    self.state.save()
            except StreamResync as resync:
                self.journal("resync", level="warning", code=resync.code, after=resync.last_event_id)
                self.state.last_event_id = resync.last_event_id
                await self.catch_up()
            except (ConnectionLost, ApiError) as error:
                wait = outage.wait(error)
                self.journal("reconnecting", level="warning", reason=str(error), wait_s=round(wait, 2))
                await asyncio.sleep(wait)

    async def catch_up(self) -> None:
        """At the start and after a resync: play the seats the account says are to act (the notices
        before, or in between, are not at hand)."""
        for seat in (await self.check()).seats:
            if seat.status != "finished":
                self.in_play.add(seat.game_id)
            if seat.your_turn:
                answer = await self.client.view(seat.game_id, seat=seat.seat)
                if answer.legal_actions and answer.seat is not None:
                    turn = turn_of(
                        seat.game_id, answer.seat, answer.version, answer.view, answer.legal_actions
                    )
                    self.driver(seat.game_id).queue.put_nowait(turn)

    def driver(self, game_id: str) -> GameDriver:
        driver = self.games.get(game_id)
        if driver is None:
            driver = self.games[game_id] = GameDriver(self, game_id)
        return driver

    def handle(self, notice: BotNotice) -> None:
        """One notice, handed to its game's task (or noted)."""
        if notice.game_id in self.over:
            return  # a notice of a game over, seen again after a resync
        if notice.type == "tournament_game":  # its seats are the bot's: the key plays them
            self.in_play.add(notice.game_id)
            self.journal(
                "tournament_game", game=notice.game_id, tournament=notice.tournament_id, seats=notice.seats
            )
        elif notice.type == "match_found":
            self.wanted.add(notice.game_id)
            self.in_play.add(notice.game_id)
            sought = self.seeker is not None and self.seeker.matched(notice.ticket_id, notice.kind)
            self.journal(
                "match_found",
                game=notice.game_id,
                kind=notice.kind,
                seat=notice.seat,
                ticket=notice.ticket_id,
                sought=sought,
            )
        elif notice.type == "your_turn":
            self.in_play.add(notice.game_id)
            turn = turn_of(notice.game_id, notice.seat, notice.version, notice.view, notice.legal_actions)
            self.driver(notice.game_id).queue.put_nowait(turn)
        elif notice.type == "game_finished":
            if notice.game_id in self.games:
                self.games[notice.game_id].queue.put_nowait(notice)
            else:
                self.game_over(notice.game_id, notice.winners, notice.version)

    def game_over(self, game_id: str, winners: list[int] | None, version: int) -> None:
        """A game is over: forgotten but for its id (a late notice of it is dropped)."""
        self.over[game_id] = None
        while len(self.over) > REMEMBERED_ENDS:
            self.over.popitem(last=False)
        self.in_play.discard(game_id)
        for key in [k for k in self.acted if k[0] == game_id]:
            del self.acted[key]
        self.state.forget(game_id)
        self.journal("game_finished", game=game_id, winners=winners, version=version)
        if self.seeker is not None:
            self.seeker.changed.set()
        self._check_done()

    # --- one move --------------------------------------------------------------------------------

    async def play(self, driver: GameDriver, turn: Turn) -> None:
        """Decide and send one move; each is one ``decision`` line (the decision's time, the
        move's); a failure of the bot one ``bot_failed`` line more, and the policy's move."""
        key = (turn.game_id, turn.seat)
        if self.acted.get(key, -1) >= turn.version or not turn.legal_json or turn.seat in driver.left:
            return  # played already (a notice seen again after a resync), or given up
        started = time.perf_counter()
        engine = driver.engine(turn.seat)
        action: dict[str, Any] | None = None
        failure: BotFailure | None = None
        assert self.slots is not None
        async with self.slots:
            try:
                action = action_json(await engine.turn(turn))
            except BotFailure as error:
                failure = error
        decided = time.perf_counter()
        answer: ActionResponse | None = None
        if action is not None:
            try:
                answer = await self._send(turn, action, "")
            except ApiError as error:
                if error.code not in ILLEGAL:
                    return self._refused(turn, error)
                rule = (
                    f" (rule {error.problem.rule})"
                    if error.problem is not None and error.problem.rule
                    else ""
                )
                failure = BotFailure("illegal", f"{error.code}: {error.detail}{rule}")
        if failure is not None:
            answer, action = await self._failed(driver, turn, failure, action)
            if answer is None:
                return
        assert answer is not None
        self.acted[key] = turn.version
        self.moves += 1
        self.journal(
            "decision",
            level="info" if failure is None else "error",
            game=turn.game_id,
            seat=turn.seat,
            version=turn.version,
            action=action,
            decide_ms=round((decided - started) * 1000, 3),
            move_ms=round((time.perf_counter() - decided) * 1000, 3),
            replayed=answer.replayed,
            **({"fallback": f"{failure.reason}: {failure.detail}"} if failure is not None else {}),
        )

    def _refused(self, turn: Turn, error: ApiError) -> None:
        """The service refused the move for another reason than the move itself."""
        if error.code not in REFUSED_MOVES:
            raise error
        self.acted[(turn.game_id, turn.seat)] = turn.version
        self.journal("turn_gone", game=turn.game_id, seat=turn.seat, version=turn.version, code=error.code)

    async def _failed(
        self, driver: GameDriver, turn: Turn, failure: BotFailure, refused: dict[str, Any] | None
    ) -> tuple[ActionResponse | None, dict[str, Any] | None]:
        """Log the failure loudly, then do as ``on_failure`` says: the fallback move sent (its answer
        and action), or the seat given up (None)."""
        policy = self.config.on_failure
        self.journal(
            "bot_failed",
            level="error",
            game=turn.game_id,
            seat=turn.seat,
            version=turn.version,
            reason=failure.reason,
            detail=failure.detail,
            policy=policy,
            bot=self.engines.label,
            **({"action": refused} if failure.reason == "illegal" and refused is not None else {}),
            **({"traceback": failure.trace} if isinstance(failure, Crash) else {}),
        )
        await driver.replace_if_broken(turn.seat)
        if policy == "leave":
            await driver.leave(turn)
            return None, None
        fallback = fallback_action(turn.legal_json)
        try:
            return await self._send(turn, fallback, ":fallback"), fallback
        except ApiError as error:
            self._refused(turn, error)
            return None, None

    async def _send(self, turn: Turn, action: dict[str, Any], suffix: str) -> ActionResponse:
        """The move, sent until the service answers it: its Idempotency-Key is fixed by the game,
        seat and version, so a move whose answer was lost (the connection cut, the service restarted)
        is answered ``replayed`` when sent again, never played twice. Given up after ``max_outage``
        (:class:`ServiceGone`); a stop does not cut it short (the move in flight is played)."""
        outage = Outage(self.config.max_outage, self.max_backoff)
        key = f"runner:{turn.game_id}:{turn.seat}:{turn.version}{suffix}"
        while True:
            try:
                return await self.client.act(  # with the bot's key: it acts in its bot's seats, named here
                    turn.game_id, action, expected_version=turn.version, seat=turn.seat, idempotency_key=key
                )
            except (ConnectionLost, ApiError) as error:
                wait = outage.wait(error)
                self.journal(
                    "move_retry",
                    level="warning",
                    game=turn.game_id,
                    seat=turn.seat,
                    version=turn.version,
                    reason=str(error),
                    wait_s=round(wait, 2),
                )
                await asyncio.sleep(wait)


class GameDriver:
    """One game's task: its turns in order, then its end (each seat's engine told ``game_end``)."""

    def __init__(self, runner: Runner, game_id: str) -> None:
        self.runner, self.game_id = runner, game_id
        self.queue: asyncio.Queue[Turn | GameFinishedNotice | None] = asyncio.Queue()
        self.engines: dict[int, SeatEngine] = {}
        self.left: set[int] = set()
        self.task = asyncio.create_task(self._run(), name=f"atout game {game_id}")

    def engine(self, seat: int) -> SeatEngine:
        engine = self.engines.get(seat)
        if engine is None:
            engine = self.engines[seat] = self.runner.engines.new(self.game_id, seat)
        return engine

    async def _run(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    break
                if isinstance(item, GameFinishedNotice):
                    await self._finished(item)
                    break
                if not self.runner.stopping:
                    await self.runner.play(self, item)
            for seat in list(self.engines):  # the runner stops before the game ends
                await self._end(seat, None, "stopped", None)
        except asyncio.CancelledError:  # a second stop: no waiting for any bot
            for engine in self.engines.values():
                engine.close_now()
            self.engines.clear()
            raise
        except Exception as error:  # the runner cannot go on (say, its key was revoked)
            for engine in self.engines.values():
                engine.close_now()
            self.engines.clear()
            self.runner._fail(error)
        finally:
            if self.runner.games.get(self.game_id) is self:
                del self.runner.games[self.game_id]

    async def _finished(self, notice: GameFinishedNotice) -> None:
        """The end, told to each seat's engine from that seat's final view (its last hand's result
        and the scores)."""
        for seat in list(self.engines):
            view = None
            with contextlib.suppress(ApiError, ConnectionLost):
                view = _json((await self.runner.client.view(self.game_id, seat=seat)).view)
            await self._end(seat, view, "finished", notice.winners)
        self.runner.game_over(self.game_id, notice.winners, notice.version)

    async def _end(
        self, seat: int, view: dict[str, Any] | None, reason: str, winners: list[int] | None
    ) -> None:
        engine = self.engines.pop(seat, None)
        if engine is None:
            return
        try:
            await engine.end(view, reason, winners)
        except asyncio.CancelledError:
            engine.close_now()
            raise
        except Exception as error:  # the bot's end is its own: logged, never the runner's
            self.runner.journal(
                "engine_end_failed", level="warning", game=self.game_id, seat=seat, reason=str(error)
            )
            engine.close_now()

    async def replace_if_broken(self, seat: int) -> None:
        """An engine that failed on its own (a process stopped, an instance abandoned) is let go:
        the seat's next turn starts a new one."""
        engine = self.engines.get(seat)
        if engine is not None and engine.broken:
            await self._end(seat, None, "stopped", None)

    async def leave(self, turn: Turn) -> None:
        """``on_failure = "leave"``: give the seat up (it is to act, so the key's leave names it)."""
        self.left.add(turn.seat)
        self.runner.acted[(turn.game_id, turn.seat)] = turn.version
        try:
            gone = await self.runner.client.leave(self.game_id)
        except ApiError as error:
            self.runner.journal(
                "leave_refused", level="error", game=self.game_id, seat=turn.seat, code=error.code
            )
            return
        self.runner.journal(
            "seat_left", level="warning", game=self.game_id, seat=gone.seat, outcome=gone.outcome
        )
        await self._end(turn.seat, None, "left", None)
        # the seat keeps its owner: the bot's stream still brings the game's game_finished
