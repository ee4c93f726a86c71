"""The REST streams: a game's events and a bot's turns, each as SSE or NDJSON, resumable with
Last-Event-ID. They read through the process's one hub (:mod:`service.store.fanout`), hold a slot of
the caps on open streams while open, and end with a notice rather than a cut connection when they fall
behind or the server stops, so that a client knows to reconnect and where to resume.

The caps count per client, never per resource followed: a stream counts against the caller's token
(a game's), its own account (a bot's or a player's notices), or, for a stream anyone may follow (a
tournament's events), the caller's account if its credential holds, else its address
(:meth:`service.games.tournaments.Tournaments.stream_counted_as`). Counted per tournament, 32
anonymous streams of one tournament locked every other spectator out of it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from service.api.ratelimit import Client, counted
from service.api.rest.requests import bearer, bool_query, games_of
from service.base.texts import Text
from service.games.events import stream_cursor
from service.store.fanout import StreamClosing, StreamGap, StreamLagged, client_key

LAGGED_RETRY_MS = 1000  # a stream ended for lagging: reconnect after a second
STALLED_SEND_SECONDS = 30  # a stream whose client reads nothing for this long is ended, its slot freed
SHUTDOWN_GRACE_SECONDS = 2.0  # what a stream has, once the server is stopping, to send its goodbye
NDJSON = "application/x-ndjson"

SERVER_CLOSING = Text(
    "This server is shutting down: reconnect with your Last-Event-ID after retry_after seconds "
    "(another replica serves you), and the stream resumes without a gap."
)
_WATCHERS: set[asyncio.Future[None]] = set()  # one per open stream, until it ends (a reference)


def stream_client(request: Request, token: str | None) -> str:
    """Whom an open stream counts against: its token (or bot id), else the client's address."""
    return client_key(token, request.client.host if request.client else None)


def resume_after(request: Request) -> tuple[str | None, str]:
    """The event id a stream starts after, and the parameter it came in: the Last-Event-ID header, or
    ``last_event_id`` in the query (an EventSource sets no header of its own on its first
    connection); none or empty: the very beginning."""
    header = request.headers.get("last-event-id")
    return (
        (header, "Last-Event-ID") if header else (request.query_params.get("last_event_id"), "last_event_id")
    )


def check_query_cursor(request: Request) -> None:
    """A malformed ``last_event_id`` is refused (422) even when the header decides: the document
    says what each parameter may hold, and a client sending two ids has a bug to hear about."""
    stream_cursor(request.query_params.get("last_event_id"), "last_event_id")


def follows(request: Request) -> bool:
    """Whether the stream waits for new events (the default) or ends after those so far (``follow=false``)."""
    return bool_query(request, "follow", True)


def lagged_notice(lagged: StreamLagged) -> dict[str, Any]:
    """The last message of a stream that fell too far behind: resume after ``last_event_id``; or, when
    the events after its cursor are gone (:class:`service.store.fanout.StreamGap`), resync from the view."""
    if isinstance(lagged, StreamClosing):
        return {
            "type": "server_closing",
            "code": "server_closing",
            "detail": SERVER_CLOSING.render(),
            "retry_after": LAGGED_RETRY_MS // 1000,
            "last_event_id": lagged.last_id,
        }
    if isinstance(lagged, StreamGap):
        return {
            "type": "resync",
            "code": lagged.code,
            "detail": lagged.detail.render(),
            "last_event_id": lagged.last_id,
        }
    return {
        "type": "lagged",
        "code": "stream_lagged",
        "detail": Text(
            "This stream fell too far behind and was closed; reconnect with Last-Event-ID "
            "{last_id} to resume without a gap.",
            last_id=lagged.last_id,
        ).render(),
        "last_event_id": lagged.last_id,
        "retry_after": LAGGED_RETRY_MS // 1000,
    }


def event_source(request: Request, items: AsyncGenerator[Any, None], ping: float) -> EventSourceResponse:
    """An SSE response of ``items`` that, when the server stops (SIGTERM, Ctrl-C), ends with a
    ``server_closing`` notice carrying a reconnection delay instead of a cut connection: an
    EventSource, or a bot, reconnects with its Last-Event-ID to another replica. sse-starlette sets
    ``closing`` when uvicorn is told to exit; the hub then ends every stream of the process
    (:class:`service.store.fanout.StreamClosing`), within ``SHUTDOWN_GRACE_SECONDS``."""
    closing = anyio.Event()
    hub = request.app.state.streams

    async def watch() -> None:
        await closing.wait()
        hub.server_closing()

    watcher = asyncio.ensure_future(watch())
    _WATCHERS.add(watcher)
    watcher.add_done_callback(_WATCHERS.discard)

    async def until_done() -> AsyncIterator[Any]:
        try:
            async with contextlib.aclosing(items) as source:  # closed with this one, as if unwrapped
                async for item in source:
                    yield item
        finally:
            watcher.cancel()

    return EventSourceResponse(
        until_done(),
        ping=ping,
        send_timeout=STALLED_SEND_SECONDS,
        shutdown_event=closing,
        shutdown_grace_period=SHUTDOWN_GRACE_SECONDS,
    )


