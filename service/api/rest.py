"""REST under /v1: one table of endpoints gives both the Starlette routes and the OpenAPI document."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

import engine
from schema.bodies import (
    ActionRequest,
    ActionResponse,
    BotRegistered,
    BotSeat,
    BotStatus,
    BotStreamFrame,
    CreateGameRequest,
    CreateGameResponse,
    GameEvent,
    GameList,
    GameSummary,
    JoinRequest,
    JoinResponse,
    LeaveResponse,
    LegalActionsResponse,
    LogResponse,
    Problem,
    RegisterBotRequest,
    RematchRequest,
    RematchResponse,
    RulesResponse,
    ViewResponse,
)
from service.api.limits import parse_json
from service.api.problems import invalid_request
from service.api.ratelimit import counted, rate_limit
from service.base.problems import CODES, PROBLEM_JSON, ProblemError
from service.games import Games
from service.store.fanout import StreamClosing, StreamGap, StreamLagged, client_key
from service.store.keys import STREAM_ID_PATTERN

M = TypeVar("M", bound=BaseModel)
Endpoint = Callable[[Request], Awaitable[Response]]
API_VERSION = "1.0.0"
LAGGED_RETRY_MS = 1000  # a stream ended for lagging: reconnect after a second
STALLED_SEND_SECONDS = 30  # a stream whose client reads nothing for this long is ended, its slot freed


# --- request helpers ----------------------------------------------------------------------


def games_of(request: Request) -> Games:
    games: Games = request.app.state.games
    return games


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProblemError("invalid_token", "Send the token as `Authorization: Bearer <token>`.")
    return token.strip()


async def parse_body(request: Request, model: type[M]) -> M:
    raw = await request.body()
    settings = request.app.state.settings
    if not raw:
        data: Any = {}  # no body: every field at its default (a required one is then missing)
    else:
        data = parse_json(raw, settings.max_json_depth, settings.max_int_digits)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc) from None


def int_query(request: Request, name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ProblemError(
            "invalid_request",
            f"Query parameter {name} must be a whole number from {low} to {high}.",
            errors=[{"loc": ["query", name], "msg": f"must be {low}..{high}", "type": "value_error"}],
        )
    return value


def ok(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The model as JSON, serialized by pydantic-core in one step (no intermediate dict)."""
    return Response(
        # warnings off: responses are built with model_construct from the engine's trusted dicts, which
        # the typed fields (schema/views.py) describe but do not hold as model instances
        model.model_dump_json(warnings=False),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


# --- endpoints ----------------------------------------------------------------------------


async def rules(request: Request) -> Response:
    return ok(RulesResponse.model_validate({"games": engine.games()}))


async def create_game(request: Request) -> Response:
    games = games_of(request)
    await rate_limit(request, "create_game", await games.account_token(bearer(request)))
    body = await parse_body(request, CreateGameRequest)
    record, invite = await games.create(body, bearer(request))
    summary = games.summary(record)
    return ok(
        CreateGameResponse(game=summary, invite_code=invite),
        201,
        headers={"Location": f"/v1/games/{record.id}"},
    )


async def list_games(request: Request) -> Response:
    limit = int_query(request, "limit", 50, 1, 100) or 50
    return ok(GameList(games=await games_of(request).open_games(limit)))


async def get_game(request: Request) -> Response:
    games = games_of(request)
    record = await games.get(request.path_params["game_id"])
    caller = games.caller(record, bearer(request), required=False)
    return ok(games.summary(record, caller))


async def join_game(request: Request) -> Response:
    gid = request.path_params["game_id"]
    bot_key = bearer(request)
    await rate_limit(request, "join", await games_of(request).account_token(bot_key))
    body = await parse_body(request, JoinRequest)
    seat, token, started = await games_of(request).join(
        gid, body.seat, body.name, body.invite_code, bot_key, client_seed=body.client_seed
    )
    return ok(JoinResponse(game_id=gid, seat=seat, token=token, started=started), 201)


async def get_view(request: Request) -> Response:
    seat = int_query(request, "seat", None, 0, 4)
    return ok(await games_of(request).view(request.path_params["game_id"], bearer(request), seat))


async def get_legal_actions(request: Request) -> Response:
    return ok(await games_of(request).legal_actions(request.path_params["game_id"], bearer(request)))


async def post_action(request: Request) -> Response:
    gid = request.path_params["game_id"]
    games = games_of(request)
    token = bearer(request)
    key = request.headers.get("idempotency-key")
    if key is not None and not 1 <= len(key) <= 200:
        raise ProblemError("invalid_request", "Idempotency-Key must be 1 to 200 characters.")
    # Start from this process's last copy of the game when the token holds a seat in it: the atomic
    # write checks the version and the seat's token again, and any refusal is decided on a fresh read.
    record, fresh = games.cached(gid), False
    async with counted(request, "act", token):
        if record is None or not token or games.seat_of(record, token) is None:
            record, fresh = await games.get(gid), True
        games.caller(record, token, required=True)  # 401 before a body error tells a stranger anything
    body = await parse_body(request, ActionRequest)
    caller = games.caller(record, token, required=True, claimed_seat=body.seat)
    response, replayed = await games.act_checked(
        record,
        caller,
        body.action.model_dump(exclude_none=True),
        expected_version=body.expected_version,
        idempotency_key=key,
        fresh=fresh,
    )
    return ok(response, headers={"Idempotent-Replayed": "true"} if replayed else None)


async def leave_game(request: Request) -> Response:
    gid = request.path_params["game_id"]
    seat, outcome = await games_of(request).leave(gid, bearer(request))
    return ok(LeaveResponse(game_id=gid, seat=seat, outcome=outcome))  # type: ignore[arg-type]


async def rematch_game(request: Request) -> Response:
    games = games_of(request)
    body = await parse_body(request, RematchRequest)
    record, seat, token, started = await games.rematch(
        request.path_params["game_id"], bearer(request), client_seed=body.client_seed
    )
    return ok(RematchResponse(game=games.summary(record), seat=seat, token=token, started=started), 201)


async def register_bot(request: Request) -> Response:
    await rate_limit(request, "register_bot", await games_of(request).account_token(bearer(request)))
    body = await parse_body(request, RegisterBotRequest)
    bid, key = await games_of(request).register_bot(body.name, body.contact)
    return ok(BotRegistered(bot_id=bid, name=body.name, api_key=key), 201)


async def bot_me(request: Request) -> Response:
    bid, name, seats = await games_of(request).bot_status(bearer(request))
    return ok(BotStatus(bot_id=bid, name=name, seats=[BotSeat.model_validate(s) for s in seats]))


def stream_client(request: Request, token: str | None) -> str:
    """Whom an open stream counts against: its token (or bot id), else the client's address."""
    return client_key(token, request.client.host if request.client else None)


def lagged_notice(lagged: StreamLagged) -> dict[str, Any]:
    """The last message of a stream that fell too far behind: resume after ``last_event_id``; or, when
    the events after its cursor are gone (:class:`service.store.fanout.StreamGap`), resync from the view."""
    if isinstance(lagged, StreamClosing):
        return {**SERVER_CLOSING, "last_event_id": lagged.last_id}
    if isinstance(lagged, StreamGap):
        return {
            "type": "resync",
            "code": lagged.code,
            "detail": lagged.detail,
            "last_event_id": lagged.last_id,
        }
    return {
        "type": "lagged",
        "code": "stream_lagged",
        "detail": "This stream fell too far behind and was closed; reconnect with Last-Event-ID "
        f"{lagged.last_id} to resume without a gap.",
        "last_event_id": lagged.last_id,
        "retry_after": LAGGED_RETRY_MS // 1000,
    }


SERVER_CLOSING = {
    "type": "server_closing",
    "code": "server_closing",
    "detail": "This server is shutting down: reconnect with your Last-Event-ID after retry_after seconds "
    "(another replica serves you), and the stream resumes without a gap.",
    "retry_after": LAGGED_RETRY_MS // 1000,
}
_WATCHERS: set[asyncio.Future[None]] = set()  # one per open stream, until it ends (a reference)
SHUTDOWN_GRACE_SECONDS = 2.0  # what a stream has, once the server is stopping, to send its goodbye


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
    """An event as SSE; a notice that ends the stream (lagged, resync, server closing) has no id (the
    client's Last-Event-ID stays its last event) and sets the reconnection delay."""
    if item["type"] in ("lagged", "resync", "server_closing"):
        return ServerSentEvent(data=json.dumps(item), event=item["type"], retry=LAGGED_RETRY_MS)
    return ServerSentEvent(data=json.dumps(item), id=item["id"], event=str(item.get("type", "event")))


def sse_bytes(item: dict[str, Any]) -> bytes:
    return sse_of(item).encode()


async def bot_stream(request: Request) -> Response:
    """One connection for all of a bot's games: ``your_turn`` with the seat's view and legal actions
    (only while still current), and ``game_over``. SSE, or NDJSON with ``Accept: application/x-ndjson``
    (like the lichess bot API); resumable with Last-Event-ID / ``last_event_id``."""
    games = games_of(request)
    key = bearer(request) or request.query_params.get("access_token")
    async with counted(request, "open_stream", key):
        bid = await games.bot_of(key)
    after = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0-0"
    if not STREAM_ID_PATTERN.fullmatch(after):
        raise ProblemError("invalid_request", "Last-Event-ID must be an event id such as 1733140000000-0.")
    settings = request.app.state.settings
    follow = request.query_params.get("follow", "true").lower() not in {"false", "0", "no"}

    slot = games.admit_stream(stream_client(request, bid))

    async def notices() -> AsyncIterator[dict[str, Any]]:
        with slot:
            try:
                async for eid, notice in games.follow_notices(bid, after, settings.sse_block_ms, follow):
                    delivered = await games.bot_notice(notice)
                    if delivered is not None:
                        yield {"id": eid, **delivered}
            except StreamLagged as lagged:
                yield lagged_notice(lagged)

    if "application/x-ndjson" in request.headers.get("accept", ""):

        async def lines() -> AsyncIterator[bytes]:
            async for notice in notices():
                yield json.dumps(notice).encode() + b"\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def events() -> AsyncGenerator[ServerSentEvent, None]:
        async for notice in notices():
            yield sse_of(notice)

    return event_source(request, events(), settings.sse_ping)


async def delete_bot(request: Request) -> Response:
    await games_of(request).delete_bot(request.path_params["bot_id"], bearer(request))
    return Response(status_code=204)


async def get_log(request: Request) -> Response:
    return ok(await games_of(request).replay_log(request.path_params["game_id"], bearer(request)))


async def game_events(request: Request) -> Response:
    """Server-Sent Events of one game, filtered for the caller's seat, resumable with Last-Event-ID."""
    games = games_of(request)
    gid = request.path_params["game_id"]
    token = bearer(request) or request.query_params.get("access_token")
    async with counted(request, "open_stream", token):  # a seat's token, the admin's, or none
        record = await games.get(gid)
        caller = games.caller(record, token, required=False)
    after = request.headers.get("last-event-id") or request.query_params.get("last_event_id") or "0-0"
    if not STREAM_ID_PATTERN.fullmatch(after):
        raise ProblemError("invalid_request", "Last-Event-ID must be an event id such as 1733140000000-0.")
    settings = request.app.state.settings
    follow = request.query_params.get("follow", "true").lower() not in {"false", "0", "no"}

    slot = games.admit_stream(stream_client(request, token))

    async def stream() -> AsyncGenerator[ServerSentEvent | bytes, None]:
        with slot:
            try:
                batches = games.follow_batches(gid, caller.seat, after, settings.sse_block_ms, wait=follow)
                async for batch in batches:  # one write for what was read together
                    yield b"".join(games.frame(gid, caller.seat, seen, sse_bytes) for seen in batch)
            except StreamLagged as lagged:
                yield sse_of(lagged_notice(lagged))

    return event_source(request, stream(), settings.sse_ping)


# --- the table ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    where: str  # "query" or "header"
    schema: dict[str, Any]
    description: str


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    endpoint: Endpoint
    operation_id: str
    summary: str
    tag: str
    response: type[BaseModel] | None
    status: int = 200
    request: type[BaseModel] | None = None
    errors: tuple[str, ...] = ()
    auth: str = "none"  # none | optional | seat
    params: tuple[Param, ...] = ()
    stream: bool = False
    description: str = ""


EVERY_OPERATION = ("store_unavailable",)
GAME = ("game_not_found",)
# Any POST body: too large (413) or not application/json (415), refused by service.api.limits.
UPLOAD = ("payload_too_large", "unsupported_media_type")
BODY = ("malformed_body", "invalid_request", *UPLOAD)
LIMITED = "rate_limited"  # service.api.ratelimit
SEAT = ("missing_token", "invalid_token")
STREAMS = ("too_many_streams", "server_full")  # the caps on open streams (service.store.fanout)
CAPPED = ("too_many_games", "server_full")  # service.games.quotas: caps on unfinished games

# A stream id (Redis's ``<ms>-<seq>``), as service.store.keys.STREAM_ID_PATTERN accepts it.
STREAM_ID_SCHEMA = {"type": "string", "pattern": STREAM_ID_PATTERN.pattern, "examples": ["1733140000000-0"]}


OPS: tuple[Op, ...] = (
    Op("GET", "/v1/rules", rules, "getRules", "Rules and options of each game", "rules", RulesResponse),
    Op(
        "POST",
        "/v1/games",
        create_game,
        "createGame",
        "Create a game",
        "games",
        CreateGameResponse,
        201,
        CreateGameRequest,
        (*BODY, LIMITED, *CAPPED, "admin_required", "invalid_seats", "invalid_options", "invalid_deal"),
        "optional",
        description="Seats are `open` or `bot:<level>`. An explicit `deal` needs the administrator token.",
    ),
    Op(
        "GET",
        "/v1/games",
        list_games,
        "listGames",
        "List open games (listed, waiting for players)",
        "games",
        GameList,
        errors=("invalid_request",),
        params=(
            Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100}, "At most this many."),
        ),
    ),
    Op(
        "GET",
        "/v1/games/{game_id}",
        get_game,
        "getGame",
        "Get a game",
        "games",
        GameSummary,
        errors=(*GAME, "invalid_token"),
        auth="optional",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/join",
        join_game,
        "joinGame",
        "Join a seat: the seat token is shown once",
        "games",
        JoinResponse,
        201,
        JoinRequest,
        (
            *GAME,
            *BODY,
            LIMITED,
            "invalid_invite",
            "invalid_seats",
            "seat_taken",
            "game_full",
            "invalid_token",
        ),
        "optional",
        description="A bot account joins with its API key as bearer token: the seat becomes the bot's and "
        "its turns are announced on /v1/bots/me/stream.",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/leave",
        leave_game,
        "leaveGame",
        "Give up the caller's seat: it opens again before the start, a bot plays it out after",
        "games",
        LeaveResponse,
        errors=(*GAME, *SEAT, *UPLOAD, "game_over"),
        auth="seat",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/rematch",
        rematch_game,
        "rematchGame",
        "Offer or accept the rematch of a finished game: same game, options and seats, new seed",
        "games",
        RematchResponse,
        201,
        RematchRequest,
        errors=(*GAME, *SEAT, *BODY, *CAPPED, "game_not_over", "seat_taken"),
        auth="seat",
        description="Each player calls it with the token of the finished game and gets a token for "
        "the same seat of the rematch; the rematch starts when every player has.",
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/view",
        get_view,
        "getView",
        "The caller's seat view (spectator view without a token)",
        "play",
        ViewResponse,
        errors=(*GAME, *SEAT, "wrong_seat", "invalid_request"),
        auth="optional",
        params=(
            Param("seat", "query", {"type": "integer", "minimum": 0, "maximum": 4}, "Must be the token's."),
        ),
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/actions",
        get_legal_actions,
        "getLegalActions",
        "The caller's legal actions (discards come as a template: choose `count` of `from`)",
        "play",
        LegalActionsResponse,
        errors=(*GAME, *SEAT),
        auth="seat",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/actions",
        post_action,
        "submitAction",
        "Submit an action for the caller's seat",
        "play",
        ActionResponse,
        200,
        ActionRequest,
        (
            *GAME,
            *BODY,
            *SEAT,
            LIMITED,
            "wrong_seat",
            "game_not_started",
            "game_over",
            "not_your_turn",
            "version_conflict",
            "illegal_action",
            "idempotency_key_reused",
        ),
        "seat",
        (
            Param(
                "Idempotency-Key",
                "header",
                {"type": "string", "minLength": 1, "maxLength": 200},
                "A retried request with the same key returns the first result.",
            ),
        ),
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/events",
        game_events,
        "streamEvents",
        "Server-Sent Events of the game, as the caller's seat may see them",
        "play",
        GameEvent,
        errors=(*GAME, "invalid_token", "invalid_request", LIMITED, *STREAMS),
        auth="optional",
        params=(
            Param("Last-Event-ID", "header", STREAM_ID_SCHEMA, "Resume after this event id."),
            Param("last_event_id", "query", STREAM_ID_SCHEMA, "Same as the Last-Event-ID header."),
            Param("access_token", "query", {"type": "string"}, "Seat token, for EventSource clients."),
            Param("follow", "query", {"type": "boolean"}, "false: send the events so far, then end."),
        ),
        stream=True,
        description="Each event's `id` is its stream id; the stream ends after the match is over. A "
        "stream that falls behind ends with `event: lagged` (reconnect with the given Last-Event-ID); one "
        "whose Last-Event-ID is older than the events a running match keeps (ATOUT_STREAM_WINDOW), or "
        "than a finished match's stream (kept ATOUT_FINISHED_STREAM_TTL seconds), gets `event: resync` "
        "with code `stream_window_passed` (read the view, then follow after `last_event_id`) or "
        "`events_expired` (read the game and its /log). When the server stops (a deploy, SIGTERM) the "
        "stream ends with `event: server_closing` and `retry: 1000`: reconnect with your Last-Event-ID.",
    ),
    Op(
        "POST",
        "/v1/bots",
        register_bot,
        "registerBot",
        "Register a bot account: its API key is shown once",
        "bots",
        BotRegistered,
        201,
        RegisterBotRequest,
        (*BODY, LIMITED),
    ),
    Op(
        "GET",
        "/v1/bots/me",
        bot_me,
        "getBot",
        "The bot account and its seats, with whether each is to act now",
        "bots",
        BotStatus,
        errors=SEAT,
        auth="seat",
    ),
    Op(
        "GET",
        "/v1/bots/me/stream",
        bot_stream,
        "streamBotTurns",
        "`your_turn` (with the view and legal actions) in any of the bot's games, and `game_over`",
        "bots",
        BotStreamFrame,
        errors=(*SEAT, "invalid_request", LIMITED, *STREAMS),
        auth="seat",
        params=(
            Param("Last-Event-ID", "header", STREAM_ID_SCHEMA, "Resume after this notice id."),
            Param("last_event_id", "query", STREAM_ID_SCHEMA, "Same as the Last-Event-ID header."),
            Param("access_token", "query", {"type": "string"}, "The API key, for EventSource clients."),
            Param("follow", "query", {"type": "boolean"}, "false: send the notices so far, then end."),
        ),
        stream=True,
        description="Server-Sent Events by default; NDJSON (one JSON object a line) with "
        "`Accept: application/x-ndjson`. A `your_turn` whose game has moved on is left out.",
    ),
    Op(
        "DELETE",
        "/v1/bots/{bot_id}",
        delete_bot,
        "deleteBot",
        "Delete a bot account (administrator): its key stops working, its seats are given up",
        "bots",
        None,
        204,
        errors=(*SEAT, "admin_required", "bot_not_found"),
        auth="seat",
        description="Needs the administrator token. A seat the bot holds opens again before the start "
        "and is played out by a random bot after.",
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/log",
        get_log,
        "getReplayLog",
        "The replay log (seed, options, deal, every action) once the match is over",
        "games",
        LogResponse,
        errors=(*GAME, "invalid_token", "game_not_over"),
        auth="optional",
    ),
)


