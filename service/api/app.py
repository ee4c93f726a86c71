"""The Starlette application factory: one app per process, state in Redis only."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import redis
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from service.api import docs_pages, graphql, problem_types, rest
from service.api.edge import BrowserCORS, EdgeMiddleware
from service.api.metrics import serve as serve_metrics
from service.api.problems import handle_problem, problem_response
from service.api.ratelimit import RATE_LIMIT_HEADERS, RateLimits
from service.api.rest.requests import bearer, games_of
from service.base import logs
from service.base.counters import Metrics
from service.base.problems import ProblemError
from service.base.settings import Settings, get_settings
from service.base.texts import Text
from service.games import Games, build_games
from service.identity import IdentityVerifier
from service.store import Store
from service.store.fanout import Fanout
from service.store.faults import store_fault
from service.store.webhooks import WebhookMessage
from workers.jobs.queue import enqueue, queue_connection, schedule_timeout, worker_health
from workers.jobs.tournaments import schedule_check
from workers.jobs.webhook_queue import enqueue_delivery

Endpoint = Callable[[Request], Awaitable[Response]]

SHUTDOWN_STEP_SECONDS = 10.0
"""Longest wait for one step of the API's shutdown (the streams hub, the store, the rate limits)."""

log = logs.get_logger("atout.app")


async def healthz(request: Request) -> Response:
    """Liveness: the process answers. Never touches Redis, so a Redis outage does not restart pods."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    """Readiness reflects the API's own dependency only: Redis answers a PING (else 503). The bot
    workers' heartbeats are reported in the body, and a missing or stale worker makes it say
    ``"status": "degraded"`` with a 200: a dead worker must not pull every API replica out of its
    load balancer (humans can still play; the supervisor or the orchestrator restarts workers)."""
    store: Store = request.app.state.store
    settings: Settings = request.app.state.settings
    try:
        await store.ping()
        workers = await run_in_threadpool(
            worker_health, request.app.state.sync_redis, settings.bot_queue, settings.worker_ttl
        )
    except Exception as exc:  # any failure to reach Redis means "not ready"; its text names internal hosts
        error = store_fault(exc, "probe") or ProblemError(
            "store_unavailable", "The game store does not answer.", headers={"Retry-After": "2"}
        )
        if error.code != "store_unavailable":
            error = ProblemError("store_unavailable", error.text, headers=error.headers)
        log.warning("not_ready", error=type(exc).__name__)
        return problem_response(error, request.url.path)
    status = "ready" if workers["status"] == "ok" else "degraded"
    return JSONResponse({"status": status, "store": "ok", "workers": workers})


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        error = ProblemError(
            "not_found",
            Text("Nothing at {path}; the API lives under /v1 and /graphql.", path=request.url.path),
        )
    elif exc.status_code == 405:
        error = ProblemError(
            "method_not_allowed",
            Text("{method} is not allowed on {path}.", method=request.method, path=request.url.path),
        )
    else:
        error = ProblemError("invalid_request", Text.verbatim(str(exc.detail)))
        error.status = exc.status_code
    return problem_response(error, request.url.path, exc.headers)


async def handle_store_fault(request: Request, exc: Exception) -> Response:
    """Redis down, restarting, full or out of connections: a 503 with Retry-After, never a 500 (whose
    re-raised exception makes the server drop the connection) and never redis-py's message."""
    error = store_fault(exc)
    if error is None:
        return await handle_unexpected(request, exc)
    log.warning("store_fault", path=request.url.path, error=type(exc).__name__, code=error.code)
    return problem_response(error, request.url.path)


CLIENT_CLOSED = 499
"""The status counted (``atout_http_requests_total``) for a request whose client left before its answer
(nginx's 499): not a 5xx of ours, and never sent."""


