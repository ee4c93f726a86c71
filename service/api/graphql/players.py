"""The resolvers of players, for the ``Query`` and ``Mutation`` roots: create a guest, the player's own
record (read, change, link to an identity, delete), their list of games, invitations, and the players
they block (:data:`BLOCKS`: the fields the roots take as they are). Each checks
its arguments with the REST body's model (``schema.players``), in the order REST does (a stranger is
refused before anything about the arguments is said), and answers the REST codes. The player's notices
are the ``myEvents`` subscription (:mod:`service.api.graphql.subscriptions`)."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.games import JoinResponse
from schema.graphql_models import build
from schema.pages import DEFAULT_LIMIT, TopPage
from schema.players import (
    AcceptInvitationRequest,
    BlockRequest,
    Invitation,
    InviteRequest,
    LinkIdentityRequest,
    Me,
    MyGame,
    MyGamesPage,
    NewPlayerRequest,
    PlayerCreated,
    UpdateMeRequest,
    me_of,
)
from service.api.graphql.context import client_of, games_of, guarded, parsed, token_of
from service.api.pages import page_of
from service.api.problems import problem_error
from service.api.ratelimit import rate_limit
from service.base.problems import ProblemError
from service.games.players import DEFAULT_NAME, game_status


async def resolve_me(info: Info) -> Any:
    """The caller's player as the API shows it (401 for any other credential)."""
    pid, player = await guarded(lambda: games_of(info).players.require_player(token_of(info)))
    return build(Me, me_of(pid, player))


async def resolve_create_player(info: Info, name: str = "", locale: str = "") -> Any:
    # per client address: a guest has no credential yet
    await guarded(lambda: rate_limit(client_of(info), "create_player"))
    body = parsed(NewPlayerRequest, {"name": name, "locale": locale})
    pid, token = await games_of(info).players.create_guest(body.name, body.locale)
    return build(PlayerCreated, PlayerCreated(player_id=pid, name=body.name or DEFAULT_NAME, token=token))


async def resolve_update_me(
    info: Info,
    name: str | None = None,
    locale: str | None = None,
    invitations: str | None = None,
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(UpdateMeRequest, {"name": name, "locale": locale, "invitations": invitations})
    await guarded(lambda: games.players.update_me(token, body.name, body.locale, body.invitations))
    return await resolve_me(info)


async def resolve_link_identity(info: Info, identity_token: str) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(LinkIdentityRequest, {"identity_token": identity_token})
    await guarded(lambda: games.players.link_identity(token, body.identity_token))
    return await resolve_me(info)


async def resolve_delete_me(info: Info) -> bool:
    await guarded(lambda: games_of(info).players.delete_me(token_of(info)))
    return True


async def resolve_my_games(
    info: Info, status: str | None = None, cursor: str | None = None, limit: int = DEFAULT_LIMIT
) -> Any:
    try:
        status = game_status(status, ("status",))
        asked = page_of(TopPage, {"limit": limit, "cursor": cursor})
    except ProblemError as error:
        raise problem_error(error) from None
    page, next_cursor = await guarded(
        lambda: games_of(info).players.my_games(
            token_of(info), status, asked.cursor, asked.limit, ("cursor",)
        )
    )
    games = [MyGame.model_validate(g, from_attributes=True) for g in page]
    return build(MyGamesPage, MyGamesPage(games=games, next_cursor=next_cursor))


async def resolve_invite_player(info: Info, game_id: strawberry.ID, player_id: strawberry.ID) -> Any:
    games, token, gid = games_of(info), token_of(info), str(game_id)
    account = await games.credentials.account_token(token)
    await guarded(lambda: rate_limit(client_of(info), "join", account))
    await guarded(lambda: games.play.seated(gid, token))  # 401 before an argument's error tells anything
    body = parsed(InviteRequest, {"player_id": str(player_id)})
    invitation = await guarded(lambda: games.invitations.invite(gid, token, body.player_id))
    return build(Invitation, Invitation.model_validate(invitation))


async def resolve_my_invitations(info: Info) -> Any:
    held = await guarded(lambda: games_of(info).invitations.my_invitations(token_of(info)))
    return [build(Invitation, Invitation.model_validate(i)) for i in held]


async def resolve_accept_invitation(
    info: Info,
    invitation_id: strawberry.ID,
    seat: int | None = None,
    client_seed: b.ClientSeed = "",
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(AcceptInvitationRequest, {"seat": seat, "client_seed": client_seed})
    gid, taken, seat_token, started = await guarded(
        lambda: games.invitations.accept_invitation(token, str(invitation_id), body.seat, body.client_seed)
    )
    return build(JoinResponse, JoinResponse(game_id=gid, seat=taken, token=seat_token, started=started))


async def resolve_decline_invitation(info: Info, invitation_id: strawberry.ID) -> bool:
    await guarded(lambda: games_of(info).invitations.decline_invitation(token_of(info), str(invitation_id)))
    return True


async def resolve_block_player(info: Info, player_id: strawberry.ID) -> bool:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(BlockRequest, {"player_id": str(player_id)})
    await guarded(lambda: games.players.block(token, body.player_id))
    return True


async def resolve_unblock_player(info: Info, player_id: strawberry.ID) -> bool:
    await guarded(lambda: games_of(info).players.unblock(token_of(info), str(player_id)))
    return True


async def resolve_my_blocks(info: Info) -> list[strawberry.ID]:
    held = await guarded(lambda: games_of(info).players.blocks(token_of(info)))
    return [strawberry.ID(b) for b in held]


BLOCKS: dict[str, Any] = {
    "block_player": strawberry.mutation(
        resolver=resolve_block_player,
        description="Refuse invitations (and rematch notices) from a player, by id; their invitations "
        "you hold go. True once blocked.",
    ),
    "unblock_player": strawberry.mutation(
        resolver=resolve_unblock_player,
        description="Take invitations from a player again; true (also when they were not blocked).",
    ),
    "my_blocks": strawberry.field(
        resolver=resolve_my_blocks, description="The ids of the players you block."
    ),
}
"""The blocks' fields of the roots: ``blockPlayer`` and ``unblockPlayer`` (Mutation), ``myBlocks``
(Query), as :data:`service.api.graphql.webhooks.MUTATIONS` gives the webhooks'."""
