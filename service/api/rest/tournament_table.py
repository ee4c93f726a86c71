"""The tournaments' endpoints under /v1/tournaments, declared as the table declares every endpoint
(:class:`service.api.rest.operation.Op`) and included in it (:data:`service.api.rest.endpoints.OPS`)."""

from __future__ import annotations

from schema.tournaments import CreateTournamentRequest, Tournament, TournamentStreamFrame
from service.api.rest.operation import BODY, CAPPED, LIMITED, STREAMS, Op, stream_params
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
            "entrant_not_allowed",
            "too_many_tournaments",
            *CAPPED,
            "tournaments_full",
        ),
        "optional",
        description="Round robin or Swiss between built-in bots (`bot:<level>`) and bot accounts "
        "(`account:<bot_id>`) in Le 500 or Le Rough. Each pairing plays each of its duplicate deals twice, "
        "the teams swapped on the same hands. The answer's `commitment` is SHA-256 of the tournament key, "
        "revealed as `key` when it ends; every game's match key is derived from it. A bot account gets "
        "each of its games as a `tournament_game` notice on its stream, with its two seat tokens, then "
        "`your_turn` notices as in any game.\n\n"
        "Entrants: a built-in level (`random`, `heuristic`, `expert`), or a bot account that exists; the "
        "administrator may enter any bot account, a bot account itself only (403 `entrant_not_allowed`). "
        "`target_score` is one the game takes (422 `invalid_options` otherwise).\n\n"
        "Caps: a tournament's games count as games created by its creator (the administrator is exempt "
        "from the per-creator cap only), and each round is admitted whole, against the creator's cap "
        "on unfinished games (429 `too_many_games`), the server's (503 `server_full`) and the "
        "server's running tournament games (503 `tournaments_full`), all with `Retry-After`; nothing "
        "is created when the first round is refused. A round larger than a cap could ever admit is 422 "
        "`invalid_tournament`. A later round that does not fit yet waits (`waiting`) and is retried.",
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
        "ends when the tournament's record expires; `tournament_finished` reveals the key. No credential "
        "is needed; the stream counts against the caps on open streams of its caller (its bot key, player "
        "credential or administrator token if one is sent and holds, else its address), never against "
        "the tournament.",
    ),
)
