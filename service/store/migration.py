"""Commands refused while a Redis Cluster slot migrates, retried until the slot settles.

While an operator reshards (``redis-cli --cluster reshard``/``rebalance``, or the slot-by-slot
``CLUSTER SETSLOT … IMPORTING/MIGRATING``, ``MIGRATE``, ``SETSLOT … NODE``), a game's keys are for a
while split between two masters. What a command then meets, none of which is a fault of the
command or of the game:

- ``TRYAGAIN`` (``Multiple keys request during rehashing of slot``): a script naming several keys of
  the slot while only some of them have moved; no node can run it until the slot settles;
- ``ASK``: the keys are on the importing node; redis-py follows it for its own commands, but the
  store's replicated writes send ``EVALSHA`` and ``WAIT`` on one connection of their own
  (:meth:`service.store.connection.StoreConnection._write`), which a redirection cannot follow;
- ``MOVED``: the slot settled on another master since the client read the slot map;
- ``Lua script attempted to access a non local key``: a script emptied a key (so Redis deleted it)
  and wrote it again in a migrating slot. Only the pruning scripts of service/games/quotas.py can
  still do so, with no harm (the pruned entries were expired); the log's fold no longer empties it.

redis-py retries ``TRYAGAIN`` sixteen times in about 0.4 s, less than a slow migration of one slot lasts, then
raises it; when the refusal came after an ASK it raises ``ClusterError("TTL exhausted.")`` instead (each try
costs two of its sixteen), which is counted as a refusal here too. :func:`settle` retries the whole call with
a bounded, growing pause until it passes or the time given runs out; the last refusal is then raised, and the
API answers it as 503 ``store_unavailable`` with Retry-After (service/store/faults.py): never a 500.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.exceptions as rx

from service.base.counters import count_redis_error

T = TypeVar("T")

REFUSED_WORDS = ("TRYAGAIN", "ASK ", "MOVED ", "CLUSTERDOWN Hash slot not served")
REFUSED_TEXTS = ("non local key", "during rehashing of slot")

FIRST_PAUSE = 0.02
LONGEST_PAUSE = 0.25
"""Seconds between two tries: growing from 20 ms (a redis-cli reshard moves a slot in milliseconds)
to a quarter of a second (a slow key-by-key migration), with jitter so the writers of one game do
not all come back at once."""


def refused_by_migration(exc: BaseException) -> bool:
    """Whether ``exc`` is a Cluster's refusal of a command during a slot migration (see the module)."""
    if isinstance(exc, (rx.TryAgainError, rx.AskError)):  # MovedError is an AskError
        return True
    if isinstance(exc, rx.ClusterError) and "TTL exhausted" in str(exc):
        return True
    if not isinstance(exc, rx.ResponseError):
        return False
    text = str(exc)
    return text.startswith(REFUSED_WORDS) or any(part in text for part in REFUSED_TEXTS)


async def settle(call: Callable[[], Awaitable[T]], wait_s: float) -> T:
    """``call()``, tried again while a slot migration refuses it, for up to ``wait_s`` seconds in
    all (0: once). Each refusal is counted in ``atout_redis_errors_total{operation="migration"}``."""
    deadline = time.monotonic() + wait_s
    pause = FIRST_PAUSE
    while True:
        try:
            return await call()
        except rx.RedisError as exc:
            if not refused_by_migration(exc):
                raise
            count_redis_error("migration", exc)
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            await asyncio.sleep(min(left, pause * (0.5 + random.random())))
            pause = min(LONGEST_PAUSE, pause * 2)
