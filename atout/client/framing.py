"""Reading a stream's frames line by line, SSE or NDJSON, and deciding what each one means: an item
to deliver (with the id to resume after), the end that asks to reconnect (``lagged``,
``server_closing``), or the end that asks to reload (``resync``). Free of I/O, so that the sync and
the async client read streams with the same rules (examples/client/atout_stream.py is the same
framing for a generated client). The contract is open to additions (docs/glossary.md): a frame's
fields this client does not know are ignored, and an event or notice of a type it does not know is
skipped (:func:`decode_frame`), its id still the place to resume after."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import RootModel, ValidationError

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
RECONNECT = frozenset({"lagged", "server_closing"})
"""A ``StreamEnd`` after which the same stream resumes, after its ``retry_after``."""
RESYNC = "resync"


@dataclass(frozen=True)
class Frame:
    """One frame as sent: its JSON ``data`` and, in SSE, its ``id`` (None on a frame that ends a
    stream early: the cursor stays the last event's) and ``retry`` (milliseconds)."""

    data: Any
    id: str | None = None
    retry: int | None = None


class FrameReader:
    """Feed it the stream's lines (without their line ends); it returns each complete frame. SSE per
    the WHATWG rules: ``data`` lines joined, comments (the server's pings) skipped, a blank line ends
    a frame. NDJSON: one JSON object a line, its ``id`` inside."""

    def __init__(self, ndjson: bool) -> None:
        self.ndjson = ndjson
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, line: str) -> Frame | None:
        if self.ndjson:
            if not line.strip():
                return None
            data = json.loads(line)
            return Frame(data, data.get("id") if isinstance(data, dict) else None)
        if not line:
            if not self._data:
                return None
            frame = Frame(json.loads("\n".join(self._data)), self._id, self._retry)
            self._data, self._id, self._retry = [], None, None
            return frame
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


def end_of(frame: Frame) -> dict[str, Any] | None:
    """The ``StreamEnd`` a frame is (``lagged``, ``resync``, ``server_closing``: no ``id``), or None
    for an item to deliver."""
    data = frame.data
    if isinstance(data, dict) and data.get("type") in (*RECONNECT, RESYNC) and "id" not in data:
        return data
    return None


def reconnect_delay(frame: Frame, end: dict[str, Any]) -> float:
    """Seconds to wait before resuming after a reconnectable end: its ``retry_after``, else the SSE
    ``retry``, else one second."""
    if isinstance(end.get("retry_after"), int | float):
        return float(end["retry_after"])
    return frame.retry / 1000 if frame.retry is not None else 1.0


def decode_frame(model: type[RootModel[Any]], data: Any) -> Any | None:
    """The item a frame holds as ``model`` reads it, ignoring the fields this client does not know;
    None for an event or notice of a ``type`` it does not know (one a newer service added within /v1),
    which the stream skips. Any other mismatch is an error: a known type that breaks its schema."""
    try:
        return model.model_validate(data, extra="ignore").root
    except ValidationError as error:
        if any(issue["type"] == "union_tag_invalid" for issue in error.errors()):
            return None
        raise
