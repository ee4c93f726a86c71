"""Play now in GraphQL: the REST operations of /v1/matchmaking with the same rules and codes. Queries
``ticket`` and ``party``; mutations ``createTicket``, ``cancelTicket``, ``createParty``, ``joinParty``,
each input made from REST's body, so a bad request is refused here as there."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema.graphql_models import build, build_payload, given, options_of
from schema.matchmaking import CreatePartyRequest, CreateTicketRequest, JoinPartyRequest, Party, Ticket
from service.api.graphql.context import INPUT, client_of, games_of, guarded, parsed, root_field, token_of
from service.api.ratelimit import rate_limit


async def resolve_ticket(info: Info, ticket_id: strawberry.ID) -> Any:
    found = await guarded(lambda: games_of(info).matchmaking.ticket(str(ticket_id), token_of(info)))
    return build(Ticket, found)


async def resolve_party(info: Info, party_id: strawberry.ID) -> Any:
    found = await guarded(lambda: games_of(info).matchmaking.party(str(party_id), token_of(info)))
    return build(Party, found)


async def counted_for_account(info: Info, category: str, work: Callable[[], Awaitable[Any]]) -> Any:
    """A Play-now mutation's steps, as its REST twin's: the account first (401 before any body is
    read), the rate limit of ``category``, then ``work`` (parse the input with REST's model, act)."""
    games, token = games_of(info), token_of(info)
    await guarded(lambda: games.matchmaking.account(token))
    account = await games.credentials.account_token(token)
    await guarded(lambda: rate_limit(client_of(info), category, account))
    return await guarded(work)


async def resolve_create_ticket(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CreateTicketInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        raw = {**given(input), "options": options_of(input.options)[1] if input.options else None}
        request = parsed(CreateTicketRequest, raw)
        return build_payload(b.CreateTicketPayload, await games.matchmaking.create_ticket(request, token))

    return await counted_for_account(info, "create_game", run)


async def resolve_cancel_ticket(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CancelTicketInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)
    cancelled = await guarded(lambda: games.matchmaking.cancel_ticket(str(input.ticket_id), token))
    return build_payload(b.CancelTicketPayload, cancelled)


async def resolve_create_party(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.CreatePartyInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        request = parsed(CreatePartyRequest, given(input))
        return build_payload(b.CreatePartyPayload, await games.matchmaking.create_party(request, token))

    return await counted_for_account(info, "create_game", run)


async def resolve_join_party(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.JoinPartyInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        request = parsed(JoinPartyRequest, {"invite_code": input.invite_code})
        party = await games.matchmaking.join_party(str(input.party_id), request.invite_code, token)
        return build_payload(b.JoinPartyPayload, party)

    return await counted_for_account(info, "join", run)


QUERIES = {
    "ticket": root_field(
        resolve_ticket,
        b.Ticket,
        "A Play-now ticket of yours: waiting, matched (its game and your seat), cancelled or expired "
        "(REST getTicket; anyone else's is `ticket_not_found`).",
    ),
    "party": root_field(resolve_party, b.Party, "A party you are a member of (REST getParty)."),
}
MUTATIONS = {
    "create_ticket": strawberry.mutation(
        resolver=resolve_create_ticket,
        graphql_type=b.CreateTicketPayload,
        description="Play now: queue for a table of a game, alone or with your party (a player's "
        "credential or a bot's API key). `match_found` on your notices names the game and your seat. The "
        "rules and codes of REST createTicket (`ticket_held`, `party_not_found`, `invalid_options`, "
        "`bots_not_allowed`, `server_full`).",
    ),
    "cancel_ticket": strawberry.mutation(
        resolver=resolve_cancel_ticket,
        graphql_type=b.CancelTicketPayload,
        description="Cancel a waiting ticket of yours: it is never matched after this answer (REST "
        "cancelTicket; a matched one: `ticket_not_waiting`).",
    ),
    "create_party": strawberry.mutation(
        resolver=resolve_create_party,
        graphql_type=b.CreatePartyPayload,
        description="Create a party for a game, which you lead; its `inviteCode` lets friends join (REST "
        "createParty).",
    ),
    "join_party": strawberry.mutation(
        resolver=resolve_join_party,
        graphql_type=b.JoinPartyPayload,
        description="Join a friend's party with its invite code (REST joinParty; `party_full`, "
        "`invalid_invite`).",
    ),
}
