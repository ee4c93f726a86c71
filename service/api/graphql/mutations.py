"""The ``Mutation`` root: create, join, leave and rematch a game, register and delete a bot account,
submit an action, the players' mutations (:mod:`service.api.graphql.players`) and the administrator's
webhooks (:mod:`service.api.graphql.webhooks`); each checks its arguments with the REST rules and
answers the REST codes: the arguments are validated by the REST body's model (``parsed``), and the
answer is built from the REST answer's model (``build``).

The resolvers are plain functions given to ``strawberry.mutation(resolver=…)``, the typed form (see
:mod:`service.api.graphql.queries`).
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

import strawberry
from pydantic import ValidationError
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.games import (
    ActionRequest,
    ActionResponse,
    BotRegistered,
    CreateGameRequest,
    CreateGameResponse,
    JoinRequest,
    JoinResponse,
    LeaveResponse,
    RegisterBotRequest,
    RematchRequest,
    RematchResponse,
)
from schema.graphql_models import NoAction, action_of, build, camel, given, options_of
from service.api.graphql.context import INPUT, client_of, games_of, guarded, parsed, token_of
from service.api.graphql.matchmaking import MUTATIONS as MATCHMAKING
from service.api.graphql.players import (
    BLOCKS,
    resolve_accept_invitation,
    resolve_create_player,
    resolve_decline_invitation,
    resolve_delete_me,
    resolve_invite_player,
    resolve_link_identity,
    resolve_update_me,
)
from service.api.graphql.tournaments import MUTATIONS as TOURNAMENTS
from service.api.graphql.webhooks import MUTATIONS as WEBHOOKS
from service.api.problems import invalid_request, problem_error
from service.api.ratelimit import rate_limit
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.play import key_fits


async def resolve_create_game(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CreateGameInput, description=INPUT)],
) -> Any:
    account = await games_of(info).credentials.account_token(token_of(info))
    await guarded(lambda: rate_limit(client_of(info), "create_game", account))
    raw: dict[str, Any] = {
        **given(input),
        "options": options_of(input.options)[1] if input.options else {},
        "seed": input.seed,  # a decimal string, as in REST's body (GraphQL's Int is 32 bits)
        "deal": given(input.deal) if input.deal else None,
    }
    request = parsed(CreateGameRequest, raw)
    kind = input.kind.value
    if input.options and (named := options_of(input.options)[0]) != kind:
        raise problem_error(
            ProblemError(
                "invalid_options",
                Text(
                    "options.{named} are options of {other}, not of {game}: give options.{wanted}.",
                    named=camel(named),
                    other=named,
                    game=kind,
                    wanted=camel(kind),
                ),
            )
        )
    games = games_of(info)
    record, invite = await guarded(lambda: games.lobby.create(request.root, token_of(info)))
    answer = CreateGameResponse(game=games.lobby.summary(record), invite_code=invite)
    return build(CreateGameResponse, answer)


async def resolve_join_game(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.JoinGameInput, description=INPUT)]
) -> Any:
    credential = token_of(info)  # a bot's API key or a player's credential: the seat is theirs
    account = await games_of(info).credentials.account_token(credential)
    await guarded(lambda: rate_limit(client_of(info), "join", account))
    gid = str(input.game_id)
    body = parsed(JoinRequest, {key: value for key, value in given(input).items() if key != "game_id"})
    taken, token, started = await guarded(
        lambda: games_of(info).lobby.join(
            gid, body.seat, body.name, body.invite_code, credential, client_seed=body.client_seed
        )
    )
    return build(JoinResponse, JoinResponse(game_id=gid, seat=taken, token=token, started=started))


async def resolve_leave_game(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.LeaveGameInput, description=INPUT)]
) -> Any:
    gid = str(input.game_id)
    seat, outcome = await guarded(lambda: games_of(info).lobby.leave(gid, token_of(info)))
    return build(LeaveResponse, {"game_id": gid, "seat": seat, "outcome": outcome})


async def resolve_rematch_game(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.RematchGameInput, description=INPUT)]
) -> Any:
    body = parsed(RematchRequest, {key: value for key, value in given(input).items() if key != "game_id"})
    games, gid = games_of(info), str(input.game_id)
    record, seat, token, started = await guarded(
        lambda: games.lobby.rematch(gid, token_of(info), client_seed=body.client_seed)
    )
    answer = RematchResponse(game=games.lobby.summary(record), seat=seat, token=token, started=started)
    return build(RematchResponse, answer)


async def resolve_register_bot(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.RegisterBotInput, description=INPUT)]
) -> Any:
    account = await games_of(info).credentials.account_token(token_of(info))
    await guarded(lambda: rate_limit(client_of(info), "register_bot", account))
    body = parsed(RegisterBotRequest, given(input))
    bid, key = await games_of(info).bots.register_bot(body.name, body.contact)
    return build(BotRegistered, BotRegistered(bot_id=bid, name=body.name, api_key=key))


async def resolve_delete_bot(
    info: Info, input: Annotated[Any, strawberry.argument(graphql_type=b.DeleteBotInput, description=INPUT)]
) -> Any:
    bid = str(input.bot_id)
    await guarded(lambda: games_of(info).bots.delete_bot(bid, token_of(info)))
    return b.DeleteBotPayload(bot_id=strawberry.ID(bid))


def move_request(action: Any, expected_version: int | None) -> ActionRequest:
    """``submitAction``'s input as REST's body (``ActionRequest``): the same model, the same 422s."""
    try:
        raw = action_of(action)
    except NoAction as exc:
        raise ProblemError(
            "invalid_request",
            Text("{field}: false names no action: send {field}: true", field=exc.field),
        ) from None
    except ValueError as exc:  # unreachable through the API (@oneOf): said as it is
        raise ProblemError("invalid_request", Text.verbatim(str(exc))) from None
    try:
        return ActionRequest.model_validate({"action": raw, "expected_version": expected_version})
    except ValidationError as exc:
        raise invalid_request(exc) from None


async def resolve_submit_action(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.SubmitActionInput, description=INPUT)],
) -> Any:
    """A move: the input parsed, the checks and their order are ``games.play.submit``'s."""
    key = input.idempotency_key

    async def parse() -> ActionRequest:
        if not key_fits(key):
            raise ProblemError("invalid_request", "idempotencyKey must be 1 to 200 characters.")
        return move_request(input.action, input.expected_version)

    token = token_of(info)
    response = await guarded(
        lambda: games_of(info).play.submit(
            str(input.game_id),
            token,
            parse,
            key,
            count=functools.partial(rate_limit, client_of(info), "act"),
        )
    )
    return build(ActionResponse, response)


