"""Rate limits per token and per client address, counted in Redis so every API replica shares them.

Counting is the `limits` library's (its asyncio Redis storage on redis-py, in the same Redis as the
store, under ``atout:ratelimit``). Five categories, each with a limit per token (a SHA-256 of the
bearer token, never the token itself) and one per client address; a request must pass both:

- ``create_game``: POST /v1/games and ``createGame`` (``ATOUT_RATE_CREATE_GAME``, ``..._PER_ADDRESS``);
- ``join``: POST /v1/games/{id}/join and ``joinSeat`` (``ATOUT_RATE_JOIN``, ...);
- ``act``: POST /v1/games/{id}/actions and ``submitAction`` (``ATOUT_RATE_ACT``, ...);
- ``register_bot``: POST /v1/bots and ``registerBot`` (``ATOUT_RATE_REGISTER_BOT``, ...);
- ``open_stream``: the SSE/NDJSON streams and the GraphQL subscriptions (``ATOUT_RATE_OPEN_STREAM``, ...).

A refusal is 429 ``rate_limited`` with ``Retry-After`` and the ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` headers (seconds until the window resets) of the
limit that refused; in GraphQL an error with ``extensions.code`` ``rate_limited`` and ``retry_after``.

The client address is the ASGI client host. Behind a reverse proxy or load balancer, every request
would come from the proxy: run uvicorn with ``--proxy-headers --forwarded-allow-ips=<proxy>`` so the
address is the one in ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from typing import Any

import redis.asyncio as aioredis
from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisStorage
from limits.aio.strategies import (
    FixedWindowRateLimiter,
    MovingWindowRateLimiter,
    RateLimiter,
    SlidingWindowCounterRateLimiter,
)
from starlette.requests import HTTPConnection

from service.errors import ProblemError
from service.settings import Settings

CATEGORIES = ("create_game", "join", "act", "register_bot", "open_stream")
STRATEGIES: dict[str, type[RateLimiter]] = {
    "fixed-window": FixedWindowRateLimiter,
    "moving-window": MovingWindowRateLimiter,
    "sliding-window-counter": SlidingWindowCounterRateLimiter,
}
KEY_PREFIX = "atout:ratelimit"
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
_FROM_HEADER = object()


def _storage_uri(url: str) -> str:
    """The `limits` spelling of a redis-py URL (``async+redis://``, ``async+redis+unix://``)."""
    if url.startswith("unix://"):
        return "async+redis+" + url
    return "async+" + url


class RateLimits:
    """The limits of one process; the counters live in Redis. The connection pool is made in the
    running event loop on first use and closed with the application (``close``)."""

    def __init__(self, settings: Settings) -> None:
        self.enabled = settings.rate_limits and bool(settings.redis_url)
        self.url = settings.redis_url or ""
        self.strategy_name = settings.rate_strategy
        self.strategy = STRATEGIES[settings.rate_strategy]
        self.rules: dict[str, tuple[list[RateLimitItem], list[RateLimitItem]]] = {
            category: (
                parse_many(getattr(settings, f"rate_{category}")),
                parse_many(getattr(settings, f"rate_{category}_per_address")),
            )
            for category in CATEGORIES
        }
        self.max_connections = 64  # per process; a check holds one for a single round trip
        self._pool: aioredis.ConnectionPool | None = None
        self._limiter: RateLimiter | None = None

    def limiter(self) -> RateLimiter:
        if self._limiter is None:
            from redis.asyncio.retry import Retry
            from redis.backoff import ExponentialBackoff
            from redis.exceptions import ConnectionError

            # Like the store's client: fail fast (503 from the store-fault handler) when Redis is
            # down, and recover by itself on a fresh connection when it is back. A burst of requests
            # waits for one of the pool's connections instead of failing with "too many connections".
            self._pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                max_connections=self.max_connections,
                timeout=5,
                socket_timeout=5,
                socket_connect_timeout=2,
                socket_keepalive=True,
                health_check_interval=5,
                retry=Retry(
                    ExponentialBackoff(cap=0.2, base=0.02), retries=2, supported_errors=(ConnectionError,)
                ),
            )
            storage = RedisStorage(
                _storage_uri(self.url),
                implementation="redispy",
                # Per strategy: each keeps another Redis type under its keys (a counter, a list), so a
                # change of ATOUT_RATE_STRATEGY must not meet the other's keys.
                key_prefix=f"{KEY_PREFIX}:{self.strategy_name}",
                connection_pool=self._pool,  # type: ignore[arg-type]
            )
            self._limiter = self.strategy(storage)
        return self._limiter

    async def close(self) -> None:
        pool, self._pool, self._limiter = self._pool, None, None
        if pool is not None:
            await pool.disconnect()

    async def check(self, category: str, token: str | None, address: str) -> None:
        """Count one ``category`` request of this token and address; ProblemError 429 over a limit."""
        if not self.enabled:
            return
        per_token, per_address = self.rules[category]
        checks: list[tuple[RateLimitItem, tuple[str, ...]]] = [
            (item, (category, "address", address)) for item in per_address
        ]
        if token:
            digest = hashlib.sha256(token.encode()).hexdigest()[:32]
            checks += [(item, (category, "token", digest)) for item in per_token]
        limiter = self.limiter()
        allowed = await asyncio.gather(*(limiter.hit(item, *ids) for item, ids in checks))
        refused = [check for check, ok in zip(checks, allowed, strict=True) if not ok]
        if not refused:
            return
        stats = await asyncio.gather(*(limiter.get_window_stats(item, *ids) for item, ids in refused))
        now = time.time()
        # The limit that frees up last decides when to come back.
        (item, ids), window = max(zip(refused, stats, strict=True), key=lambda pair: pair[1].reset_time)
        wait = max(1, math.ceil(window.reset_time - now))
        whose = "this token" if ids[1] == "token" else "this address"
        raise ProblemError(
            "rate_limited",
            f"Too many {category.replace('_', ' ')} requests from {whose} (at most {item}); "
            f"retry in {wait} s.",
            headers={
                "Retry-After": str(wait),
                "RateLimit-Limit": str(item.amount),
                "RateLimit-Remaining": "0",
                "RateLimit-Reset": str(wait),
            },
        )


def client_address(conn: HTTPConnection) -> str:
    """The ASGI client host (the proxy's unless uvicorn runs with --proxy-headers)."""
    return conn.client.host if conn.client else "unknown"


def _lenient_bearer(conn: HTTPConnection) -> str | None:
    scheme, _, token = conn.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def rate_limit(conn: HTTPConnection, category: str, token: Any = _FROM_HEADER) -> None:
    """REST: count one request of ``category``; ``token`` defaults to the bearer token, if any."""
    limits: RateLimits = conn.app.state.rate_limits
    if token is _FROM_HEADER:
        token = _lenient_bearer(conn)
    await limits.check(category, token, client_address(conn))


async def rate_limit_graphql(info: Any, category: str, token: Any = _FROM_HEADER) -> None:
    """GraphQL: the same count (``token`` defaults to the bearer token of the HTTP request, if any);
    over a limit, an error with ``extensions.code`` ``rate_limited`` and ``retry_after`` (seconds,
    as the other 429s of GraphQL carry it)."""
    from service.graphql import problem_error  # graphql.py calls this module

    conn: HTTPConnection = info.context["request"]
    if token is _FROM_HEADER:
        token = _lenient_bearer(conn)
    try:
        await conn.app.state.rate_limits.check(category, token, client_address(conn))
    except ProblemError as error:
        error.extra["retry_after"] = int(error.headers["Retry-After"])
        raise problem_error(error) from None