def sse_of(item: dict[str, Any]) -> ServerSentEvent:
    """A frame as SSE, named (SSE ``event``) by its ``type``: a game's event envelope by its event's,
    a notice by its own. A frame that ends the stream (lagged, resync, server closing) has no id (the
    client's Last-Event-ID stays its last event) and sets the reconnection delay."""
    if "event" not in item and item["type"] in ("lagged", "resync", "server_closing"):
        return ServerSentEvent(data=json.dumps(item), event=item["type"], retry=LAGGED_RETRY_MS)
    named = item.get("event", item)
    return ServerSentEvent(data=json.dumps(item), id=item["id"], event=str(named.get("type", "event")))


def sse_bytes(item: dict[str, Any]) -> bytes:
    return sse_of(item).encode()


def ndjson_bytes(item: dict[str, Any]) -> bytes:
    """An event envelope, notice or closing frame as one NDJSON line: the same JSON as an SSE frame's
    data."""
    return json.dumps(item).encode() + b"\n"


def wants_ndjson(request: Request) -> bool:
    """NDJSON (``Accept: application/x-ndjson``, like the lichess bot API) rather than SSE: one JSON
    object a line, for a client with no SSE parser at hand."""
    return NDJSON in request.headers.get("accept", "")


async def game_events(request: Request) -> Response:
    """The events of one game, filtered for the caller's seat, resumable with Last-Event-ID: SSE, or
    NDJSON with ``Accept: application/x-ndjson`` (each line what an SSE frame's data would be)."""
    games = games_of(request)
    gid = request.path_params["game_id"]
    token = bearer(request) or request.query_params.get("access_token")
    async with counted(Client.of(request), "open_stream", token):  # a seat's token, the admin's, or none
        caller, after = await games.events.open_game_stream(gid, token, *resume_after(request))
        check_query_cursor(request)
    settings = request.app.state.settings
    follow = follows(request)

    slot = games.events.admit_stream(stream_client(request, token))
    ndjson = wants_ndjson(request)

    def encoded(seen: dict[str, Any]) -> bytes:
        """An event's NDJSON line, or its SSE frame: computed once for all the seat's SSE streams."""
        return ndjson_bytes(seen) if ndjson else games.events.frame(gid, caller.seat, seen, sse_bytes)

    async def stream() -> AsyncGenerator[bytes, None]:
        with slot:
            try:
                batches = games.events.follow_batches(
                    gid, caller.seat, after, settings.sse_block_ms, wait=follow
                )
                async for batch in batches:  # one write for what was read together
                    yield b"".join(encoded(seen) for seen in batch)
            except StreamLagged as lagged:
                yield (ndjson_bytes if ndjson else sse_bytes)(lagged_notice(lagged))

    if ndjson:
        return StreamingResponse(stream(), media_type=NDJSON)
    return event_source(request, stream(), settings.sse_ping)


async def bot_stream(request: Request) -> Response:
    """One connection for all of a bot's games: ``your_turn`` with the seat's view and legal actions
    (only while still current), and ``game_finished``. SSE, or NDJSON with ``Accept: application/x-ndjson``
    (like the lichess bot API); resumable with Last-Event-ID / ``last_event_id``."""
    return await account_stream(request, games_of(request).events.open_bot_stream)


async def player_stream(request: Request) -> Response:
    """One connection for all of a player's games, as a bot's: ``your_turn`` (with the view and legal
    actions), ``invitation``, ``game_started``, ``game_finished``, ``rematch_offered``, ``reminder``,
    ``match_found``."""
    return await account_stream(request, games_of(request).players.open_player_stream)


OpenAccount = Callable[[str | None, str | None, str], Awaitable[tuple[str, str]]]


async def account_stream(request: Request, open_account: OpenAccount) -> Response:
    """The notices of the account ``open_account`` finds for the request's credential (a seat owner:
    a bot account's id or ``player:<id>``), from where the request resumes."""
    games = games_of(request)
    key = bearer(request) or request.query_params.get("access_token")
    async with counted(Client.of(request), "open_stream", key):
        owner, after = await open_account(key, *resume_after(request))
        check_query_cursor(request)
    settings = request.app.state.settings
    follow = follows(request)

    slot = games.events.admit_stream(
        stream_client(request, await games.tournaments.stream_counted_as(owner, key))
    )

    async def notices() -> AsyncIterator[dict[str, Any]]:
        with slot:
            try:
                async for eid, notice in games.events.follow_notices(
                    owner, after, settings.sse_block_ms, follow
                ):
                    delivered = await games.bots.account_notice(notice)
                    if delivered is not None:
                        yield {"id": eid, **delivered}
            except StreamLagged as lagged:
                yield lagged_notice(lagged)

    if wants_ndjson(request):

        async def lines() -> AsyncIterator[bytes]:
            async for notice in notices():
                yield ndjson_bytes(notice)

        return StreamingResponse(lines(), media_type=NDJSON)

    async def events() -> AsyncGenerator[ServerSentEvent, None]:
        async for notice in notices():
            yield sse_of(notice)

    return event_source(request, events(), settings.sse_ping)
