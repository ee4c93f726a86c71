"""Bot turns as RQ jobs: the service enqueues one per (game, version) when a bot seat is to act.

The job sees only the bot seat's view and legal actions, and commits through the same
compare-and-set path as a human (``Games.act_as``), so a duplicate or late job is harmless.
The strategies (``random``, ``heuristic``, ``expert``) live in ``workers.bots``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

import engine
from service import logs
from service.errors import ProblemError, store_fault
from service.metrics import observe_bot_decision
from service.settings import Settings, get_settings
from service.store import STATUS_ACTIVE, Store

log = logs.get_logger("atout.bots")

JOB_TIMEOUT = 60
"""Seconds a bot turn may take; a job still "started" after that (its worker died) is retried by
another worker's maintenance (every 30 s, see ``atout worker``)."""

FAILURE_TTL = 24 * 3600
"""Seconds a failed bot or timer job stays in RQ's failed registry for an operator to read (``rq info``);
a successful one is deleted at once (``result_ttl=0``): bounded either way."""

DUE_KEY = "atout:botdue"
"""Sorted set of the bot turns enqueued and not yet played: member ``<game>:<version>``, score the
time it was (last) enqueued. The watchdog reads only its oldest entries (bounded), never scans keys;
an entry leaves when its job ran, or when the watchdog finds its game moved on or gone."""

WATCHDOG_LOCK = "atout:botdue:lock"
WATCHDOG_BATCH = 100


def connect(url: str) -> redis.Redis:
    """The one place a synchronous Redis client (the API's enqueues, the workers) is built, as resilient
    as ``Store.from_url``'s: stale pooled connections are PINGed or retried on a fresh connection, and
    connecting gives up after 2 s, so a Redis restart costs a failed attempt, never a stuck process."""
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry as RedisRetry

    return redis.Redis.from_url(
        url,
        socket_connect_timeout=2,
        socket_timeout=10,  # an RQ worker raises it above its BLPOP timeout itself
        socket_keepalive=True,
        health_check_interval=5,
        retry=RedisRetry(
            ExponentialBackoff(cap=0.2, base=0.02), retries=2, supported_errors=(redis.ConnectionError,)
        ),
    )


def due_member(game_id: str, version: int) -> str:
    return f"{game_id}:{version}"


def job_id(game_id: str, version: int) -> str:
    return f"bot-{game_id}-{version}"


def queue_for(queue_name: str, level: str) -> str:
    """Expert turns (a second of search each) have their own queue, so they never delay the others."""
    return f"{queue_name}-expert" if level == "expert" else queue_name


def queues(queue_name: str, which: str = "all") -> list[str]:
    return {"fast": [queue_name], "expert": [f"{queue_name}-expert"]}.get(
        which, [queue_name, f"{queue_name}-expert"]
    )


def enqueue(
    connection: redis.Redis, queue_name: str, game_id: str, version: int, level: str = "random"
) -> None:
    """Enqueue the bot turn of ``game_id`` at ``version``; a duplicate is dropped. A job lost with
    its worker is retried (twice); the compare-and-set makes a second run of a played turn a no-op."""
    # Indexed first (a fast worker could run the job before a later write) and NX: asking again for
    # a turn already due does not restart its clock.
    connection.zadd(DUE_KEY, {due_member(game_id, version): time.time()}, nx=True)
    queue = Queue(queue_for(queue_name, level), connection=connection, serializer=JSONSerializer)
    with contextlib.suppress(DuplicateJobError):
        queue.enqueue_call(
            "service.bots.play_turn",
            args=(game_id, version),
            job_id=job_id(game_id, version),
            unique=True,
            result_ttl=0,  # the move is in the game's log: a kept result (~6.8 KB a move) serves nobody
            failure_ttl=FAILURE_TTL,
            retry=Retry(max=2),
            timeout=JOB_TIMEOUT,
        )


def timer_id(game_id: str, version: int) -> str:
    return f"timer-{game_id}-{version}"


