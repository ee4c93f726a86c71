"""The worker side of bot turns: one event loop, Redis pool and ``Games`` per worker process, and the
job functions RQ runs (:func:`play_turn`, :func:`turn_timeout`, :func:`turn_reminder`). The job sees
only the bot seat's view and legal actions and commits through the same compare-and-set path as a human
(``games.play.act_as``), so a duplicate or late job is harmless. The strategies (``random``,
``heuristic``, ``expert``) live in ``workers.bots``.

RQ stores a job's function by its import path: these jobs are enqueued under the previous release's
paths (``service.jobs.turns.*``, :data:`workers.jobs.queue.PLAY_TURN`), and the layout before that named
``service.bots.play_turn``: the shims ``service/jobs/turns.py`` and ``service/bots.py`` keep both
importable."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

import engine
from service.base.counters import observe_bot_decision
from service.base.problems import ProblemError
from service.base.settings import Settings, get_settings
from service.games import Games, build_games
from service.store import Store
from service.store.faults import store_fault
from service.store.keys import STATUS_ACTIVE
from service.store.records import GameRecord
from service.store.webhooks import WebhookMessage
from workers import bots as strategies
from workers.jobs.queue import DUE_KEY, due_member, enqueue, queue_connection, schedule_timeout
from workers.jobs.webhook_queue import enqueue_delivery


def turn_timeout(game_id: str, version: int) -> str:
    """RQ job: the seat to act at ``version`` let its time run out; a heuristic bot plays for it."""
    return _counting_faults(lambda: runtime().run(game_id, version, timer=True))


def turn_reminder(game_id: str, version: int) -> str:
    """RQ job: the player to act at ``version`` has a quarter of a long turn's clock left; remind them."""
    return _counting_faults(lambda: runtime().remind(game_id, version))


def _counting_faults(job: Callable[[], str]) -> str:
    """Run ``job``; a Redis fault it raises is counted (``atout_redis_errors_total{operation="worker"}``)
    and raised again, so RQ retries the job."""
    try:
        return job()
    except Exception as exc:
        store_fault(exc, "worker")
        raise


def choose(
    view: dict[str, Any], legal: list[dict[str, Any]], level: str, rng: random.Random, budget_s: float = 1.0
) -> dict[str, Any]:
    """The bot ``level``'s action for the seat whose ``view`` this is (``workers.bots`` strategies)."""

    action: dict[str, Any] = strategies.choose(level, view, legal, rng, budget_s)
    return action


def play_turn(game_id: str, version: int) -> str:
    """RQ job: play the bot seat's move at ``version`` (or do nothing if the game moved on). The turn
    leaves the watchdog's index only once the job has run: a job lost on the way stays due."""

    def job() -> str:
        rt = runtime()
        outcome = rt.run(game_id, version, timer=False)
        rt.sync.zrem(DUE_KEY, due_member(game_id, version))
        return outcome

    return _counting_faults(job)


class Runtime:
    """One event loop, Redis pool and Games per worker process, reused by every job (a bot's turn, a
    webhook delivery): a bot's reply then costs milliseconds, not a new loop and new connections per
    move."""

    def __init__(self, settings: Settings) -> None:

        assert settings.redis_url, "the worker needs REDIS_URL"
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.store = Store.from_settings(settings, socket_timeout=10)  # a worker never blocks on a stream
        self.sync = queue_connection(settings)

        async def enqueue_next(gid: str, v: int, level: str) -> None:
            enqueue(self.sync, settings.bot_queue, gid, v, level)

        async def schedule_next(gid: str, v: int, seconds: int, remind_in: int | None) -> None:
            schedule_timeout(self.sync, settings.bot_queue, gid, v, seconds, remind_in)

        async def enqueue_webhook(message: WebhookMessage) -> None:
            enqueue_delivery(self.sync, settings, message)

        self.games = build_games(
            self.store,
            settings,
            enqueue_bot=enqueue_next,
            schedule_timer=schedule_next,
            enqueue_webhook=enqueue_webhook,  # a bot's move may give a person the turn
        )

    def close(self) -> None:
        """Release the loop and both Redis clients (a worker process keeps its runtime for life)."""
        try:
            self.loop.run_until_complete(self.store.close())
        finally:
            self.loop.close()
            self.sync.close()

    def remind(self, game_id: str, version: int) -> str:
        return self.loop.run_until_complete(self.games.players.remind(game_id, version))

    def run(self, game_id: str, version: int, timer: bool) -> str:
        return self.loop.run_until_complete(_play_turn(self, game_id, version, timer))

    def level_to_act(self, game_id: str, version: int) -> str | None:
        """The bot level to act in ``game_id`` at ``version``; None: moved on, over, a human to act."""
        turn = self.bot_turn(game_id)
        return turn[1] if turn is not None and turn[0] == version else None

    def bot_turn(self, game_id: str) -> tuple[int, str] | None:
        """The game's version and the bot level to act now; None: over, gone, or a human to act."""
        record = self.loop.run_until_complete(self.store.games.load(game_id))
        return None if record is None else bot_to_act(self.games, record)


def bot_to_act(games: Games, record: GameRecord) -> tuple[int, str] | None:
    """``record``'s version and the level of the bot seat to act in it; None: not a running game, or
    a human to act."""
    if record.status != STATUS_ACTIVE:
        return None
    seat = games.core.match_of(record).to_act
    if seat is None or not record.seats[seat].is_bot:
        return None
    return record.version, record.seats[seat].kind.partition(":")[2]


_runtimes: dict[str, Runtime] = {}


def close_runtimes() -> None:
    """Close and forget this process's runtimes: code that runs jobs in its own process under changing
    settings (the tests) starts each time from a fresh loop and fresh connections, never from those of
    an earlier Redis."""
    while _runtimes:
        _runtimes.popitem()[1].close()


def runtime() -> Runtime:
    settings = get_settings()
    key = f"{settings.redis_url}|{settings.bot_queue}|{settings.bot_budget}"
    if key not in _runtimes:
        _runtimes[key] = Runtime(settings)
    return _runtimes[key]


async def _play_turn(rt: Runtime, game_id: str, version: int, timer: bool = False) -> str:
    store, games, settings = rt.store, rt.games, rt.settings
    record = await store.games.load(game_id)
    if record is None or record.status != STATUS_ACTIVE:
        return "stale"
    if record.version != version:
        # The game moved on: if a bot is to act now, its turn is enqueued (a no-op when it is): the
        # move that got there may have been written by a request or a job that failed right after
        # the write (a store fault), before it enqueued this turn, and no one else would.
        turn = bot_to_act(games, record)
        if turn is not None:
            enqueue(rt.sync, settings.bot_queue, game_id, *turn)
        return "stale"
    m = games.core.match_of(record)
    seat = m.to_act
    if seat is None or record.seats[seat].is_bot == timer:
        return "a bot seat has no timer" if timer else "not a bot's turn"
    level = "heuristic" if timer else record.seats[seat].kind.partition(":")[2]
    rng = random.Random(f"{game_id}:{version}")
    started = time.perf_counter()
    action = choose(engine.view(m, seat), engine.legal_actions(m, seat), level, rng, settings.bot_budget)
    observe_bot_decision(record.game, level, time.perf_counter() - started)
    try:
        if timer:
            await games.play.act_as(record, seat, action, expected_version=version, by="timer")
        else:
            await games.play.act_as(record, seat, action, expected_version=version, credential="bot")
    except ProblemError as error:
        if error.code == "version_conflict":
            return "lost the race"
        raise
    return "played"