async def handle_client_closed(request: Request, exc: Exception) -> Response:
    """The client cut its upload short or left mid-request: a client abort, logged in one line with no
    traceback (a flood of aborted uploads must not read as our errors, in the log or in 5xx alerts)."""
    log.info("client_closed", path=request.url.path, method=request.method)
    return Response(status_code=CLIENT_CLOSED)


async def handle_unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled_error", path=request.url.path)
    error = ProblemError("internal_error", "Something went wrong on our side; the error was logged.")
    return problem_response(error, request.url.path)


def metrics_endpoint(metrics: Metrics, settings: Settings) -> Endpoint:
    """``/metrics``, or with ``ATOUT_METRICS_ADMIN_ONLY`` the same for the administrator token alone:
    the figures name routes, queue depths and error codes, which an operator may keep to itself."""

    async def public_metrics(request: Request) -> Response:
        return await serve_metrics(metrics, request)

    if not settings.metrics_admin_only:
        return public_metrics

    async def admin_metrics(request: Request) -> Response:
        if not games_of(request).credentials.is_admin(bearer(request)):
            raise ProblemError("admin_required", "/metrics answers the administrator token only here.")
        return await serve_metrics(metrics, request)

    return admin_metrics


def routes(settings: Settings) -> list[BaseRoute]:

    gql = graphql.graphql_app(settings)
    return [
        Route("/healthz", healthz, include_in_schema=False),
        Route("/readyz", readyz, include_in_schema=False),
        *rest.routes(),
        *docs_pages.routes(),
        *problem_types.routes(),
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
    """The API: its routes, its middleware and a lifespan that opens the store, the bot, timer, webhook
    and tournament queues, the stream hub and the identity verifier, and closes each, bounded."""
    settings = settings or get_settings()
    logs.configure(settings.log_json, settings.log_level)
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not settings.redis_url:
            raise RuntimeError("REDIS_URL is not set (`atout serve` starts an embedded redis-server for you)")
        store = Store.from_settings(
            settings,
            socket_timeout=settings.sse_block_ms / 1000 + 5,  # a hung Redis: 503 after this, not 60 s
            max_connections=settings.redis_pool,
            pool_wait=settings.redis_pool_wait,
        )
        sync_redis = queue_connection(settings)
        app.state.sync_redis, app.state.store = sync_redis, store
        app.state.games = games = wired_games(store, settings, metrics, sync_redis)
        app.state.streams = streams = await started_streams(settings, metrics)
        games.events.use_streams(streams)
        identities = IdentityVerifier(settings)  # players' JWTs: keys fetched now, kept per issuer
        games.credentials.use_identities(identities)
        if identities.configured:
            await identities.prefetch()
        # The schemas, models and modules loaded so far live as long as the process: keep them out
        # of every later garbage collection (full collections otherwise cost tens of milliseconds).
        _freeze_once()
        log.info("started", redis=_redact(settings.redis_url))
        try:
            yield
        finally:
            steps = (
                ("streams", streams.stop),
                ("store", store.close),
                ("rate_limits", app.state.rate_limits.close),
                ("identities", identities.aclose),
            )
            await close_bounded(steps)
            sync_redis.close()
            log.info("stopped")

    app = Starlette(
        routes=[
            *routes(settings),
            Route("/metrics", metrics_endpoint(metrics, settings), include_in_schema=False),
        ],
        middleware=middleware(settings, metrics),
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.rate_limits = RateLimits(settings)
    app.state.metrics = metrics
    return app


def wired_games(store: Store, settings: Settings, metrics: Metrics, sync_redis: redis.Redis) -> Games:
    """The API process's :class:`Games` (built by :func:`service.games.build_games`), its bot turns, turn
    timers, webhook deliveries and tournament checks enqueued on RQ (through the synchronous client
    ``sync_redis``, off the event loop)."""
    bot_queue = settings.bot_queue

    async def enqueue_bot(game_id: str, version: int, level: str) -> None:
        await run_in_threadpool(enqueue, sync_redis, bot_queue, game_id, version, level)

    async def schedule_timer(game_id: str, version: int, seconds: int, remind_in: int | None) -> None:
        await run_in_threadpool(schedule_timeout, sync_redis, bot_queue, game_id, version, seconds, remind_in)

    async def enqueue_webhook(message: WebhookMessage) -> None:
        await run_in_threadpool(enqueue_delivery, sync_redis, settings, message)

    async def enqueue_tournament(tournament_id: str) -> None:
        seconds = settings.tournament_poll_seconds
        await run_in_threadpool(schedule_check, sync_redis, bot_queue, tournament_id, seconds)

    return build_games(
        store,
        settings,
        metrics,
        enqueue_bot=enqueue_bot,
        schedule_timer=schedule_timer,
        enqueue_webhook=enqueue_webhook,
        enqueue_tournament=enqueue_tournament,
    )


async def started_streams(settings: Settings, metrics: Metrics) -> Fanout:
    """The process's stream hub, started: streams read through it with a Redis pool of its own, so they
    never hold a request's connection."""
    assert settings.redis_url  # the lifespan refused to start without one
    streams = Fanout.from_url(
        settings.redis_url,
        settings.stream_pool,
        readers=settings.stream_readers,
        queue_size=settings.stream_queue,
        per_client=settings.streams_per_client,
        per_process=settings.streams_per_process,
        cluster=settings.redis_cluster,
        poll_ms=settings.stream_poll_ms,
    )
    streams.gauge = metrics.open_streams
    await streams.start()
    return streams


async def close_bounded(steps: tuple[tuple[str, Callable[[], Awaitable[Any]]], ...]) -> None:
    """Each shutdown step bounded: a shutdown that waits forever on one of them (seen once in a full
    test run, cause not found) would keep a replica from ever leaving; close what the others hold."""
    for name, step in steps:
        try:
            await asyncio.wait_for(step(), SHUTDOWN_STEP_SECONDS)
        except TimeoutError:
            log.warning("shutdown_step_timed_out", step=name, seconds=SHUTDOWN_STEP_SECONDS)


def middleware(settings: Settings, metrics: Metrics) -> list[Middleware]:
    """CORS for the origins allowed (for a browser's request: one with an Origin), then the edge: request
    id, metrics, client address, input limits, Redis faults outside the routes, and the ``Vary: Origin``
    CORS adds to the others (one layer)."""
    cors = Middleware(
        BrowserCORS,
        allow_origins=[o.strip() for o in settings.cors_origins.split(",") if o.strip()],
        allow_methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],  # PATCH: updateWebhook
        allow_headers=[
            "Authorization",
            "Content-Type",
            "Idempotency-Key",
            "If-None-Match",  # revalidating a cached game or view (service/api/rest/caching.py)
            "Last-Event-ID",
            "X-Request-ID",
        ],
        expose_headers=[
            "Deprecation",  # a deprecated operation's answers (service/api/rest/deprecation.py)
            "ETag",
            "Idempotent-Replayed",
            "Link",
            "Location",
            "Retry-After",
            "Sunset",
            "X-Request-ID",
            *RATE_LIMIT_HEADERS,
        ],
        max_age=3600,
    )
    edge = Middleware(
        EdgeMiddleware,
        metrics=metrics,
        access_log=settings.access_log,
        max_body_bytes=settings.max_body_bytes,
        body_timeout=settings.body_timeout,
        ws_per_address=settings.ws_connections_per_address,
        ws_messages_per_second=settings.ws_messages_per_second,
        vary_origin=True,
    )
    return [cors, edge]


EXCEPTION_HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    ProblemError: handle_problem,
    ClientDisconnect: handle_client_closed,
    HTTPException: handle_http_exception,
    redis.RedisError: handle_store_fault,
    Exception: handle_unexpected,
}


def _redact(url: str) -> str:
    if "@" not in url:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://***@{rest.rpartition('@')[2]}"
