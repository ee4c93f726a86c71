"""Read an Atout stream (a game's events, a bot's turns) with the Python client that
openapi-python-client generates from openapi/openapi.json.

The generated operations (``stream_events``, ``stream_bot_turns``) read a response as one JSON
document, which a stream is not. This module reads it frame by frame over the generated client's own
httpx client (its base URL and token), decodes each frame's ``data`` into the generated model the
document names for it, and reconnects after the last event it delivered (``Last-Event-ID``) when the
server ends the stream early (``lagged``, ``server_closing``)::

    from atout_client import AuthenticatedClient, models
    from atout_stream import game_events

    client = AuthenticatedClient(base_url="http://localhost:8000", token=seat_token)
    document = client.get_httpx_client().get("/openapi.json").json()
    for frame in game_events(client, game_id, models, document):
        print(frame.id, type(frame.event).__name__)  # an EventEnvelope: BidMade, CardPlayed, ...

It needs only httpx (which the generated client needs too): copy it next to your generated package.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

import httpx

RECONNECTABLE = {"lagged", "server_closing"}  # a StreamEnd after which the same stream resumes
# The server sends a keep-alive comment every ATOUT_SSE_PING seconds (15 by default): a connection
# silent for this long is dead, and its read fails instead of waiting for ever.
READ_TIMEOUT = 60.0


class GeneratedClient(Protocol):
    """What this module uses of openapi-python-client's ``Client`` and ``AuthenticatedClient``."""

    def get_httpx_client(self) -> httpx.Client: ...


@dataclass(frozen=True)
class Frame:
    """One Server-Sent Events frame as sent: ``id`` is None on the frame that ends a stream early."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


class StreamRefused(Exception):
    """The server answered the stream's request with a problem (401, 404, 429, ...)."""

    def __init__(self, status: int, problem: Any) -> None:
        super().__init__(f"{status}: {problem}")
        self.status = status
        self.problem = problem


