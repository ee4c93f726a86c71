"""The REST handlers of players: create a guest, the player's own record (read, change, link to an
identity, delete), their list of games, invitations, the players they block. The player's stream is
:func:`service.api.rest.streams.player_stream`. :data:`PLAYER_OPS` declares the endpoints."""

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
    Me,
    MyGame,
    MyGamesPage,
    NewPlayerRequest,
    PlayerCreated,
    PlayerStreamFrame,
    UpdateMeRequest,
    me_of,
)
from service.api.ratelimit import Client, rate_limit
from service.api.rest.operation import (
    BODY,
    GAME,
    LIMITED,
    PLAYER_ONLY,
    SEAT,
    STREAMS,
    Op,
    Param,
    page_params,
    stream_params,
)
from service.api.rest.requests import bearer, games_of, ok, page_query, parse_body
from service.api.rest.streams import player_stream
from service.games.core import PLAYER_TOKEN, SEAT_TOKEN
from service.games.players import DEFAULT_NAME, game_status


async def create_player(request: Request) -> Response:
    await rate_limit(Client.of(request), "create_player")  # per client address: a guest has no credential yet
    body = await parse_body(request, NewPlayerRequest)
    pid, token = await games_of(request).players.create_guest(body.name, body.locale)
    return ok(PlayerCreated(player_id=pid, name=body.name or DEFAULT_NAME, token=token), 201)


async def get_me(request: Request) -> Response:
    pid, player = await games_of(request).players.require_player(bearer(request))
    return ok(me_of(pid, player), headers={"Cache-Control": "private, no-store"})


