"""The REST handlers of games and their play: the rules, create, list, get, join, leave, rematch, the
seat's view and legal actions, an action, the replay log. Each parses its request, calls
:class:`service.games.Games` and answers; Games raises the problems (problem+json) a call may meet.
The reads answer with an ETag and a Cache-Control, and 304 to a copy still current
(:mod:`service.api.rest.caching`). The game's event stream is in :mod:`service.api.rest.streams`,
with the other streams."""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import Response

import engine
from schema.games import (
    ActionRequest,
    CreateGameRequest,
    CreateGameResponse,
    JoinRequest,
    JoinResponse,
    LeaveResponse,
    RematchRequest,
    RematchResponse,
    RulesResponse,
)
from schema.pages import Page
from service.api.ratelimit import Client, rate_limit
from service.api.rest import caching
from service.api.rest.requests import bearer, games_of, int_query, ok, page_query, parse_body
from service.base.problems import ProblemError
from service.games.play import key_fits
from service.store.keys import STATUS_FINISHED


@functools.cache
def _rules_body() -> bytes:
    """The rules as JSON: the same bytes for the life of the process (they change with a deploy)."""
    return RulesResponse.model_validate({"games": engine.games()}).model_dump_json().encode()


async def rules(request: Request) -> Response:
    body = _rules_body()
    etag = caching.content_etag(body)
    unchanged = caching.not_modified(request, etag, caching.RULES, vary=False)
    if unchanged is not None:
        return unchanged
    return Response(body, media_type="application/json", headers=caching.headers(etag, caching.RULES, False))


async def create_game(request: Request) -> Response:
    games = games_of(request)
    await rate_limit(Client.of(request), "create_game", await games.account_token(bearer(request)))
    body = await parse_body(request, CreateGameRequest)
    record, invite = await games.create(body.root, bearer(request))
    summary = games.summary(record)
    return ok(
        CreateGameResponse(game=summary, invite_code=invite),
        201,
        headers={"Location": f"/v1/games/{record.id}"},
    )


async def list_games(request: Request) -> Response:
    asked = page_query(request, Page)
    page = await games_of(request).open_games(asked.limit, asked.cursor)
    return ok(page, headers={"Cache-Control": caching.REVALIDATE})


async def get_game(request: Request) -> Response:
    games = games_of(request)
    record = await games.get(request.path_params["game_id"])
    caller = await games.caller_of(record, bearer(request), required=False)
    etag, cache_control = caching.game_etag(record, "game", caller), caching.for_caller(caller)
    unchanged = caching.not_modified(request, etag, cache_control)
    if unchanged is not None:
        return unchanged
    return ok(games.summary(record, caller), headers=caching.headers(etag, cache_control))


async def join_game(request: Request) -> Response:
    gid = request.path_params["game_id"]
    bot_key = bearer(request)
    await rate_limit(Client.of(request), "join", await games_of(request).account_token(bot_key))
    body = await parse_body(request, JoinRequest)
    seat, token, started = await games_of(request).join(
        gid, body.seat, body.name, body.invite_code, bot_key, client_seed=body.client_seed
    )
    return ok(JoinResponse(game_id=gid, seat=seat, token=token, started=started), 201)


async def get_view(request: Request) -> Response:
    seat = int_query(request, "seat", None, 0, 4)
    games = games_of(request)
    record, caller = await games.viewer(request.path_params["game_id"], bearer(request), seat)
    etag, cache_control = caching.game_etag(record, "view", caller), caching.for_caller(caller)
    unchanged = caching.not_modified(request, etag, cache_control)
    if unchanged is not None:
        return unchanged
    return ok(games.view_of(record, caller), headers=caching.headers(etag, cache_control))


async def get_legal_actions(request: Request) -> Response:
    games = games_of(request)
    record, caller = await games.seated(request.path_params["game_id"], bearer(request))
    etag = caching.game_etag(record, "actions", caller)
    unchanged = caching.not_modified(request, etag, caching.PRIVATE)
    if unchanged is not None:
        return unchanged
    return ok(games.legal_actions_of(record, caller), headers=caching.headers(etag, caching.PRIVATE))


async def post_action(request: Request) -> Response:
    """A move: the request parsed, the checks and their order are :meth:`Games.submit`'s."""
    key = request.headers.get("idempotency-key")

    async def parse() -> ActionRequest:
        if not key_fits(key):
            raise ProblemError("invalid_request", "Idempotency-Key must be 1 to 200 characters.")
        return await parse_body(request, ActionRequest)

    response = await games_of(request).submit(
        request.path_params["game_id"],
        bearer(request),
        parse,
        key,
        count=functools.partial(rate_limit, Client.of(request), "act"),
    )
    return ok(response, headers={"Idempotent-Replayed": "true"} if response.replayed else None)


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
    return ok(
        RematchResponse(game=games.summary(record), seat=seat, token=token, started=started),
        201,
        headers={"Location": f"/v1/games/{record.id}"},
    )


async def get_log(request: Request) -> Response:
    games = games_of(request)
    record, _caller = await games.log_reader(request.path_params["game_id"], bearer(request))
    etag = caching.log_etag(record)
    # A finished match's log never changes and is everyone's; before the end only the administrator
    # reads it, and it grows with every move.
    finished = record.status == STATUS_FINISHED
    cache_control = caching.FINISHED if finished else caching.PRIVATE
    unchanged = caching.not_modified(request, etag, cache_control, vary=not finished)
    if unchanged is not None:
        return unchanged
    return ok(await games.replay_log_of(record), headers=caching.headers(etag, cache_control, not finished))
