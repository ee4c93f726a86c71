"""Prometheus metrics: what pages an operator, and what they look at next.

Names are part of the operations interface (the Grafana dashboard in ``k8s/`` and alert rules use
them): never rename one. Three kinds, by where the number comes from:

- **Per app** (:class:`Metrics`): HTTP requests and their latency by route template (the action
  route is ``/v1/games/{game_id}/actions``), games created, actions by outcome, lost races, and the
  streams (SSE, WebSocket subscriptions) this process holds open.
- **Per process** (module level): counted where no app is at hand. Errors by problem ``code``
  (``service/base/problems.py``: every problem+json answer and every GraphQL error), Redis faults by where
  they happened and their exception class, bot decision time (observed in the worker process), and
  fetches of the trusted JWT issuers' keys by issuer and outcome (``service/identity/``).
- **Read from Redis at scrape time**, with a bounded cost (a fixed number of commands, never a scan):
  unfinished games (the 16 shards of ``atout:opengames``), per RQ queue (the bots' and the webhooks')
  its depth and the age of its oldest job (``LLEN`` and the first job's ``enqueued_at``), and the
  webhook dead letters (``XLEN``). With several API replicas each reports the same values:
  aggregate them with ``max``, not ``sum``.

Processes. With ``PROMETHEUS_MULTIPROC_DIR`` set (``atout serve`` sets it for its uvicorn workers
and the workers it supervises), every process writes its values to files there and ``/metrics``
adds them up, so one scrape of the API covers the bot workers too. A worker run on its own
(``atout worker``, one per pod on Kubernetes) serves its own ``/metrics`` on
``--metrics-port`` / ``ATOUT_WORKER_METRICS_PORT`` (:func:`serve_worker_metrics`).
"""

from __future__ import annotations

import asyncio
import glob
import os
import re
import time
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rq.utils import utcparse
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from service.base.counters import MULTIPROCESS, PROCESS, Metrics, count_redis_error
from service.store.keys import OPEN_GAME_SHARDS, open_games_shard
from workers.jobs.queue import queues as bot_queues

SCRAPE_TIMEOUT = 2.0
"""Seconds the Redis reads of one scrape may take; past that the gauges are left out and
``atout_store_up`` is 0 (the scrape itself still answers, with every other metric)."""

RQ_QUEUE_PREFIX = "rq:queue:"  # rq.Queue.redis_queue_namespace_prefix
RQ_JOB_PREFIX = "rq:job:"  # rq.job.Job.redis_job_namespace_prefix


# --- per app ----------------------------------------------------------------------------------


async def serve(metrics: Metrics, request: Request) -> Response:
    """``/metrics``: this app's figures and the process's, or every process's with
    ``PROMETHEUS_MULTIPROC_DIR``, then the gauges read from Redis at scrape time."""
    snapshot = await scrape_redis(request.app.state)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if MULTIPROCESS and directory:
        # several processes (uvicorn workers, bot workers): add up what every one of them wrote
        forget_dead_processes(directory)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        text = generate_latest(registry)
    else:
        text = generate_latest(metrics.registry) + generate_latest(PROCESS)
    return Response(text + generate_latest(snapshot), media_type=CONTENT_TYPE_LATEST)


def route_template(scope: Scope) -> str:
    """The matched route's path template (the router records it in the scope), never the raw path."""
    route = scope.get("route")
    return str(getattr(route, "path", "unmatched")) if route is not None else "unmatched"


# --- read at scrape time ----------------------------------------------------------------------


