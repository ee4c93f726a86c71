"""The REST handlers of players: create a guest, the player's own record (read, change, link to an
identity, delete), their list of games, invitations, the players they block. The player's stream is
:func:`service.api.rest.streams.player_stream`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.games import JoinResponse
from schema.pages import TopPage
from schema.players import (
    AcceptInvitationRequest,
    BlockList,
    BlockRequest,
    Invitation,
    InvitationList,
    InviteRequest,
    LinkIdentityRequest,
    MyGame,
    MyGamesPage,
    NewPlayerRequest,
    PlayerCreated,
    UpdateMeRequest,
    me_of,
)
from service.api.ratelimit import Client, rate_limit
from service.api.rest.requests import bearer, games_of, ok, page_query, parse_body
from service.games.players import DEFAULT_NAME, game_status


async def create_player(request: Request) -> Response:
    await rate_limit(Client.of(request), "create_player")  # per client address: a guest has no credential yet
    body = await parse_body(request, NewPlayerRequest)
    pid, token = await games_of(request).create_guest(body.name, body.locale)
    return ok(PlayerCreated(player_id=pid, name=body.name or DEFAULT_NAME, token=token), 201)


async def get_me(request: Request) -> Response:
    pid, player = await games_of(request).require_player(bearer(request))
    return ok(me_of(pid, player), headers={"Cache-Control": "private, no-store"})


async def update_me(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.require_player(token)  # 401 before a body error tells a stranger anything
    body = await parse_body(request, UpdateMeRequest)
    await games.update_me(token, body.name, body.locale, body.invitations)
    return await get_me(request)


async def link_identity(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.require_player(token)
    body = await parse_body(request, LinkIdentityRequest)
    await games.link_identity(token, body.identity_token)
    return await get_me(request)


async def delete_me(request: Request) -> Response:
    await games_of(request).delete_me(bearer(request))
    return Response(status_code=204)


async def my_games(request: Request) -> Response:
    status = game_status(request.query_params.get("status"), ("query", "status"))
    asked = page_query(request, TopPage)
    page, cursor = await games_of(request).my_games(bearer(request), status, asked.cursor, asked.limit)
    games = [MyGame.model_validate(g, from_attributes=True) for g in page]
    return ok(MyGamesPage(games=games, next_cursor=cursor), headers={"Cache-Control": "private, no-store"})


async def invite(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await rate_limit(Client.of(request), "join", await games.account_token(token))
    await games.seated(request.path_params["game_id"], token)  # 401 before a body error tells anything
    body = await parse_body(request, InviteRequest)
    invitation = await games.invite(request.path_params["game_id"], token, body.player_id)
    return ok(Invitation.model_validate(invitation), 201)


async def my_invitations(request: Request) -> Response:
    held = await games_of(request).my_invitations(bearer(request))
    return ok(InvitationList(invitations=[Invitation.model_validate(i) for i in held]))


async def accept_invitation(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.require_player(token)
    body = await parse_body(request, AcceptInvitationRequest)
    gid, seat, seat_token, started = await games.accept_invitation(
        token, request.path_params["invitation_id"], body.seat, body.client_seed
    )
    return ok(JoinResponse(game_id=gid, seat=seat, token=seat_token, started=started), 201)


async def decline_invitation(request: Request) -> Response:
    await games_of(request).decline_invitation(bearer(request), request.path_params["invitation_id"])
    return Response(status_code=204)


async def block_player(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.require_player(token)  # 401 before a body error tells a stranger anything
    body = await parse_body(request, BlockRequest)
    await games.block(token, body.player_id)
    return Response(status_code=204)


async def unblock_player(request: Request) -> Response:
    await games_of(request).unblock(bearer(request), request.path_params["player_id"])
    return Response(status_code=204)


async def my_blocks(request: Request) -> Response:
    held = await games_of(request).blocks(bearer(request))
    return ok(BlockList(players=held), headers={"Cache-Control": "private, no-store"})
