"""The REST handlers of tournaments: create one (the administrator or a bot account), read one."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.tournaments import CreateTournamentRequest
from service.api.ratelimit import Client, rate_limit
from service.api.rest.requests import bearer, games_of, ok, parse_body
from service.api.rest.streams import account_stream


async def create_tournament(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    await rate_limit(Client.of(request), "create_game", await games.account_token(token))
    body = await parse_body(request, CreateTournamentRequest)
    return ok(await games.create_tournament(body, token), 201)


async def get_tournament(request: Request) -> Response:
    return ok(await games_of(request).tournament(request.path_params["tournament_id"]))


async def tournament_events(request: Request) -> Response:
    """The tournament's events (SSE, or NDJSON), resumable, as an account's notices are streamed."""
    games, tid = games_of(request), request.path_params["tournament_id"]

    async def open_stream(key: str | None, after: str | None, name: str) -> tuple[str, str]:
        return await games.open_tournament_stream(tid, after, name)

    return await account_stream(request, open_stream)
