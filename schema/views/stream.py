"""The events as a game's stream carries them (GET …/events, gameEvents): each event model of
``events`` with its stream ``id`` and the game ``version`` it leads to (``StreamEvent``), and the
``StreamEnd`` frame of a stream that ends before the match does (``StreamFrame``; a bot's stream
ends so too). Apart from ``events`` because these models are made from the event models, not
written: the stream wraps the events, and its models exist only at run time (a type checker sees
``EventOfMove``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Union

from pydantic import Field, create_model

from schema.views.common import Shown
from schema.views.events import EVENT_BODIES, EventBody, EventOfMove


def in_stream(body: type[EventBody]) -> type[EventBody]:
    """``body`` as a game's stream carries it: with its stream id and the version it leads to."""
    return create_model(
        f"{body.__name__}Event",
        __base__=body,
        __doc__=body.__doc__,
        id=(str, Field(examples=["1733140000000-0"], description="The stream id: Last-Event-ID / after.")),
        version=(int, Field(description="The game's version once this event happened.")),
    )


class StreamEnd(Shown):
    """The last frame of a stream that ends before the match does, without an ``id`` (the client's
    Last-Event-ID stays its last event): ``lagged`` (it fell behind: reconnect with Last-Event-ID),
    ``resync`` (the events after the cursor are gone: reload the view, then follow after
    ``last_event_id``) or ``server_closing`` (reconnect; another replica resumes without a gap)."""

    type: Literal["lagged", "resync", "server_closing"]
    code: str
    detail: str
    last_event_id: str | None = None
    retry_after: int | None = Field(default=None, description="Seconds to wait before reconnecting.")


STREAM_EVENTS = tuple(in_stream(body) for body in EVENT_BODIES)
if TYPE_CHECKING:
    StreamEvent = EventOfMove
    StreamFrame = EventOfMove | StreamEnd
else:
    StreamEvent = Annotated[Union[STREAM_EVENTS], Field(discriminator="type")]  # noqa: UP007
    StreamFrame = Annotated[Union[(*STREAM_EVENTS, StreamEnd)], Field(discriminator="type")]