async def update_me(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.players.require_player(token)  # 401 before a body error tells a stranger anything
    body = await parse_body(request, UpdateMeRequest)
    await games.players.update_me(token, body.name, body.locale, body.invitations)
    return await get_me(request)


async def link_identity(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.players.require_player(token)
    body = await parse_body(request, LinkIdentityRequest)
    await games.players.link_identity(token, body.identity_token)
    return await get_me(request)


async def delete_me(request: Request) -> Response:
    await games_of(request).players.delete_me(bearer(request))
    return Response(status_code=204)


async def my_games(request: Request) -> Response:
    status = game_status(request.query_params.get("status"), ("query", "status"))
    asked = page_query(request, TopPage)
    page, cursor = await games_of(request).players.my_games(
        bearer(request), status, asked.cursor, asked.limit
    )
    games = [MyGame.model_validate(g, from_attributes=True) for g in page]
    return ok(MyGamesPage(games=games, next_cursor=cursor), headers={"Cache-Control": "private, no-store"})


async def invite(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await rate_limit(Client.of(request), "join", await games.credentials.account_token(token))
    await games.play.seated(request.path_params["game_id"], token)  # 401 before a body error tells anything
    body = await parse_body(request, InviteRequest)
    invitation = await games.invitations.invite(request.path_params["game_id"], token, body.player_id)
    return ok(Invitation.model_validate(invitation), 201)


async def my_invitations(request: Request) -> Response:
    held = await games_of(request).invitations.my_invitations(bearer(request))
    return ok(InvitationList(invitations=[Invitation.model_validate(i) for i in held]))


async def accept_invitation(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.players.require_player(token)
    body = await parse_body(request, AcceptInvitationRequest)
    gid, seat, seat_token, started = await games.invitations.accept_invitation(
        token, request.path_params["invitation_id"], body.seat, body.client_seed
    )
    return ok(JoinResponse(game_id=gid, seat=seat, token=seat_token, started=started), 201)


async def decline_invitation(request: Request) -> Response:
    await games_of(request).invitations.decline_invitation(
        bearer(request), request.path_params["invitation_id"]
    )
    return Response(status_code=204)


async def block_player(request: Request) -> Response:
    games = games_of(request)
    token = bearer(request)
    await games.players.require_player(token)  # 401 before a body error tells a stranger anything
    body = await parse_body(request, BlockRequest)
    await games.players.block(token, body.player_id)
    return Response(status_code=204)


async def unblock_player(request: Request) -> Response:
    await games_of(request).players.unblock(bearer(request), request.path_params["player_id"])
    return Response(status_code=204)


async def my_blocks(request: Request) -> Response:
    held = await games_of(request).players.blocks(bearer(request))
    return ok(BlockList(players=held), headers={"Cache-Control": "private, no-store"})


# A player's credential: a player token, or an identity provider's JWT (each refusal its own code).
PLAYER = (
    "missing_token",
    "invalid_token",
    "token_malformed",
    "token_unknown_issuer",
    "token_algorithm_refused",
    "token_unknown_key",
    "token_bad_signature",
    "token_expired",
    "token_not_yet_valid",
    "token_wrong_audience",
    "identity_provider_unavailable",
)
JOINED = ("game_full", "seat_taken", "already_seated", "invalid_seats", "too_many_games", "version_conflict")

PLAYER_OPS: tuple[Op, ...] = (
    Op(
        "POST",
        "/v1/players",
        create_player,
        "createPlayer",
        "Create a guest player: its id and token (shown once)",
        "players",
        PlayerCreated,
        201,
        NewPlayerRequest,
        (*BODY, LIMITED),
        description="For apps without an identity provider of their own, and for /play. Join tables "
        "with the token (`Authorization: Bearer <token>`): the seat is the player's, and the same token "
        "plays it from any device. Link the guest to an identity later with linkIdentity.",
    ),
    Op(
        "GET", "/v1/me", get_me, "getMe", "The player you are", "players", Me, errors=PLAYER, auth=PLAYER_ONLY
    ),
    Op(
        "PATCH",
        "/v1/me",
        update_me,
        "updateMe",
        "Change your display name, locale, or who may invite you",
        "players",
        Me,
        request=UpdateMeRequest,
        errors=(*PLAYER, *BODY),
        auth=PLAYER_ONLY,
        description="Seats already taken keep the name they were taken with. `invitations`: `nobody` "
        "refuses every invitation (403 invitation_refused to the inviter), `everyone` takes them again "
        "(but the players you block).",
    ),
    Op(
        "DELETE",
        "/v1/me",
        delete_me,
        "deleteMe",
        "Delete your account: your name leaves every game, your credentials stop working",
        "players",
        None,
        204,
        errors=PLAYER,
        auth=PLAYER_ONLY,
        description="Your seats in games not over are played out by a random bot; your finished games "
        "stay for the other players, with your seat nameless.",
    ),
    Op(
        "POST",
        "/v1/me/identity",
        link_identity,
        "linkIdentity",
        "Link this guest to an identity of your app's provider (a JWT)",
        "players",
        Me,
        request=LinkIdentityRequest,
        errors=(*PLAYER, *BODY, "identity_taken"),
        auth=PLAYER_ONLY,
        description="From then on the guest token and the identity's JWTs are the same player.",
    ),
    Op(
        "GET",
        "/v1/me/games",
        my_games,
        "listMyGames",
        "Your games: those where it is your turn first, then waiting or in play, then over",
        "players",
        MyGamesPage,
        errors=(*PLAYER, "invalid_request"),
        auth=PLAYER_ONLY,
        params=(
            Param(
                "status",
                "query",
                {"type": "string", "enum": ["waiting", "active", "finished"]},
                "Only games of this status.",
            ),
            *page_params(TopPage, limit="At most this many.", cursor="The `next_cursor` of the last page."),
        ),
    ),
    Op(
        "GET",
        "/v1/me/events",
        player_stream,
        "streamMyEvents",
        "One stream for all your games: your turns (with the legal actions), invitations, games started "
        "and over, rematches, reminders",
        "players",
        PlayerStreamFrame,
        errors=(*PLAYER, "invalid_request", LIMITED, *STREAMS),
        auth=PLAYER_ONLY,
        params=(*stream_params("notice", "Your credential"),),
        stream=True,
        description="Server-Sent Events by default; NDJSON with `Accept: application/x-ndjson`. A "
        "`your_turn` whose game has moved on is left out. Resume after a drop with Last-Event-ID: no "
        "notice is missed or repeated (the last 10,000 are kept).",
    ),
    Op(
        "POST",
        "/v1/games/{game_id}/invitations",
        invite,
        "invitePlayer",
        "Invite a player, by id, to this table (from your seat)",
        "players",
        Invitation,
        201,
        InviteRequest,
        (
            *GAME,
            *SEAT,
            *BODY,
            LIMITED,
            "game_not_waiting",
            "game_full",
            "player_not_found",
            "already_seated",
            "invitation_needs_player",
            "invitation_refused",
            "too_many_invitations_sent",
            "too_many_pending_invitations",
            "too_many_invitations",
        ),
        auth=(SEAT_TOKEN, PLAYER_TOKEN),
        description="The invitation reaches the player's stream and list, and expires after "
        "ATOUT_INVITATION_TTL seconds (7 days by default). Accepting it joins even a private table. Only "
        "a seat joined with a player's credential invites. Inviting the same player to the same table "
        "again refreshes the one invitation (same id, later expiry). Bounds: ATOUT_INVITATIONS_PER_HOUR "
        "sent an hour, ATOUT_INVITATIONS_PER_INVITER open in one player's list, "
        "ATOUT_PLAYER_NOTICES_PER_SENDER notices an hour to one player (past it the invitation is listed "
        "without a notice).",
    ),
    Op(
        "GET",
        "/v1/me/blocks",
        my_blocks,
        "listMyBlocks",
        "The players you block",
        "players",
        BlockList,
        errors=PLAYER,
        auth=PLAYER_ONLY,
    ),
    Op(
        "POST",
        "/v1/me/blocks",
        block_player,
        "blockPlayer",
        "Block a player: refuse their invitations and rematch notices",
        "players",
        None,
        204,
        BlockRequest,
        (*PLAYER, *BODY, "player_not_found", "too_many_blocks"),
        auth=PLAYER_ONLY,
        description="Their invitations you hold go; their next ones get 403 invitation_refused (which "
        "does not say they are blocked). At most ATOUT_PLAYER_MAX_BLOCKS players.",
    ),
    Op(
        "DELETE",
        "/v1/me/blocks/{player_id}",
        unblock_player,
        "unblockPlayer",
        "Unblock a player: take their invitations again",
        "players",
        None,
        204,
        errors=PLAYER,
        auth=PLAYER_ONLY,
        description="204 also when they were not blocked, or are gone.",
    ),
    Op(
        "GET",
        "/v1/me/invitations",
        my_invitations,
        "listMyInvitations",
        "Your open invitations, soonest to expire first",
        "players",
        InvitationList,
        errors=PLAYER,
        auth=PLAYER_ONLY,
    ),
    Op(
        "POST",
        "/v1/me/invitations/{invitation_id}/accept",
        accept_invitation,
        "acceptInvitation",
        "Accept an invitation: join its table with your player credential",
        "players",
        JoinResponse,
        201,
        AcceptInvitationRequest,
        (*PLAYER, *BODY, *GAME, "invitation_not_found", *JOINED),
        auth=PLAYER_ONLY,
    ),
    Op(
        "POST",
        "/v1/me/invitations/{invitation_id}/decline",
        decline_invitation,
        "declineInvitation",
        "Decline an invitation",
        "players",
        None,
        204,
        errors=(*PLAYER, "invitation_not_found"),
        auth=PLAYER_ONLY,
    ),
)
