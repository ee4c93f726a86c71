"""Redis faults as problems: what a client is told when the store fails (503 with Retry-After),
never redis-py's message, which names the store's internal host and port."""

from __future__ import annotations

import redis.exceptions as rx

from service.base.counters import count_redis_error
from service.base.problems import ProblemError
from service.store.migration import refused_by_migration


def store_fault(exc: BaseException, operation: str = "request") -> ProblemError | None:
    """The client's answer when Redis fails, or None when ``exc`` is not a Redis fault.

    One place for every path (REST, GraphQL, probes, workers): the answer never carries redis-py's
    message, which names the store's internal host and port. A fault is counted in
    ``atout_redis_errors_total`` under ``operation`` (request, graphql, edge, probe, worker; the
    stream readers and the rate limiter count theirs as streams and rate_limit).
    """
    fault = _fault(exc)
    if fault is not None:
        count_redis_error(operation, exc)
    return fault


def _fault(exc: BaseException) -> ProblemError | None:

    if isinstance(exc, rx.OutOfMemoryError) or (
        isinstance(exc, rx.ResponseError) and "OOM command not allowed" in str(exc)
    ):
        return ProblemError(
            "server_full",
            "The game store is full and accepts no new data for now; finish or leave a game, or retry later.",
            headers={"Retry-After": "30"},
        )
    if isinstance(exc, rx.MaxConnectionsError):
        return ProblemError(
            "server_full",
            "Every connection to the game store is busy; retry shortly.",
            headers={"Retry-After": "1"},
        )
    transient = ("LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "READONLY")
    # a slot migration that did not settle within ATOUT_REDIS_MIGRATION_WAIT_MS (service/store/migration.py)
    if (
        isinstance(exc, (rx.ConnectionError, rx.TimeoutError, rx.ReadOnlyError))
        or (isinstance(exc, rx.ResponseError) and str(exc).startswith(transient))
        or refused_by_migration(exc)
    ):
        return ProblemError(
            "store_unavailable",
            "The game store cannot be reached right now; retry after the delay in Retry-After (a move "
            "with the same Idempotency-Key, so it is applied at most once).",
            headers={"Retry-After": "2"},
        )
    return None
