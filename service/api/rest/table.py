"""The REST endpoints under /v1, declared once: each :class:`Op` is a method and path, its handler, and
what the OpenAPI document says of it (summary, bodies, problem codes, auth, parameters). The Starlette
routes (:mod:`service.api.rest.routing`) and the document (:mod:`service.api.rest.openapi`) are both
read from :data:`service.api.rest.endpoints.OPS` (these, the players' of
:mod:`service.api.rest.player_ops` and the webhooks' of :mod:`service.api.rest.webhook_table`), so an
endpoint cannot be served without being described, nor the reverse."""

from __future__ import annotations

from schema.bodies import (
    ActionRequest,
    ActionResponse,
    BotRegistered,
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
    RegisterBotRequest,
    RematchRequest,
    RematchResponse,
    RulesResponse,
    ViewResponse,
)
from service.api.rest.bots import bot_me, delete_bot, register_bot
from service.api.rest.games import (
    create_game,
    get_game,
    get_legal_actions,
    get_log,
    get_view,
    join_game,
    leave_game,
    list_games,
    post_action,
    rematch_game,
    rules,
)
from service.api.rest.headers import CONDITIONAL
from service.api.rest.operation import (
    BODY,
    CAPPED,
    GAME,
    LIMITED,
    SEAT,
    STREAMS,
    UPLOAD,
    Op,
    Param,
)
from service.api.rest.streams import bot_stream, game_events
from service.store.keys import RESUME_AFTER_PATTERN

# Where a stream resumes: after a stream id (Redis's ``<ms>-<seq>``), or from the start when empty, as
# service.store.keys.RESUME_AFTER_PATTERN accepts it.
RESUME_SCHEMA = {"type": "string", "pattern": RESUME_AFTER_PATTERN.pattern, "examples": ["1733140000000-0"]}
RESUME = "Resume after this {} id; empty or absent: from the start."


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
        "optional",
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
        params=(
            Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100}, "At most this many."),
            Param(
                "cursor",
                "query",
                {"type": "string", "minLength": 1, "maxLength": 200},
                "The `next_cursor` of the previous page, as it came (none: the first page).",
            ),
        ),
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
        errors=(*GAME, "invalid_token"),
        auth="optional",
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
        auth="optional",
        params=(
            Param("seat", "query", {"type": "integer", "minimum": 0, "maximum": 4}, "Must be the token's."),
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
        auth="seat",
        headers=(*CONDITIONAL, "Vary"),
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
        headers=("Idempotent-Replayed",),
    ),
    Op(
        "GET",
        "/v1/games/{game_id}/events",
        game_events,
        "streamEvents",
        "The game's events (SSE or NDJSON), as the caller's seat may see them",
        "play",
        GameEvent,
        errors=(*GAME, "invalid_token", "invalid_request", LIMITED, *STREAMS),
        auth="optional",
        params=(
            Param("Last-Event-ID", "header", RESUME_SCHEMA, RESUME.format("event")),
            Param("last_event_id", "query", RESUME_SCHEMA, "Same as the Last-Event-ID header, which wins."),
            Param("access_token", "query", {"type": "string"}, "Seat token, for EventSource clients."),
            Param("follow", "query", {"type": "boolean"}, "false: send the events so far, then end."),
        ),
        stream=True,
        description="Server-Sent Events by default; NDJSON (one event a line, what an SSE frame's `data` "
        "holds) with `Accept: application/x-ndjson`. "
        "Each event's `id` is its stream id; the stream ends after the match is over. A "
        "stream that falls behind ends with `event: lagged` (reconnect with the given Last-Event-ID); one "
        "whose Last-Event-ID is older than the events a match keeps (its last ATOUT_STREAM_WINDOW, "
        "1024 by default: a whole typical match), or than a finished match's stream (kept "
        "ATOUT_FINISHED_STREAM_TTL seconds, 15 minutes by default), gets `event: resync` with code "
        "`stream_window_passed` (read the view, then follow after `last_event_id`; a finished match: "
        "read the view and its /log) or `events_expired` (read the game and its /log). When the server "
        "stops (a deploy, SIGTERM) the "
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
            Param("Last-Event-ID", "header", RESUME_SCHEMA, RESUME.format("notice")),
            Param("last_event_id", "query", RESUME_SCHEMA, "Same as the Last-Event-ID header, which wins."),
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
        headers=(*CONDITIONAL, "Vary"),
    ),
)
