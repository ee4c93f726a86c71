"""The REST handlers of Play now: a ticket (queue, read, cancel) and a party (create, join, read), for a
player's credential or a bot's API key (the games layer: service/games/matchmaking.py).
:data:`MATCHMAKING_OPS` declares the endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.matchmaking import CreatePartyRequest, CreateTicketRequest, JoinPartyRequest, Party, Ticket
from service.api.ratelimit import Client, rate_limit
from service.api.rest.operation import BODY, CREDENTIAL, LIMITED, Op
from service.api.rest.requests import bearer, games_of, ok, parse_body
from service.games.core import BOT_KEY, PLAYER_TOKEN


async def create_ticket(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    await games.matchmaking.account(token)  # the credential before the body (401 before 422)
    await rate_limit(Client.of(request), "create_game", await games.credentials.account_token(token))
    body = await parse_body(request, CreateTicketRequest)
    return ok(await games.matchmaking.create_ticket(body, token), 201)


async def get_ticket(request: Request) -> Response:
    return ok(await games_of(request).matchmaking.ticket(request.path_params["ticket_id"], bearer(request)))


async def cancel_ticket(request: Request) -> Response:
    tid = request.path_params["ticket_id"]
    return ok(await games_of(request).matchmaking.cancel_ticket(tid, bearer(request)))


async def create_party(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    await games.matchmaking.account(token)
    await rate_limit(Client.of(request), "create_game", await games.credentials.account_token(token))
    body = await parse_body(request, CreatePartyRequest)
    return ok(await games.matchmaking.create_party(body, token), 201)


async def join_party(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    await games.matchmaking.account(token)
    await rate_limit(Client.of(request), "join", await games.credentials.account_token(token))
    body = await parse_body(request, JoinPartyRequest)
    return ok(await games.matchmaking.join_party(request.path_params["party_id"], body.invite_code, token))


async def get_party(request: Request) -> Response:
    return ok(await games_of(request).matchmaking.party(request.path_params["party_id"], bearer(request)))


TAG = "matchmaking"
ACCOUNTS = (PLAYER_TOKEN, BOT_KEY)
QUEUED = (
    "Play now: a table of the game found for you (and your party). You get `match_found` on your stream "
    "(/v1/me/events, a bot's /v1/bots/me/stream) with the game and your seat, already started: act with "
    "your own credential. Casual pools ignore ratings and fill fastest; rated pools match by display "
    "rating within a window that widens with the wait (±5 points at once, +0.5 a second, at most ±50), "
    "and never seat you at once with the opponents of your last rated Play-now game. After "
    "`ATOUT_MATCHMAKING_BOT_FILL_SECONDS` (30) the empty chairs of a casual table with at least one "
    "person are filled with built-in bots near the people's rating; bot accounts play in a pool of their "
    "own, never bot-filled. One waiting ticket per account and game kind (409 `ticket_held`); a ticket "
    "waiting `ATOUT_MATCHMAKING_TICKET_SECONDS` (600) expires (read it: `expired`). Counted as "
    "game creation by the rate limits."
)

MATCHMAKING_OPS: tuple[Op, ...] = (
    Op(
        "POST",
        "/v1/matchmaking/tickets",
        create_ticket,
        "createTicket",
        "Play now: queue for a table of a game, alone or with your party",
        TAG,
        Ticket,
        201,
        CreateTicketRequest,
        (
            *BODY,
            LIMITED,
            *CREDENTIAL,
            "invalid_options",
            "party_not_found",
            "ticket_held",
            "bots_not_allowed",
            "server_full",
        ),
        ACCOUNTS,
        description=QUEUED,
    ),
    Op(
        "GET",
        "/v1/matchmaking/tickets/{ticket_id}",
        get_ticket,
        "getTicket",
        "A ticket of yours: waiting, matched (its game and your seat), cancelled or expired",
        TAG,
        Ticket,
        errors=(*CREDENTIAL, "ticket_not_found"),
        auth=ACCOUNTS,
        description="Only its owner reads a ticket: anyone else's is 404 `ticket_not_found`.",
    ),
    Op(
        "DELETE",
        "/v1/matchmaking/tickets/{ticket_id}",
        cancel_ticket,
        "cancelTicket",
        "Cancel a waiting ticket of yours: it is never matched after this answer",
        TAG,
        Ticket,
        errors=(*CREDENTIAL, "ticket_not_found", "ticket_not_waiting"),
        auth=ACCOUNTS,
        description="A ticket already matched (409 `ticket_not_waiting`) names its game: play it.",
    ),
    Op(
        "POST",
        "/v1/matchmaking/parties",
        create_party,
        "createParty",
        "Create a party for a game: friends who queue together (you lead it)",
        TAG,
        Party,
        201,
        CreatePartyRequest,
        (*BODY, LIMITED, *CREDENTIAL),
        ACCOUNTS,
        description="The answer's `invite_code` (shown to the leader only) lets a friend join. The leader "
        "queues the party whole with a ticket's `party_id`: its members sit at one table, a party of two "
        "as partners (opposite seats) in Le 500 and Le Rough.",
    ),
    Op(
        "POST",
        "/v1/matchmaking/parties/{party_id}/members",
        join_party,
        "joinParty",
        "Join a friend's party with its invite code",
        TAG,
        Party,
        request=JoinPartyRequest,
        errors=(*BODY, LIMITED, *CREDENTIAL, "party_not_found", "invalid_invite", "party_full"),
        auth=ACCOUNTS,
        description="A party has at most as many members as its game has seats (409 `party_full`).",
    ),
    Op(
        "GET",
        "/v1/matchmaking/parties/{party_id}",
        get_party,
        "getParty",
        "A party you are a member of",
        TAG,
        Party,
        errors=(*CREDENTIAL, "party_not_found"),
        auth=ACCOUNTS,
    ),
)
