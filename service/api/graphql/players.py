"""The resolvers of players, for the ``Query`` and ``Mutation`` roots: create a guest, the player's own
record (read, change, link to an identity, delete), their list of games, invitations, and the players
they block (:data:`BLOCKS`: the fields the roots take as they are). Each checks
its arguments with the REST body's model (``schema.players``), in the order REST does (a stranger is
refused before anything about the arguments is said), and answers the REST codes. The player's notices
are the ``myEvents`` subscription (:mod:`service.api.graphql.subscriptions`)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.games import JoinResponse
from schema.graphql_models import GameStatus, build, build_connection, build_payload, given
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
from service.api.graphql.context import (
    INPUT,
    client_of,
    connection_page,
    games_of,
    guarded,
    parsed,
    root_field,
    token_of,
)
from service.api.problems import problem_error
from service.api.ratelimit import rate_limit
from service.base.problems import ProblemError
from service.games.players import DEFAULT_NAME, game_status


async def resolve_me(info: Info) -> Any:
    """The caller's player as the API shows it (401 for any other credential)."""
    return build(Me, await _me(info))


async def resolve_create_player(
    info: Info,
    input: Annotated[
        Any, strawberry.argument(graphql_type=b.CreatePlayerInput | None, description=INPUT)
    ] = None,
) -> Any:
    # per client address: a guest has no credential yet
    await guarded(lambda: rate_limit(client_of(info), "create_player"))
    body = parsed(NewPlayerRequest, given(input) if input else {})
    pid, token = await games_of(info).players.create_guest(body.name, body.locale)
    created = PlayerCreated(player_id=pid, name=body.name or DEFAULT_NAME, token=token)
    return build(PlayerCreated, created)


async def resolve_update_me(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.UpdateMeInput, description=INPUT)]
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    raw = {"name": None, "locale": None, "invitations": None, **given(input)}
    body = parsed(UpdateMeRequest, raw)
    await guarded(lambda: games.players.update_me(token, body.name, body.locale, body.invitations))
    return build_payload(b.UpdateMePayload, await _me(info))


async def resolve_link_identity(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.LinkIdentityInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(LinkIdentityRequest, given(input))
    await guarded(lambda: games.players.link_identity(token, body.identity_token))
    return build_payload(b.LinkIdentityPayload, await _me(info))


async def _me(info: Info) -> Me:
    pid, player = await guarded(lambda: games_of(info).players.require_player(token_of(info)))
    return me_of(pid, player)


async def resolve_delete_me(info: Info) -> Any:
    pid, _ = await guarded(lambda: games_of(info).players.require_player(token_of(info)))
    await guarded(lambda: games_of(info).players.delete_me(token_of(info)))
    return b.DeleteMePayload(player_id=strawberry.ID(pid))


async def resolve_my_games(
    info: Info, status: GameStatus | None = None, first: int = DEFAULT_LIMIT, after: str | None = None
) -> Any:
    try:
        wanted = game_status(status.value if status else None, ("status",))
    except ProblemError as error:
        raise problem_error(error) from None
    asked = connection_page(TopPage, first, after)
    page, next_cursor = await guarded(
        lambda: games_of(info).players.my_games(token_of(info), wanted, asked.cursor, asked.limit, ("after",))
    )
    games = [MyGame.model_validate(g, from_attributes=True) for g in page]
    return build_connection(b.MyGameConnection, MyGamesPage(games=games, next_cursor=next_cursor))


async def resolve_invite_player(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.InvitePlayerInput, description=INPUT)],
) -> Any:
    games, token, gid = games_of(info), token_of(info), str(input.game_id)
    account = await games.credentials.account_token(token)
    await guarded(lambda: rate_limit(client_of(info), "join", account))
    await guarded(lambda: games.play.seated(gid, token))  # 401 before an argument's error tells anything
    body = parsed(InviteRequest, {"player_id": str(input.player_id)})
    invitation = await guarded(lambda: games.invitations.invite(gid, token, body.player_id))
    return build_payload(b.InvitePlayerPayload, Invitation.model_validate(invitation))


async def resolve_my_invitations(info: Info) -> Any:
    held = await guarded(lambda: games_of(info).invitations.my_invitations(token_of(info)))
    return [build(Invitation, Invitation.model_validate(i)) for i in held]


async def resolve_accept_invitation(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.AcceptInvitationInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    raw = {key: value for key, value in given(input).items() if key != "invitation_id"}
    body = parsed(AcceptInvitationRequest, raw)
    gid, taken, seat_token, started = await guarded(
        lambda: games.invitations.accept_invitation(
            token, str(input.invitation_id), body.seat, body.client_seed
        )
    )
    joined = JoinResponse(game_id=gid, seat=taken, token=seat_token, started=started)
    return build_payload(b.AcceptInvitationPayload, joined)


async def resolve_decline_invitation(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.DeclineInvitationInput, description=INPUT)],
) -> Any:
    iid = str(input.invitation_id)
    await guarded(lambda: games_of(info).invitations.decline_invitation(token_of(info), iid))
    return b.DeclineInvitationPayload(invitation_id=strawberry.ID(iid))


async def resolve_block_player(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.BlockPlayerInput, description=INPUT)]
) -> Any:
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.players.require_player(token))
    body = parsed(BlockRequest, given(input))
    await guarded(lambda: games.players.block(token, body.player_id))
    return b.BlockPlayerPayload(player_id=strawberry.ID(body.player_id))


async def resolve_unblock_player(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.UnblockPlayerInput, description=INPUT)],
) -> Any:
    pid = str(input.player_id)
    await guarded(lambda: games_of(info).players.unblock(token_of(info), pid))
    return b.UnblockPlayerPayload(player_id=strawberry.ID(pid))


async def resolve_my_blocks(info: Info) -> list[strawberry.ID]:
    held = await guarded(lambda: games_of(info).players.blocks(token_of(info)))
    return [strawberry.ID(b) for b in held]


BLOCKS: dict[str, Any] = {
    "block_player": strawberry.mutation(
        resolver=resolve_block_player,
        graphql_type=b.BlockPlayerPayload,
        description="Refuse invitations (and rematch notices) from a player, by id; their invitations "
        "you hold go (REST blockPlayer).",
    ),
    "unblock_player": strawberry.mutation(
        resolver=resolve_unblock_player,
        graphql_type=b.UnblockPlayerPayload,
        description="Take invitations from a player again, also when they were not blocked (REST "
        "unblockPlayer).",
    ),
    "my_blocks": root_field(
        resolve_my_blocks, list[strawberry.ID], "The ids of the players you block (REST listMyBlocks)."
    ),
}
"""The blocks' fields of the roots: ``blockPlayer`` and ``unblockPlayer`` (Mutation), ``myBlocks``
(Query), as :data:`service.api.graphql.webhooks.MUTATIONS` gives the webhooks'."""