def schedule_timeout(
    connection: redis.Redis, queue_name: str, game_id: str, version: int, seconds: int
) -> None:
    """In ``seconds``, if the game is still at ``version``, a bot plays the absent seat's move."""
    queue = Queue(queue_name, connection=connection, serializer=JSONSerializer)
    queue.enqueue_in(
        timedelta(seconds=seconds),
        "service.bots.turn_timeout",
        game_id,
        version,
        job_id=timer_id(game_id, version),
        retry=Retry(max=2),
        job_timeout=JOB_TIMEOUT,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
    )


def turn_timeout(game_id: str, version: int) -> str:
    """RQ job: the seat to act at ``version`` let its time run out; a heuristic bot plays for it."""
    return _counting_faults(lambda: _runtime().run(game_id, version, timer=True))


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
    from workers import bots as strategies

    action: dict[str, Any] = strategies.choose(level, view, legal, rng, budget_s)
    return action


def play_turn(game_id: str, version: int) -> str:
    """RQ job: play the bot seat's move at ``version`` (or do nothing if the game moved on). The turn
    leaves the watchdog's index only once the job has run: a job lost on the way stays due."""

    def job() -> str:
        rt = _runtime()
        outcome = rt.run(game_id, version, timer=False)
        rt.sync.zrem(DUE_KEY, due_member(game_id, version))
        return outcome

    return _counting_faults(job)


