"""Event delivery: a game's events as one seat may see them (ALL-7), followed live.

Live streams read through the process's hub (:mod:`service.fanout`): one reader per group of
followed games, on a Redis pool of its own, so open streams never take a connection a request
needs. The seat filter stays per subscriber: the hub hands every subscriber the raw events.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import engine
from service.core import (
    GameCore,
)
from service.fanout import Fanout, StreamLagged, StreamSlot
from service.store import (
    STATUS_FINISHED,
    Store,
    StreamEvent,
    bot_key,
    bot_turns_key,
    events_key,
)


class EventDelivery(GameCore):
    """A game's events as one seat may see them."""

    streams: Fanout | None = None
    stream_store: Store | None = None

    def use_streams(self, hub: Fanout) -> None:
        """Follow games through ``hub``; its client also serves the streams' own reads (catch-up,
        the idle check), so that none of them waits for, or takes, a request's connection."""
        self.streams = hub
        self.stream_store = Store(
            hub.client, self.store.abandoned_ttl, self.store.finished_ttl, self.store.idempotency_ttl
        )

    def _hub(self) -> tuple[Fanout, Store]:
        if self.streams is None or self.stream_store is None:
            raise RuntimeError("no stream hub: the app's lifespan starts one (use_streams)")
        return self.streams, self.stream_store

    def admit_stream(self, client: str) -> StreamSlot:
        """A place for one more open stream of ``client`` (429 ``too_many_streams`` / 503 ``server_full``)."""
        return self._hub()[0].admit(client)

    async def events_after(self, gid: str, seat: int | None, after: str) -> list[dict[str, Any]]:
        return [e for e in (self.deliver(ev, seat) for ev in await self.store.events(gid, after)) if e]

    async def follow(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[dict[str, Any]]:
        """The game's events after the stream id ``after`` as ``seat`` may see them (ALL-7),
        waiting for new ones while the match runs (unless ``wait`` is false); it ends once the
        match is over, or with :class:`service.fanout.StreamLagged` when the reader fell too far
        behind. The one loop behind the SSE stream and the GraphQL subscription; ``block_ms`` is
        how long it may stay idle before it checks that the game still exists."""
        hub, store = self._hub()
        current = await store.load(gid)
        if not wait or current is None or current.status == STATUS_FINISHED:
            async for seen in self._backlog(store, gid, seat, after):
                yield seen
            return
        cursor = delivered_id = after
        entries = hub.follow(events_key(gid), after, block_ms / 1000)
        try:
            async for entry in entries:
                if entry is None:  # idle: an expired game ends its streams; a finished one is drained
                    current = await store.load(gid)
                    if current is None or current.status == STATUS_FINISHED:
                        async for seen in self._backlog(store, gid, seat, cursor):
                            yield seen
                        return
                    continue
                eid, fields = entry
                cursor = eid
                event = StreamEvent(id=eid, version=int(fields["v"]), event=json.loads(fields["e"]))
                delivered = self.deliver(event, seat)
                if delivered is None:
                    continue
                delivered_id = eid
                yield delivered
                if delivered.get("type") == "turn" and delivered.get("status") == STATUS_FINISHED:
                    return
        except StreamLagged:
            # resume after what this seat last received (the hidden events after it are skipped again)
            raise StreamLagged(delivered_id) from None
        finally:
            await entries.aclose()

    async def follow_notices(
        self, bid: str, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        """The stored notices of bot ``bid`` after the id ``after`` (its turns, its games over), then
        the new ones as they come (unless ``wait`` is false); it ends when the account is gone, or
        with :class:`service.fanout.StreamLagged`. Behind the bot's SSE/NDJSON stream and ``myTurns``."""
        hub, store = self._hub()
        if not wait:
            cursor = after
            while batch := await store.bot_notices(bid, cursor):
                for eid, notice in batch:
                    cursor = eid
                    yield eid, notice
            return
        async with contextlib.aclosing(hub.follow(bot_turns_key(bid), after, block_ms / 1000)) as entries:
            async for entry in entries:
                if entry is None:
                    if not await store.r.exists(bot_key(bid)):  # deleted or expired: nothing more will come
                        return
                    continue
                yield entry[0], json.loads(entry[1]["e"])

    async def _backlog(
        self, store: Store, gid: str, seat: int | None, after: str
    ) -> AsyncIterator[dict[str, Any]]:
        """What is stored after ``after``, page by page, without waiting for more."""
        cursor = after
        while True:
            batch = await store.events(gid, cursor)
            if not batch:
                return
            for item in batch:
                cursor = item.id
                seen = self.deliver(item, seat)
                if seen is not None:
                    yield seen

    @staticmethod
    def deliver(stream_event: StreamEvent, seat: int | None) -> dict[str, Any] | None:
        """The stream event as ``seat`` may see it (ALL-7), with its stream id and version."""
        seen = engine.event_for(stream_event.event, seat)
        if seen is None:
            return None
        return {"id": stream_event.id, "version": stream_event.version, **seen}
