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
import re
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
from schema.graphql_models import ActionInput, NoAction, action_of, build, camel, given, options_of
from service.api.graphql.context import client_of, games_of, guarded, parsed, token_of
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


def parse_seed(seed: str | None) -> int | str | None:
    """``createGame``'s seed, a decimal string in GraphQL (its Int is 32 bits), as the integer of the
    REST body; any other string is left to the model to refuse, as REST's body would be."""
    return int(seed) if seed is not None and re.fullmatch(r"[0-9]{1,20}", seed) else seed


async def resolve_create_game(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CreateGameInput)],  # made from NewGame
) -> Any:
    account = await games_of(info).credentials.account_token(token_of(info))
    await guarded(lambda: rate_limit(client_of(info), "create_game", account))
    raw: dict[str, Any] = {
        **given(input),
        "options": options_of(input.options)[1] if input.options else {},
        "seed": parse_seed(input.seed),
        "deal": given(input.deal) if input.deal else None,
    }
    request = parsed(CreateGameRequest, raw)
    if input.options and (named := options_of(input.options)[0]) != input.game:
        raise problem_error(
            ProblemError(
                "invalid_options",
                Text(
                    "options.{named} are options of {other}, not of {game}: give options.{wanted}.",
                    named=camel(named),
                    other=named,
                    game=input.game,
                    wanted=camel(input.game),
                ),
            )
        )
    games = games_of(info)
    record, invite = await guarded(lambda: games.lobby.create(request.root, token_of(info)))
    answer = CreateGameResponse(game=games.lobby.summary(record), invite_code=invite)
    return build(CreateGameResponse, answer)


async def resolve_join_seat(
    info: Info,
    game_id: strawberry.ID,
    seat: int | None = None,
    name: str = "",
    invite_code: str | None = None,
    client_seed: b.ClientSeed = "",
) -> Any:
    credential = token_of(info)  # a bot's API key or a player's credential: the seat is theirs
    account = await games_of(info).credentials.account_token(credential)
    await guarded(lambda: rate_limit(client_of(info), "join", account))
    raw = {"seat": seat, "name": name, "invite_code": invite_code, "client_seed": client_seed}
    body = parsed(JoinRequest, raw)
    taken, token, started = await guarded(
        lambda: games_of(info).lobby.join(
            str(game_id), body.seat, body.name, body.invite_code, credential, client_seed=body.client_seed
        )
    )
    return build(JoinResponse, JoinResponse(game_id=str(game_id), seat=taken, token=token, started=started))


async def resolve_leave_seat(info: Info, game_id: strawberry.ID) -> Any:
    seat, outcome = await guarded(lambda: games_of(info).lobby.leave(str(game_id), token_of(info)))
    return build(LeaveResponse, {"game_id": str(game_id), "seat": seat, "outcome": outcome})


async def resolve_rematch(info: Info, game_id: strawberry.ID, client_seed: b.ClientSeed = "") -> Any:
    body = parsed(RematchRequest, {"client_seed": client_seed})
    games = games_of(info)
    record, seat, token, started = await guarded(
        lambda: games.lobby.rematch(str(game_id), token_of(info), client_seed=body.client_seed)
    )
    answer = RematchResponse(game=games.lobby.summary(record), seat=seat, token=token, started=started)
    return build(RematchResponse, answer)


async def resolve_register_bot(info: Info, name: str, contact: str | None = None) -> Any:
    account = await games_of(info).credentials.account_token(token_of(info))
    await guarded(lambda: rate_limit(client_of(info), "register_bot", account))
    body = parsed(RegisterBotRequest, {"name": name, "contact": contact})
    bid, key = await games_of(info).bots.register_bot(body.name, body.contact)
    return build(BotRegistered, BotRegistered(bot_id=bid, name=body.name, api_key=key))


async def resolve_delete_bot(info: Info, bot_id: strawberry.ID) -> bool:
    await guarded(lambda: games_of(info).bots.delete_bot(str(bot_id), token_of(info)))
    return True


