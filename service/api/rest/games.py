"""The REST handlers of games and their play: the rules, create, list, get, join, leave, rematch, the
seat's view and legal actions, an action, the replay log. Each parses its request, calls
:class:`service.games.Games` and answers; Games raises the problems (problem+json) a call may meet.
The reads answer with an ETag and a Cache-Control, and 304 to a copy still current
(:mod:`service.api.rest.caching`). The game's event stream is in :mod:`service.api.rest.streams`,
with the other streams.

:data:`GAME_OPS` declares these endpoints, each once (method, path, handler, and what the OpenAPI
document says of it: summary, bodies, problem codes, auth, parameters): the Starlette routes
(:mod:`service.api.rest.routing`) and the document (:mod:`service.api.rest.openapi`) are both read
from it, so an endpoint cannot be served without being described, nor the reverse."""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import Response

import engine
from schema.games import (
    ActionRequest,
    ActionResponse,
    CreateGameRequest,
    CreateGameResponse,
    GameList,
    GameStreamFrame,
    GameSummary,
    JoinRequest,
    JoinResponse,
    LeaveResponse,
    LegalActionsResponse,
    LogResponse,
    RematchRequest,
    RematchResponse,
    RulesResponse,
    ViewResponse,
)
from schema.pages import Page
from service.api.ratelimit import Client, rate_limit
from service.api.rest import caching
from service.api.rest.deprecation import V1_LEGACY
from service.api.rest.headers import CONDITIONAL
from service.api.rest.operation import (
    ANONYMOUS,
    ANY_CREDENTIAL,
    BODY,
    CAPPED,
    GAME,
    IN_A_SEAT,
    LIMITED,
    SEAT,
    STREAMS,
    UPLOAD,
    Op,
    Param,
    page_params,
    stream_params,
)
from service.api.rest.requests import bearer, games_of, int_query, ok, page_query, parse_body
from service.api.rest.streams import game_events
from service.base.problems import ProblemError
from service.games.core import ADMIN_TOKEN, BOT_KEY, PLAYER_TOKEN
from service.games.play import key_fits
from service.store.keys import STATUS_FINISHED


@functools.cache
def _rules_body() -> bytes:
    """The rules as JSON: the same bytes for the life of the process (they change with a deploy)."""
    return RulesResponse.of_engine(engine.games()).model_dump_json().encode()


async def rules(request: Request) -> Response:
    body = _rules_body()
    etag = caching.content_etag(body)
    unchanged = caching.not_modified(request, etag, caching.RULES, vary=False)
    if unchanged is not None:
        return unchanged
    return Response(body, media_type="application/json", headers=caching.headers(etag, caching.RULES, False))


async def create_game(request: Request) -> Response:
    games = games_of(request)
    await rate_limit(
        Client.of(request), "create_game", await games.credentials.account_token(bearer(request))
    )
    body = await parse_body(request, CreateGameRequest)
    record, invite = await games.lobby.create(body.root, bearer(request))
    summary = games.lobby.summary(record)
    return ok(
        CreateGameResponse(game=summary, invite_code=invite),
        201,
        headers={"Location": f"/v1/games/{record.id}"},
    )


async def list_games(request: Request) -> Response:
    asked = page_query(request, Page)
    page = await games_of(request).lobby.open_games(asked.limit, asked.cursor)
    return ok(page, headers={"Cache-Control": caching.REVALIDATE})


async def get_game(request: Request) -> Response:
    games = games_of(request)
    record = await games.core.get(request.path_params["game_id"])
    caller = await games.core.caller_of(record, bearer(request), required=False)
    etag, cache_control = caching.game_etag(record, "game", caller), caching.for_caller(caller)
    unchanged = caching.not_modified(request, etag, cache_control)
    if unchanged is not None:
        return unchanged
    return ok(games.lobby.summary(record, caller), headers=caching.headers(etag, cache_control))


