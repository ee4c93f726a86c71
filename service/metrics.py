"""Prometheus metrics: what pages an operator, and what they look at next.

Names are part of the operations interface (the Grafana dashboard in ``k8s/`` and alert rules use
them): never rename one. Three kinds, by where the number comes from:

- **Per app** (:class:`Metrics`): HTTP requests and their latency by route template (the action
  route is ``/v1/games/{game_id}/actions``), games created, actions by outcome, lost races, and the
  streams (SSE, WebSocket subscriptions) this process holds open.
- **Per process** (module level): counted where no app is at hand. Errors by problem ``code``
  (``service/errors.py``: every problem+json answer and every GraphQL error), Redis faults by where
  they happened and their exception class, and bot decision time (observed in the worker process).
- **Read from Redis at scrape time**, with a bounded cost (a fixed number of commands, never a scan):
  unfinished games (the 16 shards of ``atout:opengames``), and per RQ queue its depth and the age of
  its oldest job (``LLEN`` and the first job's ``enqueued_at``). With several API replicas each
  reports the same values: aggregate them with ``max``, not ``sum``.

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
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client import values as prometheus_values
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

SCRAPE_TIMEOUT = 2.0
"""Seconds the Redis reads of one scrape may take; past that the gauges are left out and
``atout_store_up`` is 0 (the scrape itself still answers, with every other metric)."""

RQ_QUEUE_PREFIX = "rq:queue:"  # rq.Queue.redis_queue_namespace_prefix
RQ_JOB_PREFIX = "rq:job:"  # rq.job.Job.redis_job_namespace_prefix

MULTIPROCESS = bool(getattr(prometheus_values.ValueClass, "_multiprocess", False))
"""This process writes its values to ``PROMETHEUS_MULTIPROC_DIR`` (the variable was set before
prometheus_client was imported): its /metrics adds up every process's files."""

# --- per process ------------------------------------------------------------------------------

PROCESS = CollectorRegistry()
"""Metrics counted outside any app (errors, Redis faults, bot decisions): one set per process."""

ERRORS = Counter(
    "atout_errors",
    "Errors answered, by API (rest: an application/problem+json answer; graphql: an error in a GraphQL "
    "result) and stable problem code.",
    ["api", "code"],
    registry=PROCESS,
)
REDIS_ERRORS = Counter(
    "atout_redis_errors",
    "Redis faults turned into an answer or a retry, by where (request, graphql, edge, probe, metrics, "
    "worker, streams, rate_limit) and exception class.",
    ["operation", "error"],
    registry=PROCESS,
)
BOT_DECISION = Histogram(
    "atout_bot_decision_seconds",
    "Time a bot took to choose its move, in the worker, by game and bot level.",
    ["game", "level"],
    registry=PROCESS,
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)

_error_children: dict[tuple[str, str], Any] = {}


def count_error(api: str, code: str) -> None:
    """One more error with ``code`` answered through ``api`` (``rest`` or ``graphql``)."""
    child = _error_children.get((api, code))
    if child is None:
        child = _error_children[(api, code)] = ERRORS.labels(api, code)
    child.inc()


def count_redis_error(operation: str, exc: BaseException) -> None:
    REDIS_ERRORS.labels(operation, type(exc).__name__).inc()


def observe_bot_decision(game: str, level: str, seconds: float) -> None:
    BOT_DECISION.labels(game, level).observe(seconds)


# --- per app ----------------------------------------------------------------------------------