PATH_PARAM = re.compile(r"\{(\w+)\}")


def _link(
    operation_id: str, description: str, game_id: str | None, token: str | None, body: Any = None
) -> dict[str, Any]:
    parameters = {} if game_id is None else {"path.game_id": game_id}
    if token is not None:
        parameters["header.Authorization"] = f"Bearer {{{token}}}"
    link = {"operationId": operation_id, "description": description, "parameters": parameters}
    return link if body is None else {**link, "requestBody": body}


# OpenAPI links: how a client (and schemathesis' stateful runs) goes from one answer to the next
# call, e.g. create -> join -> act with the seat token the join returned.
_CREATED = "$response.body#/game/id"
_JOINED, _SEAT_TOKEN = "$response.body#/game_id", "$response.body#/token"
LINKS: dict[str, dict[str, Any]] = {
    "createGame": {
        "JoinGame": _link("joinGame", "Take the first open seat of the new game.", _CREATED, None, {}),
        "GetGame": _link("getGame", "The new game.", _CREATED, None),
        "GetSpectatorView": _link("getView", "The new game as a spectator sees it.", _CREATED, None),
    },
    "joinGame": {
        "JoinAgain": _link("joinGame", "Take another seat (all taken: it starts).", _JOINED, None, {}),
        "GetView": _link("getView", "The seat's view, with its token.", _JOINED, _SEAT_TOKEN),
        "GetLegalActions": _link("getLegalActions", "The seat's legal actions.", _JOINED, _SEAT_TOKEN),
        "SubmitAction": _link("submitAction", "Act for the seat.", _JOINED, _SEAT_TOKEN),
        "LeaveGame": _link("leaveGame", "Give the seat up.", _JOINED, _SEAT_TOKEN),
        "RematchGame": _link("rematchGame", "The rematch, once the match is over.", _JOINED, _SEAT_TOKEN),
        "GetReplayLog": _link("getReplayLog", "The replay log, once it is over.", _JOINED, _SEAT_TOKEN),
    },
    "rematchGame": {
        "GetView": _link("getView", "The seat's view of the rematch.", _CREATED, _SEAT_TOKEN),
    },
    "registerBot": {
        "GetBot": _link("getBot", "The bot account, with its API key.", None, "$response.body#/api_key"),
    },
}


