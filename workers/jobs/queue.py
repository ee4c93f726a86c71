"""Bot turns as RQ jobs, the producer side the API calls: one job per (game, version) when a bot seat
is to act, a timer job per turn with a time limit, and the workers' health.

The job sees only the bot seat's view and legal actions, and commits through the same
compare-and-set path as a human (``games.play.act_as``), so a duplicate or late job is harmless.
The worker side is ``workers.jobs.turns``; the watchdog ``workers.jobs.watchdog``.
"""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from rq import Queue, Retry, Worker
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from service.base import logs
from service.base.settings import Settings
from service.store.redis_clients import resilience

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

RETRY_INTERVALS = [1, 2, 4, 8, 15]
"""Seconds before each new try of a bot or timer job that failed (a store fault: a failover, a slot
migration that outlasted ``ATOUT_REDIS_MIGRATION_WAIT_MS``): about half a minute of tries, scheduled by
the workers' RQ scheduler, before the job is left failed for the watchdog (``ATOUT_BOT_TURN_TIMEOUT``)."""

PLAY_TURN = "service.jobs.turns.play_turn"
TURN_TIMEOUT = "service.jobs.turns.turn_timeout"
TURN_REMINDER = "service.jobs.turns.turn_reminder"
CHECK_TOURNAMENT = "service.jobs.tournaments.check_tournament"
DELIVER_WEBHOOK = "service.jobs.webhooks.deliver"
"""The import paths the jobs are enqueued under. RQ stores a job's function by its path, so a path is
the job's version (docs/operations.md, "Rolling upgrade"): these are still the previous release's
(5c5cea1, when the job functions lived in ``service/jobs/``), because during a rolling deploy a worker
of that release runs the jobs this release's API enqueues, and it cannot import ``workers.jobs``. This
release's workers import them through the shims left in ``service/jobs/``. The next release enqueues
``workers.jobs.*`` (its previous release, this one, imports both); the one after drops the shims
(their end date is in ``service/jobs/__init__.py``)."""

WATCHDOG_LOCK = "atout:botdue:lock"
WATCHDOG_BATCH = 100


def connect(url: str) -> redis.Redis:
    """The one place a synchronous Redis client (the API's enqueues, the workers) is built, as resilient
    as the store's (``resilience`` of service/store/redis_clients.py): stale pooled connections are
    PINGed or retried on a fresh connection, and connecting gives up after 2 s, so a Redis restart
    costs a failed attempt, never a stuck process."""

    # an RQ worker raises socket_timeout above its BLPOP timeout itself
    return redis.Redis.from_url(url, socket_timeout=10, **resilience(sync=True))


def queue_connection(settings: Settings) -> redis.Redis:
    """The client of the RQ queues' Redis (``ATOUT_QUEUE_URL``, else ``REDIS_URL``): a plain Redis,
    never a Cluster (RQ does not speak Cluster)."""
    url = settings.queue_redis_url
    if not url:
        raise RuntimeError("REDIS_URL is not set: the RQ queues have no Redis")
    return connect(url)


def due_member(game_id: str, version: int) -> str:
    return f"{game_id}:{version}"


def job_id(game_id: str, version: int) -> str:
    return f"bot-{game_id}-{version}"


def queue_for(queue_name: str, level: str) -> str:
    """Expert turns (a second of search each) have their own queue, so they never delay the others."""
    return f"{queue_name}-expert" if level == "expert" else queue_name


def queues(queue_name: str, which: str = "all", webhook_queue: str | None = None) -> list[str]:
    """The queues ``which`` names (``fast``, ``expert``, ``all``); with ``webhook_queue``, ``webhooks``
    names it alone and ``all`` ends with it (a worker takes its queues in order: bot turns first)."""
    bots = {"fast": [queue_name], "expert": [f"{queue_name}-expert"]}.get(
        which, [queue_name, f"{queue_name}-expert"]
    )
    if webhook_queue is None or which in ("fast", "expert"):
        return bots
    return [webhook_queue] if which == "webhooks" else [*bots, webhook_queue]


def enqueue(
    connection: redis.Redis, queue_name: str, game_id: str, version: int, level: str = "random"
) -> None:
    """Enqueue the bot turn of ``game_id`` at ``version``; a duplicate is dropped. A job lost with
    its worker, or failed on a store fault, is retried with a growing pause (``RETRY_INTERVALS``);
    the compare-and-set makes a second run of a played turn a no-op."""
    # Indexed first (a fast worker could run the job before a later write) and NX: asking again for
    # a turn already due does not restart its clock.
    connection.zadd(DUE_KEY, {due_member(game_id, version): time.time()}, nx=True)
    queue = Queue(queue_for(queue_name, level), connection=connection, serializer=JSONSerializer)
    with contextlib.suppress(DuplicateJobError):
        queue.enqueue_call(
            PLAY_TURN,
            args=(game_id, version),
            job_id=job_id(game_id, version),
            unique=True,
            result_ttl=0,  # the move is in the game's log: a kept result (~6.8 KB a move) serves nobody
            failure_ttl=FAILURE_TTL,
            retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
            timeout=JOB_TIMEOUT,
        )


def timer_id(game_id: str, version: int) -> str:
    return f"timer-{game_id}-{version}"


def schedule_timeout(
    connection: redis.Redis,
    queue_name: str,
    game_id: str,
    version: int,
    seconds: int,
    remind_in: int | None = None,
) -> None:
    """In ``seconds``, if the game is still at ``version``, a bot plays the absent seat's move; in
    ``remind_in`` seconds (if given) the player to act is reminded (``workers.jobs.turns.turn_reminder``)."""
    queue = Queue(queue_name, connection=connection, serializer=JSONSerializer)
    jobs = [(seconds, TURN_TIMEOUT, timer_id(game_id, version))]
    if remind_in is not None:
        jobs.append((remind_in, TURN_REMINDER, f"reminder-{game_id}-{version}"))
    for delay, function, job in jobs:
        queue.enqueue_in(
            timedelta(seconds=delay),
            function,
            game_id,
            version,
            job_id=job,
            retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
            job_timeout=JOB_TIMEOUT,
            result_ttl=0,
            failure_ttl=FAILURE_TTL,
        )


def worker_health(connection: redis.Redis, queue_name: str, worker_ttl: int) -> dict[str, Any]:
    """Per queue: how many workers are registered and the age of the freshest heartbeat. A queue is
    ``ok`` when some worker heartbeat within ``worker_ttl`` seconds, ``stale`` when its workers stopped
    beating (killed, hung) and ``missing`` when none is registered."""

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
