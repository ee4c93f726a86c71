"""The REST handlers of ratings and ladders: a ladder's page, an account's place on it, an account's
rating with its history (the domain and the answers: service/games/ratings.py). Public reads: a ladder is
for all to see. :data:`RATING_OPS` declares the endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

import engine
from schema.pages import HistoryPage, TopPage
from schema.ratings import ACCOUNT_ID, LadderPage, LadderPosition, RatingHistory
from service.api.rest.operation import Op, Param, page_params
from service.api.rest.requests import games_of, int_query, ok, page_query


async def get_ladder(request: Request) -> Response:
    page = page_query(request, TopPage)
    board = request.query_params.get("board", "people")
    game = request.path_params["kind"]
    return ok(await games_of(request).ratings.ladder_page(game, board, page.limit, page.cursor))


async def get_ladder_position(request: Request) -> Response:
    around = int_query(request, "around", 5, 0, 50)
    game, account = request.path_params["kind"], request.path_params["account_id"]
    return ok(await games_of(request).ratings.ladder_place(game, account, 5 if around is None else around))


async def get_rating(request: Request) -> Response:
    page = page_query(request, HistoryPage, ("limit",))
    game, account = request.path_params["kind"], request.path_params["account_id"]
    return ok(await games_of(request).ratings.rating_history(game, account, page.limit))


GAME = Param("kind", "path", {"type": "string", "enum": sorted(engine.games())}, "The game kind.")
ACCOUNT = Param(
    "account_id",
    "path",
    {"type": "string", "pattern": ACCOUNT_ID, "maxLength": 72},
    "`player:<id>`, `bot:<id>` or `builtin:<level>`.",
)

RATING_OPS: tuple[Op, ...] = (
    Op(
        "GET",
        "/v1/ladders/{kind}",
        get_ladder,
        "getLadder",
        "A ladder of a game kind, best first: people or bots",
        "ratings",
        LadderPage,
        errors=("unknown_game", "invalid_request"),
        params=(
            GAME,
            Param(
                "board",
                "query",
                {"type": "string", "enum": ["people", "bots"]},
                "`people` (players, the default) or `bots` (bot accounts and built-in bots).",
            ),
            *page_params(TopPage),
        ),
        description="Ranked by the display rating (mu - 3*sigma). A page starts just after the last "
        "entry of the previous one, so ratings moving meanwhile shift a page by at most the entries that "
        "moved.",
    ),
    Op(
        "GET",
        "/v1/ladders/{kind}/accounts/{account_id}",
        get_ladder_position,
        "getLadderPosition",
        "An account's rank on its ladder, with its neighbours",
        "ratings",
        LadderPosition,
        errors=("unknown_game", "invalid_request", "rating_not_found"),
        params=(
            GAME,
            ACCOUNT,
            Param(
                "around",
                "query",
                {"type": "integer", "minimum": 0, "maximum": 50},
                "Neighbours either side (5).",
            ),
        ),
        description=f"`account_id` matches `{ACCOUNT_ID}`: `player:<id>`, `bot:<id>` or `builtin:<level>`.",
    ),
    Op(
        "GET",
        "/v1/ratings/{kind}/{account_id}",
        get_rating,
        "getRating",
        "An account's rating in a game kind and its history",
        "ratings",
        RatingHistory,
        errors=("unknown_game", "invalid_request", "rating_not_found"),
        params=(
            GAME,
            ACCOUNT,
            *page_params(HistoryPage, ("limit",)),
        ),
        description="The history lists each rated match's change, newest first: the display rating after "
        "it, its change, the account's place, whether it left, and the match's weight (repeated pairings "
        "count less).",
    ),
)
