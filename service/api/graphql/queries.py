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
from schema.graphql_models import build, build_connection
from schema.pages import DEFAULT_LIMIT, Page
from service.api.graphql.context import connection_page, games_of, guarded, root_field, token_of
from service.api.graphql.matchmaking import QUERIES as MATCHMAKING
from service.api.graphql.players import BLOCKS, resolve_me, resolve_my_games, resolve_my_invitations
from service.api.graphql.ratings import QUERIES as RATINGS
from service.api.graphql.tournaments import QUERIES as TOURNAMENTS
from service.api.graphql.webhooks import QUERIES as WEBHOOKS


async def resolve_game(info: Info, game_id: strawberry.ID) -> Any:
    games = games_of(info)

    async def run() -> Any:
        record = await games.core.get(str(game_id))
        caller = await games.core.caller_of(record, token_of(info), required=False)
        return build(g.GameSummary, games.lobby.summary(record, caller))

    return await guarded(run)


async def resolve_games(info: Info, first: int = DEFAULT_LIMIT, after: str | None = None) -> Any:
    async def run() -> Any:
        page = connection_page(Page, first, after)
        listed = await games_of(info).lobby.open_games(page.limit, page.cursor, ("after",))
        return build_connection(b.GameConnection, listed)

    return await guarded(run)


async def resolve_replay_log(info: Info, game_id: strawberry.ID) -> Any:
    log = await guarded(lambda: games_of(info).play.replay_log(str(game_id), token_of(info)))
    return build(g.LogResponse, log)


async def resolve_bot(info: Info) -> Any:
    bid, name, seats = await guarded(lambda: games_of(info).bots.bot_status(token_of(info)))
    return build(
        g.BotStatus, g.BotStatus(bot_id=bid, name=name, seats=[g.BotSeat.model_validate(s) for s in seats])
    )


def resolve_rules() -> Any:
    """The rules as REST's ``/v1/rules`` gives them (``RulesResponse``), in the engine's order."""
    every = g.RulesResponse.of_engine(engine.games())
    return [build(g.GameRules, rules) for rules in every.games.values()]


async def resolve_view(info: Info, game_id: strawberry.ID) -> Any:
    result = await guarded(lambda: games_of(info).play.view(str(game_id), token_of(info)))
    return build(g.ViewResponse, result)


async def resolve_legal_actions(info: Info, game_id: strawberry.ID) -> Any:
    result = await guarded(lambda: games_of(info).play.legal_actions(str(game_id), token_of(info)))
    return build(g.LegalActionsResponse, result)


@strawberry.type(description="What a client reads: games, views, ratings, tournaments, the caller's record.")
class Query:
    game = root_field(resolve_game, b.Game, "A game by id (REST getGame).")
    games = root_field(
        resolve_games,
        b.GameConnection,
        "Open games (listed and waiting for players), newest first, a page at a time (REST listGames): "
        "pass a page's `pageInfo.endCursor` as `after` for the next. Never a game twice, never one missed "
        "that was open when paging began and still is.",
    )
    rules = strawberry.field(
        resolver=resolve_rules,
        graphql_type=list[b.GameRules],
        description="Each game kind with its players and rule options (REST getRules).",
    )
    view = root_field(
        resolve_view, b.View, "The caller's view: the seat of the bearer, or a spectator's (REST getView)."
    )
    legal_actions = root_field(
        resolve_legal_actions,
        b.LegalActions,
        "The caller's legal actions (REST getLegalActions).",
        deprecation_reason="Read `view { legalActions }`: the view holds them, at the same version.",
    )
    replay_log = root_field(
        resolve_replay_log,
        b.ReplayLog,
        "A finished game's replay log and what verifies its deals (REST getReplayLog; docs/fairness.md).",
    )
    bot = root_field(resolve_bot, b.Bot, "The bot account your API key is, and its seats (REST getBot).")
    ladder = RATINGS["ladder"]
    ladder_position = RATINGS["ladder_position"]
    rating = RATINGS["rating"]
    webhooks = WEBHOOKS["webhooks"]
    webhook = WEBHOOKS["webhook"]
    webhook_deliveries = WEBHOOKS["webhook_deliveries"]
    dead_letters = WEBHOOKS["dead_letters"]
    tournament = TOURNAMENTS["tournament"]
    ticket = MATCHMAKING["ticket"]
    party = MATCHMAKING["party"]
    me = root_field(
        resolve_me,
        b.Me,
        "The player you are: your bearer is a player token (createPlayer) or a JWT of your app's identity "
        "provider (REST getMe).",
    )
    my_games = root_field(
        resolve_my_games,
        b.MyGameConnection,
        "Your games a page at a time: those where it is your turn first, then waiting or active, then "
        "finished (`status`: only those). Pass a page's `pageInfo.endCursor` as `after` for the next "
        "(REST listMyGames).",
    )
    my_invitations = root_field(
        resolve_my_invitations,
        list[b.Invitation],
        "Your open invitations, soonest to expire first (REST listMyInvitations).",
    )
    my_blocks = BLOCKS["my_blocks"]
