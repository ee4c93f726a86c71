"""The Starlette application factory: one app per process, state in Redis only."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator

import redis
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from service import bots, logs
from service.errors import ProblemError, handle_problem, problem_response
from service.games import Games
from service.metrics import Metrics, MetricsMiddleware
from service.quotas import ClientAddressMiddleware
from service.settings import Settings, get_settings
from service.store import Store

log = logs.get_logger("atout.app")


async def healthz(request: Request) -> Response:
    """Liveness: the process answers. Never touches Redis, so a Redis outage does not restart pods."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    """Readiness: Redis answers a PING."""
    store: Store = request.app.state.store
    try:
        await store.ping()
    except Exception as exc:  # any failure to reach Redis means "not ready"
        return problem_response(
            ProblemError("unavailable", f"Redis is not reachable: {exc}"), request.url.path
        )
    return JSONResponse({"status": "ready"})


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        error = ProblemError(
            "not_found", f"Nothing at {request.url.path}; the API lives under /v1 and /graphql."
        )
    elif exc.status_code == 405:
        error = ProblemError("method_not_allowed", f"{request.method} is not allowed on {request.url.path}.")
    else:
        error = ProblemError("invalid_request", str(exc.detail))
        error.status = exc.status_code
    return problem_response(error, request.url.path, exc.headers)


async def handle_unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", path=request.url.path)
    error = ProblemError("internal_error", "Something went wrong on our side; the error was logged.")
    return problem_response(error, request.url.path)


def routes(settings: Settings) -> list[BaseRoute]:
    from service import graphql, rest  # these need the engine; imported late so the store works alone

    gql = graphql.graphql_app(settings.graphql_max_depth, settings.graphql_max_cost)
    return [
        Route("/healthz", healthz, include_in_schema=False),
        Route("/readyz", readyz, include_in_schema=False),
        *rest.routes(),
        Route("/graphql", gql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", gql),
    ]


_frozen = False


def _freeze_once() -> None:
    """Freeze the objects of startup once per process (tests create many apps in one process)."""
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        # A request allocates thousands of short-lived objects: collect the young generation
        # every 20,000 allocations rather than every 700.
        gc.set_threshold(20_000, 10, 10)
        _frozen = True


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or get_settings()
    logs.configure(settings.log_json, settings.log_level)
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not settings.redis_url:
            raise RuntimeError("REDIS_URL is not set (`atout serve` starts an embedded redis-server for you)")
        store = Store.from_url(
            settings.redis_url, settings.abandoned_ttl, settings.finished_ttl, settings.idempotency_ttl
        )
        sync_redis = redis.Redis.from_url(settings.redis_url)
        bot_queue = settings.bot_queue

        async def enqueue_bot(game_id: str, version: int, level: str) -> None:
            await run_in_threadpool(bots.enqueue, sync_redis, bot_queue, game_id, version, level)

        app.state.store = store

        async def schedule_timer(game_id: str, version: int, seconds: int) -> None:
            await run_in_threadpool(bots.schedule_timeout, sync_redis, bot_queue, game_id, version, seconds)

        app.state.games = Games(store, settings, metrics, enqueue_bot, schedule_timer)
        # The schemas, models and modules loaded so far live as long as the process: keep them out
        # of every later garbage collection (full collections otherwise cost tens of milliseconds).
        _freeze_once()
        log.info("started", redis=_redact(settings.redis_url))
        try:
            yield
        finally:
            await store.close()
            sync_redis.close()
            log.info("stopped")

    app = Starlette(
        routes=[*routes(settings), Route("/metrics", metrics.endpoint, include_in_schema=False)],
        middleware=[
            Middleware(
                CORSMiddleware,
                allow_origins=[o.strip() for o in settings.cors_origins.split(",") if o.strip()],
                allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
                expose_headers=["Idempotent-Replayed", "Location"],
                max_age=3600,
            ),
            Middleware(MetricsMiddleware, metrics=metrics, access_log=settings.access_log),
            Middleware(ClientAddressMiddleware),  # the creator of a game, for its quota
        ],
        exception_handlers={
            ProblemError: handle_problem,
            HTTPException: handle_http_exception,
            Exception: handle_unexpected,
        },
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    return app


def _redact(url: str) -> str:
    if "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://***@{rest.rpartition('@')[2]}"
