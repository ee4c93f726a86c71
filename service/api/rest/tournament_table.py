"""The tournaments' endpoints under /v1/tournaments, declared as the table declares every endpoint
(:class:`service.api.rest.operation.Op`) and included in it (:data:`service.api.rest.endpoints.OPS`)."""

from __future__ import annotations

from schema.tournaments import CreateTournamentRequest, Tournament, TournamentStreamFrame
from service.api.rest.operation import BODY, LIMITED, STREAMS, Op, stream_params
from service.api.rest.tournaments import create_tournament, get_tournament, tournament_events

TAG = "tournaments"

TOURNAMENT_OPS: tuple[Op, ...] = (
    Op(
        "POST",
        "/v1/tournaments",
        create_tournament,
        "createTournament",
        "Create a tournament on duplicate deals (the administrator or a bot account)",
        TAG,
        Tournament,
        201,
        CreateTournamentRequest,
        (
            *BODY,
            LIMITED,
            "missing_token",
            "invalid_token",
            "tournament_forbidden",
            "invalid_tournament",
            "invalid_options",
            "bot_not_found",
            "too_many_tournaments",
        ),
        "optional",
        description="Round robin or Swiss between built-in bots (`bot:<level>`) and bot accounts "
        "(`account:<bot_id>`) in Le 500 or Le Rough. Each pairing plays each of its duplicate deals twice, "
        "the teams swapped on the same hands. The answer's `commitment` is SHA-256 of the tournament key, "
        "revealed as `key` when it ends; every game's match key is derived from it. A bot account gets "
        "each of its games as a `tournament_game` notice on its stream, with its two seat tokens, then "
        "`your_turn` notices as in any game.",
    ),
    Op(
        "GET",
        "/v1/tournaments/{tournament_id}",
        get_tournament,
        "getTournament",
        "A tournament: rounds, games with their replays, standings with intervals, head-to-head",
        TAG,
        Tournament,
        errors=("tournament_not_found",),
    ),
    Op(
        "GET",
        "/v1/tournaments/{tournament_id}/events",
        tournament_events,
        "streamTournamentEvents",
        "A tournament's events: created, rounds started and finished (standings), games over, the end",
        TAG,
        TournamentStreamFrame,
        errors=("tournament_not_found", "invalid_request", LIMITED, *STREAMS),
        params=(*stream_params("event", None),),
        stream=True,
        description="Server-Sent Events by default; NDJSON with `Accept: application/x-ndjson`. The stream "
        "ends when the tournament's record expires; `tournament_finished` reveals the key.",
    ),
)