def requeue_stuck_turns(connection: redis.Redis, settings: Settings) -> int:
    """Enqueue again every bot turn due for longer than ``bot_turn_timeout`` whose job is neither
    queued nor running (lost with a Redis restart, deleted, or failed past its retries), and drop
    the index entries of games that moved on. Run from every worker's maintenance: a short lock
    lets one worker of the cluster do a pass at a time. Returns the number of turns enqueued again."""
    from rq.exceptions import NoSuchJobError
    from rq.job import Job, JobStatus

    now = time.time()
    lock_seconds = max(1, int(settings.bot_turn_timeout // 2))
    if not connection.set(WATCHDOG_LOCK, "1", nx=True, ex=lock_seconds):
        return 0
    connection.zremrangebyscore(DUE_KEY, "-inf", now - settings.abandoned_ttl)  # those games expired
    due = connection.zrangebyscore(
        DUE_KEY, "-inf", now - settings.bot_turn_timeout, start=0, num=WATCHDOG_BATCH
    )
    requeued = 0
    for raw in due:
        member = raw.decode() if isinstance(raw, bytes) else str(raw)
        game_id, _, v = member.rpartition(":")
        level = _runtime().level_to_act(game_id, int(v))
        if level is None:
            connection.zrem(DUE_KEY, member)
            continue
        try:
            job = Job.fetch(job_id(game_id, int(v)), connection=connection, serializer=JSONSerializer)
            status = job.get_status()
        except NoSuchJobError:
            job, status = None, None
        if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
            continue
        if status == JobStatus.QUEUED and _waiting_in_queue(connection, job):
            continue
        if status == JobStatus.STARTED and _started_within(job, settings.bot_turn_timeout, now):
            continue
        # Also a job "started" longer than a bot turn may take: its worker died with it (killed, or
        # Redis went down under it, so the job's end was never written). RQ would fail it only after
        # its timeout; the turn is due now. Should it still be running, the copy loses the race.
        # Also a job "queued" but in no queue: a worker moved it to RQ's intermediate list and died
        # (or lost Redis) before marking it started. RQ fails such a job only after a minute.
        if job is not None:
            # finished or failed under the same id: the unique enqueue would refuse; and RQ's own
            # cleanup must not later fail the new job for the old one's place in the intermediate list
            connection.lrem(Queue(job.origin, connection=connection).intermediate_queue_key, 0, job.id)
            job.delete()
        enqueue(connection, settings.bot_queue, game_id, int(v), level)
        connection.zadd(DUE_KEY, {member: time.time()})  # its clock starts again
        log.warning("bot_turn_requeued", game=game_id, version=int(v), level=level, job_status=str(status))
        requeued += 1
    return requeued


def _waiting_in_queue(connection: redis.Redis, job: Any) -> bool:
    """Whether ``job`` is still in its queue's list (LPOS: no copy of the list), waiting for a worker."""
    queue_key = Queue(job.origin, connection=connection).key
    return connection.lpos(queue_key, job.id) is not None


def _started_within(job: Any, seconds: float, now: float) -> bool:
    started = getattr(job, "started_at", None)
    return started is not None and now - started.replace(tzinfo=started.tzinfo or UTC).timestamp() < seconds


def worker_health(connection: redis.Redis, queue_name: str, worker_ttl: int) -> dict[str, Any]:
    """Per queue: how many workers are registered and the age of the freshest heartbeat. A queue is
    ``ok`` when some worker heartbeat within ``worker_ttl`` seconds, ``stale`` when its workers stopped
    beating (killed, hung) and ``missing`` when none is registered."""
    from rq import Worker

    now = datetime.now(UTC)
    report: dict[str, Any] = {}
    for name in queues(queue_name):
        workers = Worker.all(queue=Queue(name, connection=connection, serializer=JSONSerializer))
        ages = [
            (
                now - (w.last_heartbeat if w.last_heartbeat.tzinfo else w.last_heartbeat.replace(tzinfo=UTC))
            ).total_seconds()
            for w in workers
            if w.last_heartbeat is not None
        ]
        age = max(0.0, min(ages)) if ages else None
        status = "missing" if not workers else "ok" if age is not None and age <= worker_ttl else "stale"
        report[name] = {
            "status": status,
            "workers": len(workers),
            "heartbeat_age_seconds": None if age is None else round(age, 1),
        }
    overall = "ok" if all(q["status"] == "ok" for q in report.values()) else "stale"
    return {"status": overall, "queues": report}


class _Runtime:
    """One event loop, Redis pool and Games per worker process, reused by every job: a bot's
    reply then costs milliseconds, not a new loop and new connections per move."""

    def __init__(self, settings: Settings) -> None:
        from service.games import Games

        assert settings.redis_url, "the worker needs REDIS_URL"
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.store = Store.from_url(
            settings.redis_url,
            settings.abandoned_ttl,
            settings.finished_ttl,
            settings.idempotency_ttl,
            socket_timeout=10,  # a worker never blocks on a stream
            cluster=settings.redis_cluster,
            wait_replicas=settings.redis_wait_replicas,
            wait_ms=settings.redis_wait_ms,
        )
        self.sync = connect(settings.queue_redis_url or settings.redis_url)

        async def enqueue_next(gid: str, v: int, level: str) -> None:
            enqueue(self.sync, settings.bot_queue, gid, v, level)

        async def schedule_next(gid: str, v: int, seconds: int) -> None:
            schedule_timeout(self.sync, settings.bot_queue, gid, v, seconds)

        self.games = Games(self.store, settings, enqueue_bot=enqueue_next, schedule_timer=schedule_next)

    def run(self, game_id: str, version: int, timer: bool) -> str:
        return self.loop.run_until_complete(_play_turn(self, game_id, version, timer))

    def level_to_act(self, game_id: str, version: int) -> str | None:
        """The bot level to act in ``game_id`` at ``version``; None: moved on, over, a human to act."""
        record = self.loop.run_until_complete(self.store.load(game_id))
        if record is None or record.version != version or record.status != STATUS_ACTIVE:
            return None
        seat = self.games.match_of(record).to_act
        if seat is None or not record.seats[seat].is_bot:
            return None
        return record.seats[seat].kind.partition(":")[2]


_runtimes: dict[str, _Runtime] = {}


def _runtime() -> _Runtime:
    settings = get_settings()
    key = f"{settings.redis_url}|{settings.bot_queue}|{settings.bot_budget}"
    if key not in _runtimes:
        _runtimes[key] = _Runtime(settings)
    return _runtimes[key]


async def _play_turn(rt: _Runtime, game_id: str, version: int, timer: bool = False) -> str:
    store, games, settings = rt.store, rt.games, rt.settings
    record = await store.load(game_id)
    if record is None or record.version != version or record.status != STATUS_ACTIVE:
        return "stale"
    m = games.match_of(record)
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
            await games.act_as(record, seat, action, expected_version=version, by="timer")
        else:
            await games.act_as(record, seat, action, expected_version=version, credential="bot")
    except ProblemError as error:
        if error.code == "version_conflict":
            return "lost the race"
        raise
    return "played"