def frames(lines: Iterable[str]) -> Iterator[Frame]:
    """The frames of Server-Sent Events text, line by line: ``data`` lines joined by newlines,
    comments (the server's pings) skipped, a blank line ending each frame (the WHATWG rules)."""
    data: list[str] = []
    fields: dict[str, Any] = {}
    for line in lines:
        if not line:
            if data:
                yield Frame("\n".join(data), **fields)
            data, fields = [], {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name in ("event", "id"):
            fields[name] = value
        elif name == "retry" and value.isdigit():
            fields["retry"] = int(value)
    if data:
        yield Frame("\n".join(data), **fields)


def decoder(models: ModuleType, document: Mapping[str, Any], union: str) -> Callable[[Any], Any]:
    """Each frame's generated model: the document's discriminator of ``union`` (``GameEvent``,
    ``BotStreamFrame``) maps the frame's ``type`` to a component schema, which openapi-python-client
    generates as the class of the same name in ``models``. A name the package lacks fails here, at
    once, rather than on the first frame of that type."""
    discriminator = document["components"]["schemas"][union]["discriminator"]
    key = discriminator["propertyName"]
    classes = {
        value: getattr(models, ref.rsplit("/", 1)[1]) for value, ref in discriminator["mapping"].items()
    }

    def decode(data: Any) -> Any:
        return classes[data[key]].from_dict(data)

    return decode


def envelope_decoder(models: ModuleType, document: Mapping[str, Any]) -> Callable[[Any], Any]:
    """A game stream's frames: an ``EventEnvelope`` (``id``, ``version``, ``event``), or the
    ``StreamEnd`` that ends it early (it has no ``event``). An event whose ``type`` the document does
    not name (one added within v1 after this client was generated) decodes to None: skipped."""
    known = set(document["components"]["schemas"]["GameEvent"]["discriminator"]["mapping"])

    def decode(data: Any) -> Any:
        if "event" not in data:
            return models.StreamEnd.from_dict(data)
        if data["event"].get("type") not in known:
            return None
        return models.EventEnvelope.from_dict(data)

    return decode


def move_answer(models: ModuleType, document: Mapping[str, Any], data: Mapping[str, Any]) -> Any:
    """A move's answer (``ActionResponse``) read from its JSON, the events of a type the document does
    not name (added within v1 after this client was generated) left out, as the stream skips them:
    the generated ``ActionResponse.from_dict`` would refuse the whole answer for one such event. Read
    the answer's JSON yourself (``post_action.sync_detailed(...).content``) and pass it here."""
    known = set(document["components"]["schemas"]["GameEvent"]["discriminator"]["mapping"])
    events = [event for event in data.get("events", []) if event.get("type") in known]
    return models.ActionResponse.from_dict({**data, "events": events})


@dataclass
class Stream:
    """A resumable stream: iterate it for its decoded events. ``last_event_id`` is the id of the
    last event delivered: keep it, and a new ``Stream`` from it resumes with no gap and no duplicate.

    A ``lagged`` or ``server_closing`` end reconnects by itself (after the frame's ``retry``; at most
    ``reconnects`` times without an event in between); a ``resync`` end (the events after
    ``last_event_id`` are gone) is delivered as the last item, a ``StreamEnd``: reload the view, then
    follow after its ``last_event_id``.
    """

    client: GeneratedClient
    path: str
    decode: Callable[[Any], Any]
    last_event_id: str | None = None
    follow: bool = True
    reconnects: int = 5

    def __iter__(self) -> Iterator[Any]:
        tries = 0
        while True:
            before = self.last_event_id
            ended = yield from self._once()
            if ended is None:
                return  # the stream is over (the match, or what there was with follow=false)
            frame, end = ended
            tries = 0 if self.last_event_id != before else tries + 1
            if frame.event not in RECONNECTABLE or tries > self.reconnects:
                yield end
                return
            time.sleep((frame.retry or 1000) / 1000)

    def _once(self) -> Generator[Any, None, tuple[Frame, Any] | None]:
        """One connection: its events; returns the frame (and its decoded StreamEnd) that ended it
        early, or None when it ended after its last event."""
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        params = {} if self.follow else {"follow": "false"}
        http = self.client.get_httpx_client()
        timeout = httpx.Timeout(READ_TIMEOUT, connect=http.timeout.connect)
        with http.stream("GET", self.path, headers=headers, params=params, timeout=timeout) as response:
            if response.status_code != 200:
                response.read()
                raise StreamRefused(response.status_code, response.json())
            for frame in frames(response.iter_lines()):
                decoded = self.decode(json.loads(frame.data))
                if frame.id is None:
                    return frame, decoded
                self.last_event_id = frame.id
                if decoded is not None:  # None: a kind of event this client does not know, skipped
                    yield decoded
        return None


def game_events(
    client: GeneratedClient,
    game_id: str,
    models: ModuleType,
    document: Mapping[str, Any],
    *,
    last_event_id: str | None = None,
    follow: bool = True,
) -> Stream:
    """``GET /v1/games/{game_id}/events`` as generated ``EventEnvelope`` models, each ``event`` a
    ``GameEvent`` member (a seat's token on an ``AuthenticatedClient`` shows that seat's cards; a
    plain ``Client`` is a spectator)."""
    decode = envelope_decoder(models, document)
    return Stream(client, f"/v1/games/{game_id}/events", decode, last_event_id, follow)


def bot_turns(
    client: GeneratedClient,
    models: ModuleType,
    document: Mapping[str, Any],
    *,
    last_event_id: str | None = None,
    follow: bool = True,
) -> Stream:
    """``GET /v1/bots/me/stream`` (the client's token is the bot's API key) as generated models:
    ``BotNotice`` (``your_turn``, ``game_finished``)."""
    decode = decoder(models, document, "BotStreamFrame")
    return Stream(client, "/v1/bots/me/stream", decode, last_event_id, follow)
