"""Prometheus metrics: request counts and latencies by route template, and game counters."""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope


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
            "HTTP request latency by route template and method.",
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
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # several uvicorn workers in one pod: add up what every worker process wrote
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


def route_template(scope: Scope) -> str:
    """The matched route's path template (the router records it in the scope), never the raw path."""
    route = scope.get("route")
    return str(getattr(route, "path", "unmatched")) if route is not None else "unmatched"