@strawberry.type(
    description="What a client changes: each mutation takes one `input` and answers its own payload, "
    "named after REST's operation (`joinGame` ↔ POST /v1/games/{game_id}/join)."
)
class Mutation:
    create_game = strawberry.mutation(
        resolver=resolve_create_game,
        graphql_type=b.CreateGamePayload,
        description="Create a game; an explicit deal needs the administrator token (REST createGame).",
    )
    join_game = strawberry.mutation(
        resolver=resolve_join_game,
        graphql_type=b.JoinGamePayload,
        description="Take a seat (the first open one without `seat`); the token is shown once. With a "
        "player's credential (or a bot's API key) as bearer the seat is theirs: the same credential plays "
        "it from any device, and one player holds one seat of a table (REST joinGame).",
    )
    leave_game = strawberry.mutation(
        resolver=resolve_leave_game,
        graphql_type=b.LeaveGamePayload,
        description="Give up the caller's seat (a bot plays it out once the game runs; REST leaveGame).",
    )
    rematch_game = strawberry.mutation(
        resolver=resolve_rematch_game,
        graphql_type=b.RematchGamePayload,
        description="Offer or accept the rematch of a finished game, in the same seat (REST rematchGame).",
    )
    register_bot = strawberry.mutation(
        resolver=resolve_register_bot,
        graphql_type=b.RegisterBotPayload,
        description="Register a bot account: join seats with its API key, follow its notices (REST "
        "registerBot).",
    )
    delete_bot = strawberry.mutation(
        resolver=resolve_delete_bot,
        graphql_type=b.DeleteBotPayload,
        description="Delete a bot account (administrator token; REST deleteBot).",
    )
    submit_action = strawberry.mutation(
        resolver=resolve_submit_action,
        graphql_type=b.SubmitActionPayload,
        description="Submit an action for the caller's seat (same rules as REST submitAction).",
    )
    register_webhook = WEBHOOKS["register_webhook"]
    update_webhook = WEBHOOKS["update_webhook"]
    delete_webhook = WEBHOOKS["delete_webhook"]
    redeliver_dead_letter = WEBHOOKS["redeliver_dead_letter"]
    create_tournament = TOURNAMENTS["create_tournament"]
    create_ticket = MATCHMAKING["create_ticket"]
    cancel_ticket = MATCHMAKING["cancel_ticket"]
    create_party = MATCHMAKING["create_party"]
    join_party = MATCHMAKING["join_party"]
    create_player = strawberry.mutation(
        resolver=resolve_create_player,
        graphql_type=b.CreatePlayerPayload,
        description="Create a guest player: its id and token (shown once). Join tables with the token as "
        "bearer: the seat is the player's. Link the guest to an identity later with linkIdentity (REST "
        "createPlayer).",
    )
    update_me = strawberry.mutation(
        resolver=resolve_update_me,
        graphql_type=b.UpdateMePayload,
        description="Change your display name, locale or who may invite you (omitted: unchanged); "
        "seats already taken keep the name they were taken with (REST updateMe).",
    )
    link_identity = strawberry.mutation(
        resolver=resolve_link_identity,
        graphql_type=b.LinkIdentityPayload,
        description="Link this guest to an identity of your app's provider (a JWT of a trusted issuer): "
        "from then on the guest token and the identity's JWTs are the same player (REST linkIdentity).",
    )
    delete_me = strawberry.mutation(
        resolver=resolve_delete_me,
        graphql_type=b.DeleteMePayload,
        description="Delete your account: your credentials stop working, a random bot plays out your "
        "seats in games not finished, and your name leaves every game (REST deleteMe).",
    )
    invite_player = strawberry.mutation(
        resolver=resolve_invite_player,
        graphql_type=b.InvitePlayerPayload,
        description="Invite a player, by id, to a table waiting for players (your seat token or player "
        "credential as bearer); it reaches their `myEvents` and `myInvitations` (REST invitePlayer).",
    )
    accept_invitation = strawberry.mutation(
        resolver=resolve_accept_invitation,
        graphql_type=b.AcceptInvitationPayload,
        description="Accept an invitation: join its table (even a private one) with your player "
        "credential (REST acceptInvitation).",
    )
    decline_invitation = strawberry.mutation(
        resolver=resolve_decline_invitation,
        graphql_type=b.DeclineInvitationPayload,
        description="Decline an invitation (REST declineInvitation).",
    )
    block_player = BLOCKS["block_player"]
    unblock_player = BLOCKS["unblock_player"]