async def join_game(request: Request) -> Response:
    gid = request.path_params["game_id"]
    bot_key = bearer(request)
    await rate_limit(Client.of(request), "join", await games_of(request).credentials.account_token(bot_key))
    body = await parse_body(request, JoinRequest)
    seat, token, started = await games_of(request).lobby.join(
        gid, body.seat, body.name, body.invite_code, bot_key, client_seed=body.client_seed
    )
    return ok(JoinResponse(game_id=gid, seat=seat, token=token, started=started), 201)


async def get_view(request: Request) -> Response:
    seat = int_query(request, "seat", None, 0, 4)
    games = games_of(request)
    record, caller = await games.play.viewer(request.path_params["game_id"], bearer(request), seat)
    etag, cache_control = caching.game_etag(record, "view", caller), caching.for_caller(caller)
    unchanged = caching.not_modified(request, etag, cache_control)
    if unchanged is not None:
        return unchanged
    return ok(games.play.view_of(record, caller), headers=caching.headers(etag, cache_control))


async def get_legal_actions(request: Request) -> Response:
    games = games_of(request)
    record, caller = await games.play.seated(request.path_params["game_id"], bearer(request))
    etag = caching.game_etag(record, "actions", caller)
    unchanged = caching.not_modified(request, etag, caching.PRIVATE)
    if unchanged is not None:
        return unchanged
    return ok(games.play.legal_actions_of(record, caller), headers=caching.headers(etag, caching.PRIVATE))


async def post_action(request: Request) -> Response:
    """A move: the request parsed, the checks and their order are ``games.play.submit``'s."""
    key = request.headers.get("idempotency-key")

    async def parse() -> ActionRequest:
        if not key_fits(key):
            raise ProblemError("invalid_request", "Idempotency-Key must be 1 to 200 characters.")
        return await parse_body(request, ActionRequest)

    response = await games_of(request).play.submit(
        request.path_params["game_id"],
        bearer(request),
        parse,
        key,
        count=functools.partial(rate_limit, Client.of(request), "act"),
    )
    return ok(response, headers={"Idempotent-Replayed": "true"} if response.replayed else None)


async def leave_game(request: Request) -> Response:
    gid = request.path_params["game_id"]
    seat, outcome = await games_of(request).lobby.leave(gid, bearer(request))
    return ok(LeaveResponse(game_id=gid, seat=seat, outcome=outcome))  # type: ignore[arg-type]


async def rematch_game(request: Request) -> Response:
    games = games_of(request)
    body = await parse_body(request, RematchRequest)
    record, seat, token, started = await games.lobby.rematch(
        request.path_params["game_id"], bearer(request), client_seed=body.client_seed
    )
    return ok(
        RematchResponse(game=games.lobby.summary(record), seat=seat, token=token, started=started),
        201,
        headers={"Location": f"/v1/games/{record.id}"},
    )


async def get_log(request: Request) -> Response:
    games = games_of(request)
    record, _caller = await games.play.log_reader(request.path_params["game_id"], bearer(request))
    etag = caching.log_etag(record)
    # A finished match's log never changes and is everyone's; before the end only the administrator
    # reads it, and it grows with every move.
    finished = record.status == STATUS_FINISHED
    cache_control = caching.FINISHED if finished else caching.PRIVATE
    unchanged = caching.not_modified(request, etag, cache_control, vary=not finished)
    if unchanged is not None:
        return unchanged
    return ok(
        await games.play.replay_log_of(record), headers=caching.headers(etag, cache_control, not finished)
    )


