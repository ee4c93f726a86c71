"""Event delivery: a game's events as one seat may see them (ALL-7), followed live."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import engine
from service.core import (
    GameCore,
)
from service.store import (
    STATUS_FINISHED,
    StreamEvent,
)


class EventDelivery(GameCore):
    """A game's events as one seat may see them."""

    async def events_after(self, gid: str, seat: int | None, after: str) -> list[dict[str, Any]]:
        return [e for e in (self.deliver(ev, seat) for ev in await self.store.events(gid, after)) if e]

    async def follow(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[dict[str, Any]]:
        """The game's events after the stream id ``after`` as ``seat`` may see them (ALL-7),
        waiting for new ones while the match runs (unless ``wait`` is false); it ends once the
        match is over. The one loop behind the SSE stream and the GraphQL subscription."""
        cursor = after
        while True:
            batch = await self.store.events(gid, cursor)
            if not batch:
                current = await self.store.load(gid)
                if not wait or current is None or current.status == STATUS_FINISHED:
                    return
                batch = await self.store.wait_events(gid, cursor, block_ms)
            finished = False
            for item in batch:
                cursor = item.id
                seen = self.deliver(item, seat)
                if seen is None:
                    continue
                yield seen
                finished = finished or (seen.get("type") == "turn" and seen.get("status") == STATUS_FINISHED)
            if finished:
                return
            await asyncio.sleep(0)

    @staticmethod
    def deliver(stream_event: StreamEvent, seat: int | None) -> dict[str, Any] | None:
        """The stream event as ``seat`` may see it (ALL-7), with its stream id and version."""
        seen = engine.event_for(stream_event.event, seat)
        if seen is None:
            return None
        return {"id": stream_event.id, "version": stream_event.version, **seen}