class _Snapshot(Collector):
    """Gauges computed once per scrape (they are read from Redis, not counted by this process)."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterable[Metric]:
        return self.families


async def scrape_redis(state: Any) -> CollectorRegistry:
    """Unfinished games, depth and oldest job's age per queue, and the webhook dead letters: a fixed
    number of commands (two pipelined round trips to the queues' Redis, two to the games'), at most
    ``SCRAPE_TIMEOUT``."""

    up = GaugeMetricFamily("atout_store_up", "1 when this scrape could read Redis, else 0.")
    families: list[Metric] = [up]
    store = getattr(state, "store", None)
    settings = getattr(state, "settings", None)
    sync_redis = getattr(state, "sync_redis", None)
    if store is None or settings is None or sync_redis is None:  # the app is not started
        up.add_metric([], 0)
        return _registry(families)
    names = bot_queues(settings.bot_queue, "all", settings.webhook_queue)

    async def unfinished() -> int:
        cutoff = f"({time.time()!r}"  # scored by expiry: the expired ones are not counted
        async with store.r.pipeline(transaction=False) as pipe:
            for shard in range(OPEN_GAME_SHARDS):
                pipe.zcount(open_games_shard(shard), cutoff, "+inf")
            replies = await pipe.execute()
        return sum(int(n) for n in replies)

    try:
        games, queues, dead = await asyncio.wait_for(
            asyncio.gather(
                unfinished(),
                run_in_threadpool(queue_stats, sync_redis, names),
                store.webhooks.count_dead_letters(),
            ),
            SCRAPE_TIMEOUT,
        )
    except Exception as exc:  # Redis down or slow: say so, and serve the other metrics
        count_redis_error("metrics", exc)
        up.add_metric([], 0)
        return _registry(families)
    up.add_metric([], 1)
    active = GaugeMetricFamily(
        "atout_active_games", "Unfinished games (waiting for players or in play) on the whole service."
    )
    active.add_metric([], games)
    depth = GaugeMetricFamily("atout_queue_depth", "Jobs waiting in an RQ queue.", labels=["queue"])
    age = GaugeMetricFamily(
        "atout_queue_oldest_job_age_seconds",
        "Age of the oldest job waiting in an RQ queue (0 when it is empty).",
        labels=["queue"],
    )
    for name, (length, oldest) in queues.items():
        depth.add_metric([name], length)
        age.add_metric([name], oldest)
    dead_letters = GaugeMetricFamily(
        "atout_webhook_dead_letters",
        "Webhook messages in the dead-letter list (at most ATOUT_WEBHOOK_DEAD_LETTERS, about): each failed "
        "every attempt; redeliver them once their receiver is fixed.",
    )
    dead_letters.add_metric([], dead)
    families += [active, depth, age, dead_letters]
    return _registry(families)


def _registry(families: list[Metric]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(families))
    return registry


def queue_stats(connection: Any, names: list[str]) -> dict[str, tuple[int, float]]:
    """Per queue: its length and the age in seconds of its first (oldest) job, from two pipelined
    round trips (``LLEN`` and ``LINDEX 0``, then that job's ``enqueued_at``)."""

    with connection.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.llen(RQ_QUEUE_PREFIX + name)
            pipe.lindex(RQ_QUEUE_PREFIX + name, 0)
        replies = pipe.execute()
    lengths = [int(n) for n in replies[::2]]
    firsts = [_text(first) for first in replies[1::2]]
    with connection.pipeline(transaction=False) as pipe:
        for first in firsts:
            pipe.hget(RQ_JOB_PREFIX + (first or "-"), "enqueued_at")
        stamps = pipe.execute()
    now = time.time()
    stats: dict[str, tuple[int, float]] = {}
    for name, length, stamp in zip(names, lengths, stamps, strict=True):
        age = 0.0
        if length and stamp:
            try:
                age = max(0.0, now - utcparse(_text(stamp) or "").timestamp())
            except ValueError:
                age = 0.0  # a job written by another RQ version: its age is unknown
        stats[name] = (length, round(age, 3))
    return stats


def _text(value: Any) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


_PID_OF_LIVE_GAUGE = re.compile(r"gauge_live\w+?_(\d+)\.db$")


def forget_dead_processes(directory: str) -> None:
    """Drop the live gauges of processes that died without saying so (a uvicorn worker killed,
    restarted by its manager): a dead process holds no stream. A glob of a few files per scrape."""
    for path in glob.glob(os.path.join(directory, "gauge_live*_*.db")):
        found = _PID_OF_LIVE_GAUGE.search(path)
        if found is None:
            continue
        pid = int(found.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
        except PermissionError:
            continue  # alive, another user's