GAME_OPS: tuple[Op, ...] = (
    Op(
        "GET",
        "/v1/rules",
        rules,
        "getRules",
        "Rules and options of each game",
        "rules",
        RulesResponse,
        headers=CONDITIONAL,
    ),
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
        (
            *BODY,
            LIMITED,
            *CAPPED,
            "admin_required",
            "invalid_seats",
            "invalid_options",
            "invalid_deal",
            "rated_game_refused",
        ),
        (ANONYMOUS, PLAYER_TOKEN, BOT_KEY, ADMIN_TOKEN),
        description="Seats are `open` or `bot:<level>`. An explicit `deal` needs the administrator token.",
        headers=("Location",),
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
        headers=("Cache-Control",),
        params=page_params(limit="At most this many."),
        description="Newest first, a page at a time: each page's `next_cursor` (null on the last) "
        "fetches the next. Paging never shows a game twice, and never misses one that was open when "
        "it began and still is.",
    ),
    Op(
        "GET",
        "/v1/games/{game_id}",
        get_game,
        "getGame",
        "Get a game",
        "games",
        GameSummary,
        errors=(*GAME, "invalid_token", "seat_not_held"),
        auth=ANY_CREDENTIAL,
        headers=(*CONDITIONAL, "Vary"),
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
            "already_seated",
            "rated_needs_identity",
        ),
        (ANONYMOUS, PLAYER_TOKEN, BOT_KEY),
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
        errors=(*GAME, *SEAT, *UPLOAD, "game_finished"),
        auth=IN_A_SEAT,
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
        errors=(*GAME, *SEAT, *BODY, *CAPPED, "game_not_finished", "seat_taken"),
        auth=IN_A_SEAT,
        description="Each player calls it with the token of the finished game and gets a token for "
        "the same seat of the rematch; the rematch starts when every player has.",
        headers=("Location",),
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
        auth=ANY_CREDENTIAL,
        params=(
            Param(
                "seat",
                "query",
                {"type": "integer", "minimum": 0, "maximum": 4},
                "The seat to see from: the credential's (an account's: one of its seats).",
            ),
        ),
        headers=(*CONDITIONAL, "Vary"),
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
        auth=IN_A_SEAT,
        headers=(*CONDITIONAL, "Vary"),
        description="Deprecated, kept for older clients: the seat's view (`getView`) holds its "
        "`legal_actions`, and so does each `your_turn` event of its stream.",
        deprecation=V1_LEGACY,
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
            "game_finished",
            "not_your_turn",
            "version_conflict",
            "illegal_action",
            "idempotency_key_reused",
        ),
        IN_A_SEAT,
        (
            Param(
                "Idempotency-Key",
                "header",
                {"type": "string", "minLength": 1, "maxLength": 200},
                "A retried request with the same key returns the first result.",
            ),
        ),
        headers=("Idempotent-Replayed",),
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/events",
        game_events,
        "streamEvents",
        "The game's events (SSE or NDJSON), as the caller's seat may see them",
        "play",
        GameStreamFrame,
        errors=(*GAME, "invalid_token", "seat_not_held", "invalid_request", LIMITED, *STREAMS),
        auth=ANY_CREDENTIAL,
        params=(*stream_params("event", "Seat token"),),
        stream=True,
        description="Server-Sent Events by default; NDJSON (one frame a line, what an SSE frame's `data` "
        "holds) with `Accept: application/x-ndjson`. "
        "Each frame is an envelope `{id, version, event}`: `id` the stream id (the SSE `id`), `version` "
        "the game's once the event happened, `event` the same object a move's answer gives (the SSE "
        "`event` is its `type`; skip a `type` you do not know). The stream ends after the game is "
        "finished. A "
        "stream that falls behind ends with `event: lagged` (reconnect with the given Last-Event-ID); one "
        "whose Last-Event-ID is older than the events a match keeps (its last ATOUT_STREAM_WINDOW, "
        "1024 by default: a whole typical match), or than a finished match's stream (kept "
        "ATOUT_FINISHED_STREAM_TTL seconds, 15 minutes by default), gets `event: resync` with code "
        "`stream_window_passed` (also for an id the stream never had: a store restored from an older "
        "backup; read the view, then follow after `last_event_id`; a finished match: "
        "read the view and its /log) or `events_expired` (read the game and its /log). When the server "
        "stops (a deploy, SIGTERM) the "
        "stream ends with `event: server_closing` and `retry: 1000`: reconnect with your Last-Event-ID.",
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/log",
        get_log,
        "getReplayLog",
        "The replay log (seed, options, deal, every action) once the match is over",
        "games",
        LogResponse,
        errors=(*GAME, "invalid_token", "game_not_finished"),
        auth=ANY_CREDENTIAL,
        headers=(*CONDITIONAL, "Vary"),
    ),
)
