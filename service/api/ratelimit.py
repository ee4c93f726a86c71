"""Rate limits per token and per client address, counted in Redis so every API replica shares them.

Six categories, each with a limit per token (a SHA-256 of the bearer token, never the token itself)
and one per client address; a request must pass both:

- ``create_game``: POST /v1/games and ``createGame`` (``ATOUT_RATE_CREATE_GAME``, ``..._PER_ADDRESS``);
- ``join``: POST /v1/games/{id}/join and ``joinGame`` (``ATOUT_RATE_JOIN``, ...);
- ``act``: POST /v1/games/{id}/actions and ``submitAction`` (``ATOUT_RATE_ACT``, ...);
- ``register_bot``: POST /v1/bots and ``registerBot`` (``ATOUT_RATE_REGISTER_BOT``, ...);
- ``create_player``: POST /v1/players and ``createPlayer`` (``ATOUT_RATE_CREATE_PLAYER``, ...);
- ``open_stream``: the SSE/NDJSON streams and the GraphQL subscriptions (``ATOUT_RATE_OPEN_STREAM``, ...).

Rates are written in the `limits` library's notation (``600/minute``, ``10/second;300/hour``) and
counted in fixed windows aligned on the clock. Why not the library's Redis counting: it costs two
Redis round trips and about a millisecond of the API's CPU on every action, which halved the actions
per second of the whole service (``bench/api.py --ref``). Instead each process counts in memory,
refusing on its own count plus the others' as last read from Redis, and every ``ATOUT_RATE_SYNC_MS``
one round trip adds its new hits to the shared counters (keys expiring with their window) and reads
back their totals; once a second it reads back every counter in use. The counters of one category
and window share a hash tag, so one script call (one Cluster slot, no cross-slot command) adds and
reads them all, however many clients are active. So one process enforces a limit exactly; replicas
together may let a client past it by what it sends within about a second. With Redis down, each
process keeps enforcing its own counts.

Only a token the service issued has a counter of its own: a caller counts a request per token
*after* the token proved to be a seat's, a bot's API key or the administrator's, and every request
counts per address first. A made-up token is just another request of its address, so a flood of
them makes no counters. A process keeps at most ``MAX_COUNTERS`` counters in memory; past that it
forgets the oldest tenth (those with hits not yet synced excepted): a forgotten counter still in use
is read back from Redis on its next hit, so forgetting loses nothing that was synced, and no flood
can switch the limits off for anyone else.

A refusal is 429 ``rate_limited`` with ``Retry-After`` and the ``RateLimit-Limit``,
``RateLimit-Remaining`` and ``RateLimit-Reset`` headers (seconds until the window resets) of the
limit that refused; in GraphQL an error with ``extensions.code`` ``rate_limited`` and ``retry_after``.
A refused request is not counted.

The client address is the ASGI client host, counted per IPv4 address or IPv6 /64
(``service.base.addresses``). Behind a reverse proxy or load balancer, every request would come from the
proxy: name it in ``ATOUT_TRUSTED_PROXIES`` so the address is the one it puts in ``X-Forwarded-For``
(and nobody else's ``X-Forwarded-For`` is believed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse_many
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection

from service.base import logs
from service.base.addresses import address_key
from service.base.counters import count_redis_error
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.store.redis_clients import async_client, run_scripts

CATEGORIES = ("create_game", "join", "act", "register_bot", "create_player", "open_stream")
# How a refusal names them, and a limit's unit (``limits``' granularity): said in the caller's language.
CATEGORY_NAMES = {
    "create_game": Text("create game"),
    "join": Text("join"),
    "act": Text("act"),
    "register_bot": Text("register bot"),
    "create_player": Text("create player"),
    "open_stream": Text("open stream"),
}
UNITS = {
    "second": Text("second"),
    "minute": Text("minute"),
    "hour": Text("hour"),
    "day": Text("day"),
    "month": Text("month"),
    "year": Text("year"),
}
KEY_PREFIX = "atout:ratelimit"
MAX_COUNTERS = 100_000
REFRESH_SECONDS = 1.0
RECENT_SECONDS = 10.0  # a refresh reads back the counters this process hit within this long
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")

# KEYS: counters of one hash tag; ARGV: hits to add, then the expiry time, for each. Returns the totals.
ADD_AND_READ = """
local totals = {}
for i, key in ipairs(KEYS) do
  totals[i] = redis.call('INCRBY', key, ARGV[2 * i - 1])
  redis.call('EXPIREAT', key, ARGV[2 * i])
