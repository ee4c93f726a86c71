"""The REST handlers of ratings and ladders: a ladder's page, an account's place on it, an account's
rating with its history (the domain: service/games/ratings.py). Public reads: a ladder is for all to see."""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response

from schema.ratings import LadderEntry, LadderPage, LadderPosition, RatingChange, RatingHistory, RatingInfo
from service.api.rest.requests import games_of, int_query, ok


async def get_ladder(request: Request) -> Response:
    game = request.path_params["game"]
    board = request.query_params.get("board", "people")
    limit = int_query(request, "limit", 50, 1, 100) or 50
    rows, cursor, total = await games_of(request).ladder(
        game, board, limit, request.query_params.get("cursor")
    )
    entries = [LadderEntry.model_validate(r) for r in rows]
    return ok(LadderPage(game=game, board=board, total=total, entries=entries, next_cursor=cursor))  # type: ignore[arg-type]


async def get_ladder_position(request: Request) -> Response:
    game, account = request.path_params["game"], request.path_params["account_id"]
    around = int_query(request, "around", 5, 0, 50)
    rows = await games_of(request).ladder_position(game, account, 5 if around is None else around)
    entries = [LadderEntry.model_validate(r) for r in rows]
    rank = next(e.rank for e in entries if e.account_id == account)
    board: Literal["people", "bots"] = "people" if account.startswith("player:") else "bots"
    return ok(LadderPosition(game=game, board=board, account_id=account, rank=rank, entries=entries))


async def get_rating(request: Request) -> Response:
    game, account = request.path_params["game"], request.path_params["account_id"]
    limit = int_query(request, "limit", 50, 1, 200) or 50
    row, history = await games_of(request).rating(game, account, limit)
    return ok(
        RatingHistory(
            rating=RatingInfo.model_validate(row), history=[RatingChange.model_validate(h) for h in history]
        )
    )
