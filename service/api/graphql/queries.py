"""The ``Query`` root: a game, the open games, the rules, a seat's view and legal actions, and the
player's own record, games and invitations (:mod:`service.api.graphql.players`), ratings and ladders
(:mod:`service.api.graphql.ratings`), the administrator's webhooks (:mod:`service.api.graphql.webhooks`).

The resolvers are plain functions given to ``strawberry.field(resolver=…)``: that form is typed (the
field is the resolver's return type), where Strawberry types the decorator form ``@strawberry.field(…)``
as ``Any``, which mypy --strict refuses as an untyped decorator.
"""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

import engine
from schema import games as g
from schema import graphql_bodies as b
from schema.graphql_models import build
from schema.pages import DEFAULT_LIMIT, Page
from service.api.graphql.context import games_of, guarded, token_of
from service.api.graphql.players import BLOCKS, resolve_me, resolve_my_games, resolve_my_invitations
from service.api.graphql.ratings import QUERIES as RATINGS
from service.api.graphql.tournaments import QUERIES as TOURNAMENTS
from service.api.graphql.webhooks import QUERIES as WEBHOOKS
from service.api.pages import page_of


async def resolve_game(info: Info, id: strawberry.ID) -> Any:
    games = games_of(info)

    async def run() -> Any:
        record = await games.core.get(str(id))
        caller = await games.core.caller_of(record, token_of(info), required=False)
        return build(g.GameSummary, games.lobby.summary(record, caller))

    return await guarded(run)


async def resolve_games(info: Info, limit: int = DEFAULT_LIMIT) -> Any:
    return (await resolve_games_page(info, limit)).games


async def resolve_games_page(info: Info, limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> Any:
    async def run() -> Any:
        page = page_of(Page, {"limit": limit, "cursor": cursor})
        return build(g.GameList, await games_of(info).lobby.open_games(page.limit, page.cursor, ("cursor",)))

    return await guarded(run)


def resolve_rules() -> Any:
    """The rules as REST's ``/v1/rules`` gives them (``RulesResponse``), in the engine's order."""
    every = g.RulesResponse.model_validate({"games": engine.games()})
    return [build(g.GameRules, rules) for rules in every.games.values()]


async def resolve_view(info: Info, game_id: strawberry.ID) -> Any:
    result = await guarded(lambda: games_of(info).play.view(str(game_id), token_of(info)))
    return build(g.ViewResponse, result)


async def resolve_legal_actions(info: Info, game_id: strawberry.ID) -> Any:
    result = await guarded(lambda: games_of(info).play.legal_actions(str(game_id), token_of(info)))
    return build(g.LegalActionsResponse, result)


@strawberry.type
class Query:
    game = strawberry.field(resolver=resolve_game, graphql_type=b.Game, description="A game by id.")
    games = strawberry.field(
        resolver=resolve_games,
        graphql_type=list[b.Game],
        description="Open games: listed and waiting for players, newest first (the first page of "
        "`gamesPage`).",
    )
    games_page = strawberry.field(
        resolver=resolve_games_page,
        graphql_type=b.GamePage,
        description="Open games a page at a time, newest first: pass a page's `nextCursor` as `cursor` "
        "for the next (none: the first page). Never a game twice, never one missed that was open when "
        "paging began and still is.",
    )
    rules = strawberry.field(
        resolver=resolve_rules,
        graphql_type=list[b.GameRules],
        description="Each game id with its players and rule options (defaults, allowed values).",
    )
    view = strawberry.field(
        resolver=resolve_view,
        graphql_type=b.View,
        description="The caller's view: the seat of the bearer token, or a spectator's.",
    )
    legal_actions = strawberry.field(
        resolver=resolve_legal_actions,
        graphql_type=b.LegalActions,
        description="The caller's legal actions (needs the seat token).",
    )
    ladder = RATINGS["ladder"]
    ladder_position = RATINGS["ladder_position"]
    rating = RATINGS["rating"]
    webhooks = WEBHOOKS["webhooks"]
    webhook = WEBHOOKS["webhook"]
    webhook_deliveries = WEBHOOKS["webhook_deliveries"]
    webhook_dead_letters = WEBHOOKS["webhook_dead_letters"]
    tournament = TOURNAMENTS["tournament"]
    me = strawberry.field(
        resolver=resolve_me,
        graphql_type=b.Me,
        description="The player you are: your bearer is a player token (createPlayer) or a JWT of your "
        "app's identity provider.",
    )
    my_games = strawberry.field(
        resolver=resolve_my_games,
        graphql_type=b.MyGamesPage,
        description="Your games a page at a time: those where it is your turn first, then waiting or in "
        "play, then over (`status`: only those). Pass a page's `nextCursor` as `cursor` for the next.",
    )
    my_invitations = strawberry.field(
        resolver=resolve_my_invitations,
        graphql_type=list[b.Invitation],
        description="Your open invitations, soonest to expire first.",
    )
    my_blocks = BLOCKS["my_blocks"]
