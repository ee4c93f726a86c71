"""The REST handlers of bot accounts: register one, read it with its seats, delete it (administrator).
A bot's turns come on its stream, :func:`service.api.rest.streams.bot_stream`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.games import BotRegistered, BotSeat, BotStatus, RegisterBotRequest
from service.api.ratelimit import Client, rate_limit
from service.api.rest.requests import bearer, games_of, ok, parse_body


async def register_bot(request: Request) -> Response:
    await rate_limit(
        Client.of(request), "register_bot", await games_of(request).account_token(bearer(request))
    )
    body = await parse_body(request, RegisterBotRequest)
    bid, key = await games_of(request).register_bot(body.name, body.contact)
    return ok(BotRegistered(bot_id=bid, name=body.name, api_key=key), 201)


async def bot_me(request: Request) -> Response:
    bid, name, seats = await games_of(request).bot_status(bearer(request))
    return ok(BotStatus(bot_id=bid, name=name, seats=[BotSeat.model_validate(s) for s in seats]))


async def delete_bot(request: Request) -> Response:
    await games_of(request).delete_bot(request.path_params["bot_id"], bearer(request))
    return Response(status_code=204)
