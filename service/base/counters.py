"""The process's own Prometheus counters: errors by problem code, Redis faults by where they
happened, bot decision time, fetches of the JWT issuers' keys, webhook messages and deliveries.
Counted where no app is at hand (any
layer); ``service.api.metrics`` serves them with the app's own metrics, and a worker serves them
itself (:func:`serve_worker_metrics`).

With ``PROMETHEUS_MULTIPROC_DIR`` set (``atout serve`` sets it for its uvicorn workers and the workers
it supervises), every process writes its values to files there and the API's ``/metrics`` adds them
all up."""

from __future__ import annotations

from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    start_http_server,
)
from prometheus_client import values as prometheus_values

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
    "worker, streams, rate_limit; migration: a slot migration's refusal, retried) and exception class.",
    ["operation", "error"],
    registry=PROCESS,
)
JWKS_FETCHES = Counter(
    "atout_jwks_fetches",
    "Fetches of a trusted JWT issuer's keys (service/identity/), by issuer and outcome: ok, unreachable, "
    "timeout, status (not 200), too_large, garbage (not a JWKS, or no usable key).",
    ["issuer", "outcome"],
    registry=PROCESS,
)
BOT_DECISION = Histogram(
    "atout_bot_decision_seconds",
    "Time a bot took to choose its move, in the worker, by game and bot level.",
    ["game", "level"],
    registry=PROCESS,
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0),
)

WEBHOOK_MESSAGES = Counter(
    "atout_webhook_messages",
    "Webhook messages enqueued (one per subscribed endpoint), by event type, where the game code emits them.",
    ["event"],
    registry=PROCESS,
)
WEBHOOK_DELIVERIES = Counter(
    "atout_webhook_deliveries",
    "Webhook delivery attempts, in the worker, by event type and outcome: delivered (2xx), retried (failed, "
    "another attempt scheduled), dead (failed its last attempt: dead-lettered), refused (the endpoint's "
    "address is not public, or it is paused: dead-lettered, nothing sent).",
    ["event", "outcome"],
    registry=PROCESS,
)
WEBHOOK_DURATION = Histogram(
    "atout_webhook_delivery_seconds",
    "Time a webhook delivery attempt took (resolution, connection, the receiver's answer), by outcome.",
    ["outcome"],
    registry=PROCESS,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
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


def count_jwks_fetch(issuer: str, outcome: str) -> None:
    """One more fetch of ``issuer``'s JWKS that ended in ``outcome`` (the issuers are the operator's
    list, so the labels are bounded)."""
    JWKS_FETCHES.labels(issuer, outcome).inc()


def observe_bot_decision(game: str, level: str, seconds: float) -> None:
    BOT_DECISION.labels(game, level).observe(seconds)


def count_webhook_message(event: str) -> None:
    WEBHOOK_MESSAGES.labels(event).inc()


def observe_webhook_delivery(event: str, outcome: str, seconds: float) -> None:
    WEBHOOK_DELIVERIES.labels(event, outcome).inc()
    WEBHOOK_DURATION.labels(outcome).observe(seconds)


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

    server, _thread = start_http_server(port, addr=host, registry=worker_registry())
    bound: int = server.server_address[1]
    return bound


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