def move_request(action: Any, expected_version: int | None) -> ActionRequest:
    """``submitAction``'s arguments as REST's body (``ActionRequest``): the same model, the same 422s."""
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
    game_id: strawberry.ID,
    action: Annotated[Any, strawberry.argument(graphql_type=ActionInput)],  # made from the action models
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> Any:
    """A move: the arguments parsed, the checks and their order are ``games.play.submit``'s."""

    async def parse() -> ActionRequest:
        if not key_fits(idempotency_key):
            raise ProblemError("invalid_request", "idempotencyKey must be 1 to 200 characters.")
        return move_request(action, expected_version)

    token = token_of(info)
    response = await guarded(
        lambda: games_of(info).play.submit(
            str(game_id),
            token,
            parse,
            idempotency_key,
            count=functools.partial(rate_limit, client_of(info), "act"),
        )
    )
    return build(ActionResponse, response)


@strawberry.type
class Mutation:
    create_game = strawberry.mutation(
        resolver=resolve_create_game,
        graphql_type=b.CreateGameResult,
        description="Create a game; an explicit deal needs the administrator token.",
    )
    join_seat = strawberry.mutation(
        resolver=resolve_join_seat,
        graphql_type=b.JoinResult,
        description="Take a seat (the first open one without `seat`); the token is shown once. With a "
        "player's credential (or a bot's API key) as bearer the seat is theirs: the same credential plays "
        "it from any device, and one player holds one seat of a table.",
    )
    leave_seat = strawberry.mutation(
        resolver=resolve_leave_seat,
        graphql_type=b.LeaveResult,
        description="Give up the caller's seat (a bot plays it out once the game runs).",
    )
    rematch = strawberry.mutation(
        resolver=resolve_rematch,
        graphql_type=b.RematchResult,
        description="Offer or accept the rematch of a finished game, in the same seat.",
    )
    register_bot = strawberry.mutation(
        resolver=resolve_register_bot,
        graphql_type=b.BotRegistration,
        description="Register a bot account: join seats with its API key, follow myTurns.",
    )
    delete_bot = strawberry.mutation(
        resolver=resolve_delete_bot,
        description="Delete a bot account (administrator token); true once deleted.",
    )
    submit_action = strawberry.mutation(
        resolver=resolve_submit_action,
        graphql_type=b.ActionResult,
        description="Submit an action for the caller's seat (same rules as REST).",
    )
    register_webhook = WEBHOOKS["register_webhook"]
    update_webhook = WEBHOOKS["update_webhook"]
    delete_webhook = WEBHOOKS["delete_webhook"]
    redeliver_dead_letter = WEBHOOKS["redeliver_dead_letter"]
    create_tournament = TOURNAMENTS["create_tournament"]
    create_player = strawberry.mutation(
        resolver=resolve_create_player,
        graphql_type=b.PlayerCreated,
        description="Create a guest player: its id and token (shown once). Join tables with the token as "
        "bearer: the seat is the player's. Link the guest to an identity later with linkIdentity.",
    )
    update_me = strawberry.mutation(
        resolver=resolve_update_me,
        graphql_type=b.Me,
        description="Change your display name, locale or who may invite you (omitted: unchanged); "
        "seats already taken keep the name they were taken with.",
    )
    link_identity = strawberry.mutation(
        resolver=resolve_link_identity,
        graphql_type=b.Me,
        description="Link this guest to an identity of your app's provider (a JWT of a trusted issuer): "
        "from then on the guest token and the identity's JWTs are the same player.",
    )
    delete_me = strawberry.mutation(
        resolver=resolve_delete_me,
        description="Delete your account: your credentials stop working, a random bot plays out your "
        "seats in games not over, and your name leaves every game; true once deleted.",
    )
    invite_player = strawberry.mutation(
        resolver=resolve_invite_player,
        graphql_type=b.Invitation,
        description="Invite a player, by id, to a table waiting for players (your seat token or player "
        "credential as bearer); it reaches their `myEvents` and `myInvitations`.",
    )
    accept_invitation = strawberry.mutation(
        resolver=resolve_accept_invitation,
        graphql_type=b.JoinResult,
        description="Accept an invitation: join its table (even a private one) with your player credential.",
    )
    decline_invitation = strawberry.mutation(
        resolver=resolve_decline_invitation, description="Decline an invitation; true once declined."
    )
    block_player = BLOCKS["block_player"]
    unblock_player = BLOCKS["unblock_player"]
