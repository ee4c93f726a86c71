"""One reader per group of followed streams, fanning out to every subscriber in this process.

Why: an SSE stream or a GraphQL subscription used to run its own ``XREAD BLOCK`` on the store's
client, holding one pooled connection for as long as it was open; about a hundred of them (no login
needed) emptied the pool and every other request failed. Here streams never touch the connections
requests use:

- the hub has its own Redis client and pool (``stream_pool``), a budget of its own;
- a fixed number of reader tasks (``stream_readers``) each run one ``XREAD BLOCK`` naming every
  stream key of its group, whatever the number of subscribers (a key is in the group of its hash
  slot, so the keys of one game, which share the tag ``{game-id}``, always go together; on a Redis
  Cluster, where one XREAD may only name keys of one slot, a reader issues one XREAD per slot);
- what a reader reads goes to every subscriber of that key through a bounded queue (``stream_queue``
  entries). ``put_nowait`` never waits, so a subscriber that falls that far behind cannot slow
  anybody else: it is dropped and its stream ends with :class:`StreamLagged`, which carries its last
  delivered id; the client resumes from there (Last-Event-ID / ``after``), so nothing is lost.

A subscriber first reads what it missed (``XRANGE`` after its own cursor) and only then consumes its
queue, skipping ids it has already seen: the queue gets every entry after the key's read cursor at
the time the subscriber registered, the catch-up everything up to at least that cursor, so the union
has no gap and the skip removes the overlap.

Admission (:meth:`Fanout.admit`) caps the open streams per client (its token, else its address) and
per process, with a refusal that says when to retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import Counter
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from redis.crc import key_slot
from redis.exceptions import RedisError

from service.base import logs
from service.base.counters import count_redis_error
from service.base.problems import ProblemError
from service.base.texts import Text
from service.store.redis_clients import async_client, hash_reply

log = logs.get_logger("atout.fanout")

Entry = tuple[str, dict[str, str]]  # a stream id and its fields
RETRY_AFTER_SECONDS = 10  # a refused stream: long-lived streams free slots slowly
CATCH_UP_PAGE = 500
DEFAULT_BLOCK_MS = 10_000  # a reader's XREAD BLOCK; new keys interrupt it at once
DEFAULT_POLL_MS = 50  # on a Cluster, an idle reader polls (pipelined, one round trip per node) this often


class StreamLagged(Exception):
    """The subscriber fell ``stream_queue`` entries behind and was dropped; resume after ``last_id``."""

    def __init__(self, last_id: str) -> None:
        super().__init__(f"the stream fell too far behind; resume after {last_id}")
        self.last_id = last_id


class StreamGap(StreamLagged):
    """The events right after the reader's cursor are no longer kept, so no resume can be gapless:
    ``code`` is ``stream_window_passed`` (a match keeps only its last events,
    service/store/retention.py) or ``events_expired`` (a finished match's stream is gone). The reader
    resyncs from the game's view, then follows after ``last_id`` (the newest event when it was told),
    skipping events whose version its view already has. A subclass of :class:`StreamLagged`, so every
    stream that handles a lagged reader ends with an answer rather than an error."""

    def __init__(self, code: str, detail: Text, last_id: str) -> None:
        super().__init__(last_id)
        self.args = (str(detail),)
        self.code = code
        self.detail = detail


def stream_id(eid: str) -> tuple[int, int]:
    """A stream id as a pair that orders like Redis does (``"12-3"`` → ``(12, 3)``)."""
    ms, _, seq = eid.partition("-")
    return int(ms), int(seq or 0)


def client_key(token: str | None, address: str | None) -> str:
    """Who a stream is counted against: its token (hashed, never kept in clear), else its address."""
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return "address:" + (address or "unknown")


class StreamSlot:
    """One admitted stream; releasing it (once) frees its place in the caps.

    Used as a context manager around the stream's body; if the body never starts (the client left
    before the first byte), dropping the slot releases it.
    """

    def __init__(self, hub: Fanout, client: str) -> None:
        self._hub: Fanout | None = hub
        self.client = client

    def release(self) -> None:
        hub, self._hub = self._hub, None
        if hub is not None:
            hub._release(self.client)

    def __enter__(self) -> StreamSlot:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


class StreamClosing(StreamLagged):
    """This server is stopping (SIGTERM, a rolling update): the reader reconnects after a second with
    its last event id, and another replica resumes the stream without a gap."""


_LAGGED: Any = object()  # queued after a dropped subscriber's queue is emptied, to wake it
_CLOSING: Any = object()  # queued to every subscriber when the server stops


@dataclass(eq=False)
class _Subscriber:
    queue: asyncio.Queue[Entry]
    lagged: bool = False


@dataclass(eq=False)
class _Followed:
    """A stream key followed by at least one subscriber of this process."""

    key: str
    cursor: tuple[int, int]  # the last id read for it (or that existed when it was first followed)
    group: int
    subscribers: set[_Subscriber] = field(default_factory=set)

    def push(self, entry: Entry) -> list[_Subscriber]:
        """Queue ``entry`` for every subscriber; returns those that had no room (now dropped)."""
        dropped = []
        for sub in self.subscribers:
            try:
                sub.queue.put_nowait(entry)
            except asyncio.QueueFull:
                dropped.append(sub)
        for sub in dropped:
            self.subscribers.discard(sub)
            sub.lagged = True
            while not sub.queue.empty():
                sub.queue.get_nowait()
            sub.queue.put_nowait(_LAGGED)
        return dropped


class Fanout:
    """The hub of one process: readers, subscribers and the caps on open streams."""

    def __init__(
        self,
        client: Any,  # a redis.asyncio Redis or RedisCluster (service/store/redis_clients.py)
        *,
        readers: int = 4,
        queue_size: int = 256,
        per_client: int = 32,
        per_process: int = 5000,
        block_ms: int = DEFAULT_BLOCK_MS,
        cluster: bool = False,
        poll_ms: int = DEFAULT_POLL_MS,
    ) -> None:
        # redis-py's return types are unions of bytes and str; the client decodes responses to str.
        self.client: Any = client
        self.readers = readers
        self.queue_size = queue_size
        self.per_client = per_client
        self.per_process = per_process
        self.block_ms = block_ms
        self.cluster = cluster
        self.poll_seconds = poll_ms / 1000
        self._followed: dict[str, _Followed] = {}
        self._wakes = [asyncio.Event() for _ in range(readers)]
        self._tasks: list[asyncio.Task[None]] = []
        self._open: Counter[str] = Counter()
        self.open_streams = 0
        self.gauge: Any = None  # atout_open_streams (service/api/metrics.py), set by the app
        self.dropped = 0  # subscribers ended for falling behind, since start
        self.closing = False  # the server is stopping (server_closing)

    @classmethod
    def from_url(cls, url: str, pool_size: int, **options: Any) -> Fanout:
        """A hub on a client of its own: at most ``pool_size`` connections, waited for when all are
        busy (a stream may wait a moment; it never takes a connection from requests)."""
        # a read outlasts the longest XREAD BLOCK by 5 s: a hung Redis stalls the streams no longer
        block_seconds = int(options.get("block_ms", DEFAULT_BLOCK_MS)) / 1000
        client = async_client(
            url,
            cluster=bool(options.get("cluster")),
            max_connections=pool_size,
            pool_wait=20,
            socket_timeout=block_seconds + 5,
            socket_connect_timeout=5,
        )
        # every reader holds a connection while it blocks: leave at least one for catch-up reads
        options["readers"] = max(1, min(int(options.get("readers", 4)), pool_size - 1))
        return cls(client, **options)

    # --- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._read(group)) for group in range(self.readers)]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)  # bounded: shutdown never hangs on a reader
        self._tasks = []
        await self.client.aclose()

    # --- admission ----------------------------------------------------------------------------

    def admit(self, client: str) -> StreamSlot:
        """A place for one more stream of ``client``, or the refusal: 503 ``server_full`` when this
        process holds its maximum, 429 ``too_many_streams`` when this client does."""
        retry = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        if self.open_streams >= self.per_process:
            full = Text(
                "This server holds its maximum of {most} open streams; retry later.", most=self.per_process
            )
            raise ProblemError("server_full", full, headers=retry)
        if self._open[client] >= self.per_client:
            raise ProblemError(
                "too_many_streams",
                Text(
                    "You have {count} streams open, the most allowed; close one (a bot account "
                    "has one stream for all its games: GET /v1/bots/me/stream).",
                    count=self.per_client,
                ),
                headers=retry,
                limit=self.per_client,
            )
        self._open[client] += 1
        self.open_streams += 1
        if self.gauge is not None:
            self.gauge.inc()
        return StreamSlot(self, client)

    def _release(self, client: str) -> None:
        self.open_streams -= 1
        if self.gauge is not None:
            self.gauge.dec()
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    def streams_of(self, client: str) -> int:
        return self._open[client]

    @property
    def followed(self) -> int:
        """Stream keys followed by this process (each read once, whatever its subscribers)."""
        return len(self._followed)

    # --- subscribing --------------------------------------------------------------------------

    def group_of(self, key: str) -> int:
        return key_slot(key.encode()) % self.readers

    async def entries(self, key: str, after: str, count: int = CATCH_UP_PAGE) -> list[Entry]:
        """The entries of ``key`` after the id ``after`` (exclusive), oldest first, on the hub's pool."""
        start = f"({after}" if after != "0-0" else "-"
        entries: list[Entry] = await self.client.xrange(key, min=start, count=count)
        return entries

    async def follow(
        self, key: str, after: str, idle_seconds: float
    ) -> AsyncGenerator[list[Entry] | None, None]:
        """Every entry of the stream ``key`` after the id ``after``, then the new ones as they come,
        without end, in batches (what was read together: one write to the client instead of one per
        event); ``None`` after ``idle_seconds`` without any (the caller may check that what it
        follows still exists). Raises :class:`StreamLagged` when the subscriber fell behind."""
        if self.closing:
            raise StreamClosing(after)
        sub = _Subscriber(asyncio.Queue(self.queue_size))
        followed = self._followed.get(key)
        if followed is None:
            newest = await self.client.xrevrange(key, count=1)
            last = stream_id(newest[0][0]) if newest else (0, 0)
            followed = self._followed.get(key)  # another subscriber may have come meanwhile
            if followed is None:
                followed = _Followed(key, last, self.group_of(key))
                self._followed[key] = followed
                self._wakes[followed.group].set()
        followed.subscribers.add(sub)
        cursor = after
        try:
            while True:
                page = await self.entries(key, cursor)
                if page:
                    cursor = page[-1][0]
                    yield page
                if len(page) < CATCH_UP_PAGE:
                    break
            seen = stream_id(cursor)
            while True:
                try:
                    async with asyncio.timeout(idle_seconds):
                        first = await sub.queue.get()
                except TimeoutError:
                    yield None
                    continue
                queued = [first]
                while not sub.queue.empty():
                    queued.append(sub.queue.get_nowait())
                if _CLOSING in queued:
                    raise StreamClosing(cursor)
                if sub.lagged:  # the queue was emptied, and _LAGGED queued, when it overflowed
                    self.dropped += 1
                    raise StreamLagged(cursor)
                batch = []
                for entry in queued:
                    eid = stream_id(entry[0])
                    if eid > seen:  # not already read in the catch-up
                        seen = eid
                        batch.append(entry)
                if batch:
                    cursor = batch[-1][0]
                    yield batch
        finally:
            followed.subscribers.discard(sub)
            if not followed.subscribers and self._followed.get(key) is followed:
                del self._followed[key]

    def server_closing(self) -> None:
        """The server is stopping: every subscriber's stream ends (:class:`StreamClosing`) once it
        has what was already queued for it; streams opened from now on end at once. Idempotent."""
        self.closing = True
        for followed in self._followed.values():
            for sub in followed.subscribers:
                with contextlib.suppress(asyncio.QueueFull):  # a full queue: it lags out instead
                    sub.queue.put_nowait(_CLOSING)

    # --- reading ------------------------------------------------------------------------------

    def calls(self, streams: dict[str, str]) -> list[dict[str, str]]:
        """The XREADs that read ``streams``: one, or on a Cluster one per hash slot."""
        if not self.cluster:
            return [streams] if streams else []
        by_slot: dict[int, dict[str, str]] = {}
        for key, cursor in streams.items():
            by_slot.setdefault(key_slot(key.encode()), {})[key] = cursor
        return list(by_slot.values())

    async def _read(self, group: int) -> None:
        """One reader: XREAD BLOCK every followed key of its group, until a key joins the group
        (then the read is cancelled and issued again with it) or entries come."""
        wake = self._wakes[group]
        failures = 0
        while True:
            wake.clear()
            streams = {f.key: "{}-{}".format(*f.cursor) for f in self._followed.values() if f.group == group}
            if not streams:
                await wake.wait()
                continue
            if self.cluster:
                if not await self._poll(streams, wake):
                    failures += 1
                    await asyncio.sleep(min(5.0, 0.1 * 2**failures))
                else:
                    failures = 0
                continue
            read = asyncio.ensure_future(self._xread(streams))
            woken = asyncio.ensure_future(wake.wait())
            try:
                await asyncio.wait({read, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                woken.cancel()
                if not read.done():
                    read.cancel()  # redis-py drops the connection of a cancelled read; nothing is lost
                    # wait() never raises the read's own error, while a cancel of this reader (stop)
                    # still propagates: suppressing CancelledError here once swallowed it, and stop hung
                    await asyncio.wait({read})
            if read.cancelled():
                continue
            try:
                reply = read.result()
            except RedisError as exc:
                failures += 1
                count_redis_error("streams", exc)
                log.warning("stream_read_failed", error=type(exc).__name__, attempt=failures)
                await asyncio.sleep(min(5.0, 0.1 * 2**failures))
                continue
            failures = 0
            self._dispatch(reply)

    async def _xread(self, streams: dict[str, str]) -> list[Any]:
        return list(await self.client.xread(streams, count=100, block=self.block_ms) or [])

    async def _poll(self, streams: dict[str, str], wake: asyncio.Event) -> bool:
        """On a Cluster: one XREAD per hash slot without BLOCK, pipelined (a round trip per node),
        then, if nothing came, a pause of ``poll_ms`` that a new key cuts short. A read
        is never cancelled half-way there: redis-py's cluster client can hand a connection whose
        reply was abandoned to the next command. False when the read failed."""
        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for call in self.calls(streams):
                    pipe.execute_command("XREAD", "COUNT", 100, "STREAMS", *call.keys(), *call.values())
                replies = await pipe.execute()
        except RedisError as exc:
            count_redis_error("streams", exc)
            log.warning("stream_read_failed", error=type(exc).__name__)
            return False
        reply = [item for answer in replies for item in _stream_reply(answer)]
        if reply:
            self._dispatch(reply)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self.poll_seconds)
        return True

    def _dispatch(self, reply: list[Any]) -> None:
        for key, entries in reply:
            followed = self._followed.get(key)
            if followed is None:
                continue  # its last subscriber left while the read was under way
            for eid, fields in entries:
                parsed = stream_id(eid)
                if parsed <= followed.cursor:
                    continue
                followed.cursor = parsed
                followed.push((eid, fields))
            if not followed.subscribers:
                del self._followed[key]


def _stream_reply(answer: Any) -> list[Any]:
    """An XREAD reply as ``[(key, entries), …]``: RESP2 gives a list of pairs, RESP3 a map, and a
    raw command's reply in a pipeline is not reshaped by redis-py."""
    if not answer:
        return []
    if isinstance(answer, dict):
        return [(key, entries) for key, entries in answer.items()]
    return [(key, [(eid, hash_reply(flat)) for eid, flat in entries]) for key, entries in answer]
