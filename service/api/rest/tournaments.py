"""The REST handlers of tournaments: create one (the administrator or a bot account), read one, follow
one; :data:`TOURNAMENT_OPS` declares the endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.tournaments import CreateTournamentRequest, Tournament, TournamentStreamFrame
from service.api.ratelimit import Client, rate_limit
from service.api.rest.operation import BODY, CAPPED, LIMITED, STREAMS, Op, stream_params
from service.api.rest.requests import bearer, games_of, ok, parse_body
from service.api.rest.streams import account_stream
from service.games.core import ADMIN_TOKEN, BOT_KEY


async def create_tournament(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    await rate_limit(Client.of(request), "create_game", await games.credentials.account_token(token))
    body = await parse_body(request, CreateTournamentRequest)
    return ok(await games.tournaments.create_tournament(body, token), 201)


async def get_tournament(request: Request) -> Response:
    return ok(await games_of(request).tournaments.tournament(request.path_params["tournament_id"]))


async def tournament_events(request: Request) -> Response:
    """The tournament's events (SSE, or NDJSON), resumable, as an account's notices are streamed."""
    games, tid = games_of(request), request.path_params["tournament_id"]

    async def open_stream(key: str | None, after: str | None, name: str) -> tuple[str, str]:
        return await games.tournaments.open_tournament_stream(tid, after, name)

    return await account_stream(request, open_stream)


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
        (ADMIN_TOKEN, BOT_KEY),
        description="Round robin or Swiss between built-in bots (`bot:<level>`) and bot accounts "
        "(`account:<bot_id>`) in Le 500 or Le Rough. Each pairing plays each of its duplicate deals twice, "
        "the teams swapped on the same hands. The answer's `commitment` is SHA-256 of the tournament key, "
        "revealed as `key` when it ends; every game's match key is derived from it. A bot account gets "
        "each of its games as a `tournament_game` notice on its stream, with its two seat tokens, then "
        "`your_turn` notices as in any game.\n\n"
        "Entrants: a built-in level (`random`, `heuristic`, `expert`, `learned`), or a bot account that "
        "exists; the administrator may enter any bot account, a bot account itself only (403 "
        "`entrant_not_allowed`). `target_score` is one the game takes (422 `invalid_options` otherwise).\n\n"
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