async def openapi_json(request: Request) -> Response:
    return JSONResponse(openapi_document())


HOT_PATHS = {"/v1/games/{game_id}/actions", "/v1/games/{game_id}/view"}


def _dispatch(by_method: dict[str, Endpoint]) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await by_method[method](request)

    return endpoint


def routes() -> list[BaseRoute]:
    """One route per path, so a 405's Allow header lists every method of the resource."""
    paths: dict[str, dict[str, Endpoint]] = {}
    for op in sorted(OPS, key=lambda op: op.path not in HOT_PATHS):  # the router tries routes in order
        paths.setdefault(op.path, {})[op.method] = op.endpoint
    return [
        *(Route(path, _dispatch(by_method), methods=list(by_method)) for path, by_method in paths.items()),
        Route("/openapi.json", openapi_json, include_in_schema=False),
    ]


def without_null_defaults(schema: Any) -> Any:
    """``schema`` without its ``"default": null`` entries. A null default says nothing that the
    field's being optional does not, and code generators (openapi-typescript) read a field with a
    default as one the server always fills in, so a request type would require it."""
    if isinstance(schema, dict):
        return {k: without_null_defaults(v) for k, v in schema.items() if not (k == "default" and v is None)}
    if isinstance(schema, list):
        return [without_null_defaults(v) for v in schema]
    return schema


