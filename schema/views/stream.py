"""A game's stream (GET …/events, gameEvents) as its frames: an :class:`EventEnvelope` for each event
(its stream ``id``, the game ``version`` once it happened, and the event, the same object a move's
answer gives: docs/glossary.md), and the :class:`StreamEnd` frame of a stream that ends before the
game does (a bot's and a player's streams end so too). Apart from ``events`` because an envelope is
where an event is, not what it says: one schema per event, never a copy with the stream's fields
added.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from schema.views.common import Shown
from schema.views.events import GameEvent, public_event


class EventEnvelope(Shown):
    """One event of a game's stream: where it is in the stream and the game, and the event. Its
    ``type`` (always ``event``) tags it among the stream's frames, as ``StreamEnd``'s tags that one."""

    type: Literal["event"] = "event"
    id: str = Field(
        examples=["1733140000000-0"],
        description="The stream id: send it back as Last-Event-ID (or `after`) to resume after it.",
    )
    version: int = Field(description="The game's version once this event happened.")
    event: GameEvent


class StreamEnd(Shown):
    """The last frame of a stream that ends before the game does, without an ``id`` (the client's
    Last-Event-ID stays its last event): ``lagged`` (it fell behind: reconnect with Last-Event-ID),
    ``resync`` (the events after the cursor are gone: reload the view, then follow after
    ``last_event_id``) or ``server_closing`` (reconnect; another replica resumes without a gap)."""

    type: Literal["lagged", "resync", "server_closing"]
    code: str
    detail: str
    last_event_id: str | None = None
    retry_after: int | None = Field(default=None, description="Seconds to wait before reconnecting.")


def envelope(eid: str, version: int, stored: dict[str, Any], kind: str) -> dict[str, Any]:
    """The stream frame (JSON) of a stored event of a game of ``kind``, in its public form."""
    return {"type": "event", "id": eid, "version": version, "event": public_event(stored, kind)}
