"""Ratings and ladders in GraphQL: the REST operations of /v1/ladders and /v1/ratings with the same rules
and codes. Queries: ``ladder``, ``ladderPosition``, ``rating``. Plain-function resolvers, the typed form
(see :mod:`service.api.graphql.queries`)."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema import ratings as r
from schema.graphql_models import build
from schema.pages import DEFAULT_LIMIT, HistoryPage, TopPage
from service.api.graphql.context import games_of, guarded
from service.api.pages import page_of
from service.base.problems import ProblemError
from service.base.texts import Text


def _within(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ProblemError(
            "invalid_request", Text("{name} must be from {low} to {high}.", name=name, low=low, high=high)
        )


async def resolve_ladder(
    info: Info, game: str, board: str = "people", limit: int = DEFAULT_LIMIT, cursor: str | None = None
) -> Any:
    async def run() -> Any:
        page = page_of(TopPage, {"limit": limit, "cursor": cursor})
        ladder = await games_of(info).ratings.ladder_page(game, board, page.limit, page.cursor)
        return build(r.LadderPage, ladder)

    return await guarded(run)


async def resolve_ladder_position(info: Info, game: str, account_id: strawberry.ID, around: int = 5) -> Any:
    async def run() -> Any:
        _within("around", around, 0, 50)
        place = await games_of(info).ratings.ladder_place(game, str(account_id), around)
        return build(r.LadderPosition, place)

    return await guarded(run)


async def resolve_rating(info: Info, game: str, account_id: strawberry.ID, limit: int = DEFAULT_LIMIT) -> Any:
    async def run() -> Any:
        page = page_of(HistoryPage, {"limit": limit})
        return build(
            r.RatingHistory, await games_of(info).ratings.rating_history(game, str(account_id), page.limit)
        )

    return await guarded(run)


QUERIES = {
    "ladder": strawberry.field(
        resolver=resolve_ladder,
        graphql_type=b.LadderPage,
        description="A ladder of a game kind (`board`: `people` or `bots`), best first, a page at a time: "
        "pass a page's `nextCursor` as `cursor` for the next.",
    ),
    "ladder_position": strawberry.field(
        resolver=resolve_ladder_position,
        graphql_type=b.LadderPosition,
        description="An account's rank on its ladder with up to `around` neighbours either side.",
    ),
    "rating": strawberry.field(
        resolver=resolve_rating,
        graphql_type=b.RatingHistory,
        description="An account's rating in a game kind and its latest changes.",
    ),
}
