"""Tournaments in GraphQL: the REST operations of /v1/tournaments with the same rules and codes. Query
``tournament``; mutation ``createTournament`` (the administrator or a bot account), its one input made
from REST's body (``CreateTournamentRequest``), so a bad entrant or target score is refused here as
there."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.graphql_models import build, build_payload, given
from schema.tournaments import CreateTournamentRequest, Tournament
from service.api.graphql.context import INPUT, client_of, games_of, guarded, parsed, root_field, token_of
from service.api.ratelimit import rate_limit


async def resolve_tournament(info: Info, tournament_id: strawberry.ID) -> Any:
    found = await guarded(lambda: games_of(info).tournaments.tournament(str(tournament_id)))
    return build(Tournament, found)


async def resolve_create_tournament(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CreateTournamentInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)
    account = await games.credentials.account_token(token)
    await guarded(lambda: rate_limit(client_of(info), "create_game", account))

    async def run() -> Any:
        request = parsed(CreateTournamentRequest, given(input))
        return build_payload(
            b.CreateTournamentPayload, await games.tournaments.create_tournament(request, token)
        )

    return await guarded(run)


QUERIES = {
    "tournament": root_field(
        resolve_tournament,
        b.Tournament,
        "A tournament: rounds, games with their replays, standings with intervals, head-to-head (REST "
        "getTournament).",
    ),
}
MUTATIONS = {
    "create_tournament": strawberry.mutation(
        resolver=resolve_create_tournament,
        graphql_type=b.CreateTournamentPayload,
        description="Create a tournament on duplicate deals (Le 500, Le Rough) between built-in bots "
        "(`bot:<level>`) and bot accounts (`account:<bot_id>`): the administrator token or a bot's API key. "
        "A bot account gets each game as a `tournament_game` notice, with its seat tokens. "
        "The rules and codes of REST createTournament: entrants typed (`invalid_request`), a bot account "
        "enters itself only (`entrant_not_allowed`; the administrator any), each round admitted whole "
        "by the caps on open games (`too_many_games`, `server_full`, `tournaments_full`).",
    ),
}
