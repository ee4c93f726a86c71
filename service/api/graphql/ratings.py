"""Ratings and ladders in GraphQL: the REST operations of /v1/ladders and /v1/ratings with the same rules
and codes. Queries: ``ladder``, ``ladderPosition``, ``rating``. Plain-function resolvers, the typed form
(see :mod:`service.api.graphql.queries`)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema import ratings as r
from schema.graphql_models import ENUMS, GameKind, build, build_connection
from schema.pages import DEFAULT_LIMIT, HistoryPage, TopPage
from service.api.graphql.context import connection_page, games_of, guarded, root_field
from service.api.pages import page_of
from service.base.problems import ProblemError
from service.base.texts import Text

LadderBoard = ENUMS["LadderBoard"]
PEOPLE = LadderBoard("people")
KindArgument = Annotated[Any, strawberry.argument(graphql_type=GameKind, description="The game kind.")]


def _within(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ProblemError(
            "invalid_request", Text("{name} must be from {low} to {high}.", name=name, low=low, high=high)
        )


async def resolve_ladder(
    info: Info,
    kind: KindArgument,
    board: Annotated[
        Any, strawberry.argument(graphql_type=LadderBoard, description="Which ladder.")
    ] = PEOPLE,
    first: int = DEFAULT_LIMIT,
    after: str | None = None,
) -> Any:
    async def run() -> Any:
        page = connection_page(TopPage, first, after)
        ladder = await games_of(info).ratings.ladder_page(kind.value, board.value, page.limit, page.cursor)
        return build_connection(b.LadderConnection, ladder)

    return await guarded(run)


async def resolve_ladder_position(
    info: Info, kind: KindArgument, account_id: strawberry.ID, around: int = 5
) -> Any:
    async def run() -> Any:
        _within("around", around, 0, 50)
        place = await games_of(info).ratings.ladder_place(kind.value, str(account_id), around)
        return build(r.LadderPosition, place)

    return await guarded(run)


async def resolve_rating(
    info: Info, kind: KindArgument, account_id: strawberry.ID, limit: int = DEFAULT_LIMIT
) -> Any:
    async def run() -> Any:
        page = page_of(HistoryPage, {"limit": limit})
        history = await games_of(info).ratings.rating_history(kind.value, str(account_id), page.limit)
        return build(r.RatingHistory, history)

    return await guarded(run)


QUERIES = {
    "ladder": root_field(
        resolve_ladder,
        b.LadderConnection,
        "A ladder of a game kind (`board`: PEOPLE or BOTS), best first, a page at a time: pass a page's "
        "`pageInfo.endCursor` as `after` for the next (REST getLadder).",
    ),
    "ladder_position": root_field(
        resolve_ladder_position,
        b.LadderPosition,
        "An account's rank on its ladder with up to `around` neighbours either side (REST "
        "getLadderPosition).",
    ),
    "rating": root_field(
        resolve_rating,
        b.RatingHistory,
        "An account's rating in a game kind and its latest `limit` changes (REST getRating: one page, no "
        "cursor).",
    ),
}