class Metrics:
    """One registry per app, so several apps (tests) never share counters."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "atout_http_requests_total",
            "HTTP requests by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "atout_http_request_duration_seconds",
            "HTTP request latency (until the response starts) by route template and method.",
            ["route", "method"],
            registry=self.registry,
            buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )
        self.games_created = Counter(
            "atout_games_created_total", "Games created.", ["game"], registry=self.registry
        )
        self.actions = Counter(
            "atout_actions_total",
            "Actions submitted, by outcome.",
            ["game", "outcome"],
            registry=self.registry,
        )
        self.conflicts = Counter(
            "atout_version_conflicts_total", "Compare-and-set writes lost to a race.", registry=self.registry
        )
        # livesum: with several processes, the sum over the live ones (dead ones are dropped at scrape)
        self.open_streams = Gauge(
            "atout_open_streams",
            "Event streams (SSE, GraphQL subscriptions) held open, summed over the live API processes.",
            registry=self.registry,
            multiprocess_mode="livesum",
        )

        self._counters: dict[tuple[str, str, int], Any] = {}
        self._histograms: dict[tuple[str, str], Any] = {}

    def count(self, route: str, method: str, status: int) -> None:
        child = self._counters.get((route, method, status))
        if child is None:
            child = self._counters[(route, method, status)] = self.requests.labels(route, method, str(status))
        child.inc()

    def observe(self, route: str, method: str, seconds: float) -> None:
        child = self._histograms.get((route, method))
        if child is None:
            child = self._histograms[(route, method)] = self.latency.labels(route, method)
        child.observe(seconds)

    async def endpoint(self, request: Request) -> Response:
        snapshot = await scrape_redis(request.app.state)
        directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if MULTIPROCESS and directory:
            # several processes (uvicorn workers, bot workers): add up what every one of them wrote
            forget_dead_processes(directory)
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            text = generate_latest(registry)
        else:
            text = generate_latest(self.registry) + generate_latest(PROCESS)
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
    """Unfinished games, and depth and oldest job's age per bot queue: a fixed number of commands
    (two pipelined round trips to the queues' Redis, one to the games'), at most ``SCRAPE_TIMEOUT``."""
    from service import bots
    from service.store import OPEN_GAME_SHARDS, open_games_shard

    up = GaugeMetricFamily("atout_store_up", "1 when this scrape could read Redis, else 0.")
    families: list[Metric] = [up]
    store = getattr(state, "store", None)
    settings = getattr(state, "settings", None)
    sync_redis = getattr(state, "sync_redis", None)
    if store is None or settings is None or sync_redis is None:  # the app is not started
        up.add_metric([], 0)
        return _registry(families)
    names = bots.queues(settings.bot_queue)

    async def unfinished() -> int:
        cutoff = f"({time.time()!r}"  # scored by expiry: the expired ones are not counted
        async with store.r.pipeline(transaction=False) as pipe:
            for shard in range(OPEN_GAME_SHARDS):
                pipe.zcount(open_games_shard(shard), cutoff, "+inf")
            replies = await pipe.execute()
        return sum(int(n) for n in replies)

    try:
        games, queues = await asyncio.wait_for(
            asyncio.gather(unfinished(), run_in_threadpool(queue_stats, sync_redis, names)),
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
    families += [active, depth, age]
    return _registry(families)


def _registry(families: list[Metric]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(families))
    return registry


def queue_stats(connection: Any, names: list[str]) -> dict[str, tuple[int, float]]:
    """Per queue: its length and the age in seconds of its first (oldest) job, from two pipelined
    round trips (``LLEN`` and ``LINDEX 0``, then that job's ``enqueued_at``)."""
    from rq.utils import utcparse

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


# --- a worker's own endpoint ------------------------------------------------------------------


def worker_registry() -> CollectorRegistry:
    """What a worker serves: its process's metrics, or every process's in multiprocess mode."""
    if MULTIPROCESS:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return PROCESS


def serve_worker_metrics(host: str, port: int) -> int:
    """Serve ``/metrics`` of this worker on ``host:port`` from a daemon thread; returns the port
    (useful when ``port`` is 0: a free one, as tests ask)."""
    from prometheus_client import start_http_server

    server, _thread = start_http_server(port, addr=host, registry=worker_registry())
    bound: int = server.server_address[1]
    return bound
