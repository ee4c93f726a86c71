"""Tournaments in GraphQL: the REST operations of /v1/tournaments with the same rules and codes. Query
``tournament``; mutation ``createTournament`` (the administrator or a bot account). The arguments are
validated by the REST body's model, so a bad entrant or target score is refused here as there."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.graphql_models import build
from schema.tournaments import CreateTournamentRequest, Tournament
from service.api.graphql.context import client_of, games_of, guarded, parsed, token_of
from service.api.ratelimit import rate_limit


async def resolve_tournament(info: Info, id: strawberry.ID) -> Any:
    return build(Tournament, await guarded(lambda: games_of(info).tournaments.tournament(str(id))))


async def resolve_create_tournament(
    info: Info,
    game: str,
    entrants: list[str],
    format: str = "round_robin",
    rounds: int | None = None,
    deals: int = 1,
    duplicate: bool = True,
    move_seconds: int = 10,
    target_score: int | None = None,
    name: str = "",
) -> Any:
    games, token = games_of(info), token_of(info)
    account = await games.credentials.account_token(token)
    await guarded(lambda: rate_limit(client_of(info), "create_game", account))

    async def run() -> Any:
        raw = {
            "game": game,
            "entrants": entrants,
            "format": format,
            "rounds": rounds,
            "deals": deals,
            "duplicate": duplicate,
            "move_seconds": move_seconds,
            "target_score": target_score,
            "name": name,
        }
        request = parsed(CreateTournamentRequest, raw)
        return build(Tournament, await games.tournaments.create_tournament(request, token))

    return await guarded(run)


QUERIES = {
    "tournament": strawberry.field(
        resolver=resolve_tournament,
        graphql_type=b.Tournament,
        description="A tournament: rounds, games with their replays, standings with intervals, head-to-head.",
    ),
}
MUTATIONS = {
    "create_tournament": strawberry.mutation(
        resolver=resolve_create_tournament,
        graphql_type=b.Tournament,
        description="Create a tournament on duplicate deals (Le 500, Le Rough) between built-in bots "
        "(`bot:<level>`) and bot accounts (`account:<bot_id>`): the administrator token or a bot's API key. "
        "A bot account gets each game as a `tournament_game` notice on myTurns, with its seat tokens. "
        "The rules and codes of POST /v1/tournaments: entrants typed (`invalid_request`), a bot account "
        "enters itself only (`entrant_not_allowed`; the administrator any), each round admitted whole "
        "by the caps on open games (`too_many_games`, `server_full`, `tournaments_full`).",
    ),
}