end
return totals
"""

log = logs.get_logger("atout.ratelimit")


class RateLimits:
    """The limits of one process: counters in memory, synced with Redis in the background."""

    def __init__(self, settings: Settings, max_counters: int = MAX_COUNTERS) -> None:
        self.max_counters = max_counters
        self.enabled = settings.rate_limits and bool(settings.redis_url)
        self.url = settings.redis_url or ""
        self.cluster = settings.redis_cluster
        self.pool_size = settings.redis_pool  # one sync task, but first reads of new counters come in bursts
        self.sync_seconds = settings.rate_sync_ms / 1000
        self.rules: dict[str, tuple[list[RateLimitItem], list[RateLimitItem]]] = {
            category: (
                parse_many(getattr(settings, f"rate_{category}")),
                parse_many(getattr(settings, f"rate_{category}_per_address")),
            )
            for category in CATEGORIES
        }
        self.pending: dict[str, int] = {}  # hits of this process not yet added in Redis
        self.in_flight: dict[str, int] = {}  # hits being added by a sync not yet answered
        self.known: dict[str, int] = {}  # every process's hits, as Redis last told
        self.window_end: dict[str, float] = {}  # the counters in use, until their window ends
        self._client: Any = None
        self._syncer: asyncio.Task[None] | None = None
        self._add_and_read: Any = None
        self._sync_failing = False
        self.last_hit: dict[str, float] = {}  # counter -> when this process last counted a hit on it

    def count(self, key: str) -> int:
        """This process's best count: Redis's last total, plus the hits not in it yet (those waiting
        for the next sync and those a sync is adding right now: leaving the latter out let requests
        arriving during a sync's round trip past the limit)."""
        return self.known.get(key, 0) + self.pending.get(key, 0) + self.in_flight.get(key, 0)

    async def check(self, category: str, token: str | None, address: str | None) -> None:
        """Count one ``category`` request of this (issued) token and of this address, either of which
        may be None; ProblemError 429 over a limit (and then nothing is counted)."""
        if not self.enabled:
            return
        if self._syncer is None:
            self._syncer = asyncio.create_task(self._sync_forever())
        per_token, per_address = self.rules[category]
        now = time.time()
        checks = []
        if address is not None:
            checks += [(item, self._key(item, now, category, "address", address)) for item in per_address]
        if token:
            digest = hashlib.sha256(token.encode()).hexdigest()[:32]
            checks += [(item, self._key(item, now, category, "token", digest)) for item in per_token]
        if len(self.window_end) + len(checks) > self.max_counters:
            self._forget_oldest()
        refused = [(i, key) for i, key in checks if key in self.window_end and self.count(key) >= i.amount]
        unseen = [(item, key) for item, key in checks if key not in self.window_end]
        if unseen and not refused:  # first use in this process (once a window): the replicas' counts
            await self._read_shared([key for _, key in unseen])
            for item, key in unseen:
                period = item.get_expiry()
                self.window_end.setdefault(key, (now // period) * period + period)
            refused = [(item, key) for item, key in checks if self.count(key) >= item.amount]
        if not refused:
            for _, key in checks:
                self.pending[key] = self.pending.get(key, 0) + 1
                self.last_hit[key] = now
            return
        # The limit that frees up last decides when to come back.
        item, key = max(refused, key=lambda pair: self.window_end[pair[1]])
        wait = max(1, math.ceil(self.window_end[key] - now))
        raise ProblemError(
            "rate_limited",
            Text(
                "Too many {category} requests from {whose} (at most {limit}); retry in {wait} s.",
                category=CATEGORY_NAMES[category],
                whose=Text("this address") if ":address:" in key else Text("this token"),
                limit=limit_text(item),
                wait=wait,
            ),
            headers={
                "Retry-After": str(wait),
                "RateLimit-Limit": str(item.amount),
                "RateLimit-Remaining": "0",
                "RateLimit-Reset": str(wait),
            },
        )

    def _forget_oldest(self) -> None:
        """Forget the tenth of the counters first used longest ago (insertion order). Their hits not
        synced yet stay in ``pending`` for the next sync; each is read back from Redis if it is hit
        again."""
        excess = len(self.window_end) - (self.max_counters - self.max_counters // 10)
        for key in list(itertools.islice(self.window_end, excess)):
            del self.window_end[key]
            self.known.pop(key, None)
            self.last_hit.pop(key, None)

    @staticmethod
    def _end_of(key: str) -> int:
        """When a counter's window ends, from its key's hash tag (``{category:<period>s:<start>}``)."""
        _, period, start = key[key.index("{") + 1 : key.index("}")].split(":")
        return int(start) + int(period.rstrip("s"))

    @staticmethod
    def _key(item: RateLimitItem, now: float, category: str, *ids: str) -> str:
        """The counter of ``ids`` for the current fixed window of ``item`` (aligned on the clock); the
        hash tag is the category and window, so a sync touches one slot per tag."""
        period = item.get_expiry()
        tag = f"{category}:{period}s:{int(now // period) * period}"
        return f"{KEY_PREFIX}:{{{tag}}}:{':'.join(ids)}:{item.amount}"

    @staticmethod
    def _by_tag(keys: Any) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for key in keys:
            groups.setdefault(key[key.index("{") : key.index("}")], []).append(key)
        return groups

    def client(self) -> Any:
        if self._client is None:
            self._client = async_client(
                self.url,
                cluster=self.cluster,
                max_connections=self.pool_size,
                pool_wait=2,
                socket_timeout=2,
                decode_responses=False,
            )
        return self._client

    async def _read_shared(self, keys: list[str]) -> None:
        """The shared totals of counters this process has not used yet; with Redis unreachable,
        this process counts from zero (the store's own 503 answers the request anyway)."""
        groups = self._by_tag(keys)
        try:
            async with self.client().pipeline(transaction=False) as pipe:
                for group in groups.values():
                    pipe.execute_command("MGET", *group)  # one slot a group (Cluster pipelines refuse .mget)
                replies = await pipe.execute()
        except RedisError as exc:
            count_redis_error("rate_limit", exc)
            return
        for group, totals in zip(groups.values(), replies, strict=True):
            for key, total in zip(group, totals, strict=True):
                self.known[key] = max(self.known.get(key, 0), int(total or 0))

    async def sync(self, everything: bool = True) -> None:
        """One round trip: add this process's new hits to the shared counters and read their totals
        back; with ``everything`` (a refresh, once a second), also read back every counter this
        process hit in the last ``RECENT_SECONDS`` (``INCRBY`` by 0 reads) and forget the counters
        whose window is over."""
        now = time.time()
        keys = set(self.pending)
        if everything:  # once a second: a scan of every counter costs too much every 50 ms
            for key in [k for k, end in self.window_end.items() if end <= now]:
                del self.window_end[key]
                self.known.pop(key, None)
                self.pending.pop(key, None)
            # Read back the counters this process hit lately, not every one in use: thousands of
            # idle ones (tokens of games long over) made each refresh a long script that held
            # Redis, and every request's tail latency, for milliseconds.
            for key in [k for k, hit in self.last_hit.items() if hit < now - RECENT_SECONDS]:
                del self.last_hit[key]
            keys |= self.last_hit.keys()
        # pending hits are added even for a counter forgotten since (``_forget_oldest``)
        batch = {
            key: self.pending.pop(key, 0) for key in keys if key in self.window_end or key in self.pending
        }
        if not batch:
            return
        groups = self._by_tag(batch)
        client = self.client()
        if self._add_and_read is None:
            self._add_and_read = client.register_script(ADD_AND_READ)
        try:
            ends = {key: self._end_of(key) + 1 for key in batch}
            calls = [
                (self._add_and_read, group, [x for key in group for x in (batch[key], ends[key])])
                for group in groups.values()
            ]
            for key, hits in batch.items():
                self.in_flight[key] = self.in_flight.get(key, 0) + hits
            try:
                replies = await run_scripts(client, calls)
            finally:
                for key, hits in batch.items():
                    left = self.in_flight.get(key, 0) - hits
                    if left > 0:
                        self.in_flight[key] = left
                    else:
                        self.in_flight.pop(key, None)
        except BaseException:
            for key, hits in batch.items():  # counted again at the next sync
                self.pending[key] = self.pending.get(key, 0) + hits
            raise
        for group, totals in zip(groups.values(), replies, strict=True):
            for key, total in zip(group, totals, strict=True):
                if key in self.window_end:
                    self.known[key] = int(total)

    async def _sync_forever(self) -> None:
        rounds = 0
        every = max(1, round(REFRESH_SECONDS / self.sync_seconds))
        while True:
            await asyncio.sleep(self.sync_seconds)
            rounds += 1
            try:
                await self.sync(everything=rounds % every == 0)
            except RedisError as exc:  # each process keeps counting on its own until Redis is back
                count_redis_error("rate_limit", exc)
                if not self._sync_failing:
                    log.warning("rate_limit_sync_failed", error=type(exc).__name__)
                self._sync_failing = True
            else:
                self._sync_failing = False

    async def close(self) -> None:
        syncer, self._syncer = self._syncer, None
        if syncer is not None:
            syncer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await syncer
        if self._client is not None and self.window_end:
            with contextlib.suppress(RedisError, OSError, TimeoutError):
                async with asyncio.timeout(2):  # hand this process's last hits over, if Redis answers
                    await self.sync()
        client, self._client, self._add_and_read = self._client, None, None
        if client is not None:
            await client.aclose()


def client_address(conn: HTTPConnection) -> str:
    """The client's address key: its IPv4 address or IPv6 /64, as a trusted proxy forwarded it."""
    return address_key(conn.client.host) if conn.client else "unknown"


@dataclass(frozen=True)
class Client:
    """Who a request counts against, whatever its transport: its address key and the process's limits.
    REST builds it from the Starlette request, GraphQL once per operation or WebSocket into its context
    (``AtoutGraphQL.get_context``); both then call :func:`rate_limit` and :func:`counted`."""

    address: str
    limits: RateLimits

    @classmethod
    def of(cls, conn: HTTPConnection) -> Client:
        return cls(client_address(conn), conn.app.state.rate_limits)


async def rate_limit(client: Client, category: str, token: str | None = None) -> None:
    """Count one request of ``category`` for the client's address and for ``token``, which the caller
    passes only once the service knows it issued it (see :func:`counted`). Over a limit, ProblemError
    429 ``rate_limited`` with its headers: REST answers it as problem+json, GraphQL as an error with
    ``extensions.code`` ``rate_limited`` and ``retry_after`` (``service.api.problems.problem_error``)."""
    await client.limits.check(category, token, client.address)


@contextlib.asynccontextmanager
async def counted(client: Client, category: str, token: str | None) -> AsyncIterator[None]:
    """Around the lookup that proves ``token`` (a seat's, a bot's, the administrator's): when it does,
    the request counts for its address and the token; when it fails (401, 404), for its address
    alone, and the refusal goes on. A made-up token so never gets a counter of its own."""
    try:
        yield
    except ProblemError:
        await rate_limit(client, category)
        raise
    await rate_limit(client, category, token)


def limit_text(item: RateLimitItem) -> Text:
    """A limit as ``limits`` prints it ("600 per 1 minute"), in the caller's language."""
    unit = item.GRANULARITY.name
    return Text(
        "{amount} per {multiples} {unit}", amount=item.amount, multiples=item.multiples, unit=UNITS[unit]
    )