def defaults_in_words(schema: dict[str, Any]) -> dict[str, Any]:
    """A request body's schema with each property's default said in its description instead: code
    generators (openapi-typescript by default) make a property with a ``default`` required, as if
    the server always sent it, and the client would have to send what the server fills in itself."""
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        if "default" in prop:
            prop = {k: v for k, v in prop.items() if k != "default"}
            said = f"Default: `{json.dumps(schema['properties'][name]['default'])}`."
            prop["description"] = f"{prop['description']} {said}" if prop.get("description") else said
        properties[name] = prop
    return {**schema, "properties": properties} if properties else schema


def openapi_document() -> dict[str, Any]:
    models: list[tuple[type[BaseModel], Any]] = [(Problem, "serialization")]
    for op in OPS:
        if op.request:
            models.append((op.request, "validation"))
        if op.response:
            models.append((op.response, "serialization"))
    refs, defs = models_json_schema(models, ref_template="#/components/schemas/{model}")
    problem_ref = refs[(Problem, "serialization")]
    request_bodies = {refs[(op.request, "validation")]["$ref"].rpartition("/")[2] for op in OPS if op.request}
    paths: dict[str, dict[str, Any]] = {}
    for op in OPS:
        parameters: list[dict[str, Any]] = []
        for name in PATH_PARAM.findall(op.path):
            parameters.append({"name": name, "in": "path", "required": True, "schema": {"type": "string"}})
        for p in op.params:
            parameters.append({"name": p.name, "in": p.where, "required": False, "schema": p.schema,
                               "description": p.description})  # fmt: skip
        operation: dict[str, Any] = {
            "operationId": op.operation_id,
            "summary": op.summary,
            "tags": [op.tag],
            "parameters": parameters,
        }
        if op.description:
            operation["description"] = op.description
        if op.request:
            operation["requestBody"] = {
                # no body reads as {} (parse_body): a body is required only where a field is
                "required": any(field.is_required() for field in op.request.model_fields.values()),
                "content": {"application/json": {"schema": refs[(op.request, "validation")]}},
            }
        responses: dict[str, Any] = {}
        if op.response:
            media = "text/event-stream" if op.stream else "application/json"
            content_schema = (
                {
                    # One frame of the stream, as OpenAPI 3.2's itemSchema would say it (and schemathesis
                    # reads it): `data` is JSON text holding one event.
                    "type": "object",
                    "description": f"Server-Sent Events, one frame each: `data` is one {op.response.__name__}"
                    " as JSON, `id` the event's id (send it back as Last-Event-ID), `event` its type; a "
                    "frame that ends the stream early has no `id` and sets `retry` (ms).",
                    "properties": {
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "contentSchema": refs[(op.response, "serialization")],
                        },
                        "event": {"type": "string"},
                        "id": {"type": "string"},
                        "retry": {"type": "integer"},
                    },
                    "required": ["data"],
                }
                if op.stream
                else refs[(op.response, "serialization")]
            )
            responses[str(op.status)] = {
                "description": op.summary,
                "content": {media: {"schema": content_schema}},
            }
        elif op.status == 204:
            responses["204"] = {"description": op.summary}
        if op.operation_id in LINKS:
            responses[str(op.status)]["links"] = LINKS[op.operation_id]
        by_status: dict[int, list[str]] = {}
        # Any call may meet the store down (503 store_unavailable, with Retry-After): say so everywhere.
        for code in (*op.errors, *(c for c in EVERY_OPERATION if c not in op.errors)):
            by_status.setdefault(CODES[code][0], []).append(code)
        for status, codes in sorted(by_status.items()):
            responses[str(status)] = {
                "description": "Problem: " + ", ".join(f"`{c}`" for c in codes),
                "content": {PROBLEM_JSON: {"schema": problem_ref}},
            }
        operation["responses"] = responses
        if op.auth == "seat":
            operation["security"] = [{"seatToken": []}]
        elif op.auth == "optional":
            operation["security"] = [{}, {"seatToken": []}]
        else:
            operation["security"] = []  # said outright: no credentials
        paths.setdefault(op.path, {})[op.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Atout",
            "version": API_VERSION,
            "license": {"name": "MIT", "identifier": "MIT"},
            "description": "Le 500, Le Rough and five-handed euchre for app and bot developers. "
            "Errors are application/problem+json with a stable `code`.",
        },
        # relative: the service that serves this document (GET /openapi.json) is the one it describes
        "servers": [{"url": "/", "description": "This service (`make serve` runs it on localhost:8000)."}],
        "paths": paths,
        "components": {
            "schemas": {
                name: defaults_in_words(schema) if name in request_bodies else schema
                for name, schema in without_null_defaults(defs.get("$defs", {})).items()
            },
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The seat token from joinGame (or the administrator token).",
                }
            },
        },
    }
