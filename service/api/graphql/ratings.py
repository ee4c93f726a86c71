"""Ratings and ladders in GraphQL: the REST operations of /v1/ladders and /v1/ratings with the same rules
and codes. Queries: ``ladder``, ``ladderPosition``, ``rating``. Plain-function resolvers, the typed form
(see :mod:`service.api.graphql.queries`)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from schema import graphql_ratings as t
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
) -> t.LadderPage:
    async def run() -> t.LadderPage:
        page = page_of(TopPage, {"limit": limit, "cursor": cursor})
        return t.LadderPage.of(await games_of(info).ladder_page(game, board, page.limit, page.cursor))

    return await guarded(run)


async def resolve_ladder_position(
    info: Info, game: str, account_id: strawberry.ID, around: int = 5
) -> t.LadderPosition:
    async def run() -> t.LadderPosition:
        _within("around", around, 0, 50)
        return t.LadderPosition.of(await games_of(info).ladder_place(game, str(account_id), around))

    return await guarded(run)


async def resolve_rating(
    info: Info, game: str, account_id: strawberry.ID, limit: int = DEFAULT_LIMIT
) -> t.RatingHistory:
    async def run() -> t.RatingHistory:
        page = page_of(HistoryPage, {"limit": limit})
        return t.RatingHistory.of(await games_of(info).rating_history(game, str(account_id), page.limit))

    return await guarded(run)


QUERIES = {
    "ladder": strawberry.field(
        resolver=resolve_ladder,
        description="A ladder of a game kind (`board`: `people` or `bots`), best first, a page at a time: "
        "pass a page's `nextCursor` as `cursor` for the next.",
    ),
    "ladder_position": strawberry.field(
        resolver=resolve_ladder_position,
        description="An account's rank on its ladder with up to `around` neighbours either side.",
    ),
    "rating": strawberry.field(
        resolver=resolve_rating, description="An account's rating in a game kind and its latest changes."
    ),
}
