"""The REST handlers of ratings and ladders: a ladder's page, an account's place on it, an account's
rating with its history (the domain and the answers: service/games/ratings.py). Public reads: a ladder is
for all to see."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.pages import HistoryPage, TopPage
from service.api.rest.requests import games_of, int_query, ok, page_query


async def get_ladder(request: Request) -> Response:
    page = page_query(request, TopPage)
    board = request.query_params.get("board", "people")
    game = request.path_params["game"]
    return ok(await games_of(request).ladder_page(game, board, page.limit, page.cursor))


async def get_ladder_position(request: Request) -> Response:
    around = int_query(request, "around", 5, 0, 50)
    game, account = request.path_params["game"], request.path_params["account_id"]
    return ok(await games_of(request).ladder_place(game, account, 5 if around is None else around))


async def get_rating(request: Request) -> Response:
    page = page_query(request, HistoryPage, ("limit",))
    game, account = request.path_params["game"], request.path_params["account_id"]
    return ok(await games_of(request).rating_history(game, account, page.limit))
