"""The REST handlers of bot accounts: register one, read it with its seats, delete it (administrator).
A bot's turns come on its stream, :func:`service.api.rest.streams.bot_stream`; :data:`BOT_OPS` declares
the endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.games import (
    BotRegistered,
    BotSeat,
    BotStatus,
    BotStreamFrame,
    RegisterBotRequest,
)
from service.api.ratelimit import Client, rate_limit
from service.api.rest.operation import (
    ADMIN_ONLY,
    BODY,
    BOT_ONLY,
    CREDENTIAL,
    LIMITED,
    STREAMS,
    Op,
    stream_params,
)
from service.api.rest.requests import bearer, games_of, ok, parse_body
from service.api.rest.streams import bot_stream


async def register_bot(request: Request) -> Response:
    await rate_limit(
        Client.of(request), "register_bot", await games_of(request).credentials.account_token(bearer(request))
    )
    body = await parse_body(request, RegisterBotRequest)
    bid, key = await games_of(request).bots.register_bot(body.name, body.contact)
    return ok(BotRegistered(bot_id=bid, name=body.name, api_key=key), 201)


async def bot_me(request: Request) -> Response:
    bid, name, seats = await games_of(request).bots.bot_status(bearer(request))
    return ok(BotStatus(bot_id=bid, name=name, seats=[BotSeat.model_validate(s) for s in seats]))


async def delete_bot(request: Request) -> Response:
    await games_of(request).bots.delete_bot(request.path_params["bot_id"], bearer(request))
    return Response(status_code=204)


BOT_OPS: tuple[Op, ...] = (
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
        errors=CREDENTIAL,
        auth=BOT_ONLY,
    ),
    Op(
        "GET",
        "/v1/bots/me/stream",
        bot_stream,
        "streamBotTurns",
        "`your_turn` (with the view and legal actions) in any of the bot's games, and `game_finished`",
        "bots",
        BotStreamFrame,
        errors=(*CREDENTIAL, "invalid_request", LIMITED, *STREAMS),
        auth=BOT_ONLY,
        params=(*stream_params("notice", "The API key"),),
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
        errors=("missing_token", "admin_required", "bot_not_found"),
        auth=ADMIN_ONLY,
        description="Needs the administrator token. A seat the bot holds opens again before the start "
        "and is played out by a random bot after.",
    ),
)
