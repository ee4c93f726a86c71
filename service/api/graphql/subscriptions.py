"""The ``Subscription`` root: a game's events and a bot account's turns, under the rules of the REST
streams (the ``after`` cursor, the caps on open streams, the end of a stream that fell behind).

The resolvers are plain functions given to ``strawberry.subscription(resolver=…)``, the typed form (see
:mod:`service.api.graphql.queries`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from schema import graphql_types as t
from service.api.graphql.context import games_of, token_of
from service.api.problems import problem_error
from service.api.ratelimit import counted_graphql
from service.base.problems import ProblemError
from service.base.texts import Text
from service.store.fanout import StreamClosing, StreamGap, StreamLagged, StreamSlot, client_key


def stream_slot(info: Info, who: str | None) -> StreamSlot:
    """A place among the open streams, under the caps the REST streams have (per token, else per
    address, and per process); the refusal carries the same code and a ``retry_after`` in seconds."""
    request = info.context.get("request")
    client = getattr(request, "client", None)
    try:
        return games_of(info).admit_stream(client_key(who, client.host if client else None))
    except ProblemError as error:
        retry = int(error.headers.get("Retry-After", "1"))
        refusal = ProblemError(error.code, error.text, retry_after=retry, **error.extra)
        raise problem_error(refusal) from None


def admissible(info: Info, who: str | None) -> None:
    """Refuse now, before the subscription starts, when the stream caps are already reached; the
    stream takes its place for real when it starts (a race lost in between ends it with the same
    error as a ``next``)."""
    with stream_slot(info, who):
        pass


def lagged_error(lagged: StreamLagged) -> GraphQLError:
    """The end of a subscription that fell too far behind: subscribe again with ``after`` (or, when
    the events after it are gone, resync from the view first: :class:`service.store.fanout.StreamGap`)."""
    if isinstance(lagged, StreamGap):
        return problem_error(ProblemError(lagged.code, lagged.detail, last_event_id=lagged.last_id))
    if isinstance(lagged, StreamClosing):
        return problem_error(
            ProblemError(
                "server_closing",
                Text(
                    "This server is shutting down; subscribe again with after: {last_id!r} (another "
                    "replica resumes without a gap).",
                    last_id=lagged.last_id,
                ),
                last_event_id=lagged.last_id,
                retry_after=1,
            )
        )
    return problem_error(
        ProblemError(
            "stream_lagged",
            Text(
                "This subscription fell too far behind and was ended; subscribe again with after: "
                "{last_id!r} to resume without a gap.",
                last_id=lagged.last_id,
            ),
            last_event_id=lagged.last_id,
            retry_after=1,
        )
    )


async def resolve_game_events(
    info: Info, game_id: strawberry.ID, after: str | None = None
) -> AsyncGenerator[t.GameEvent, None]:
    games = games_of(info)
    gid = str(game_id)
    token = token_of(info)
    try:
        async with counted_graphql(info, "open_stream", token):  # a seat's token, the admin's, or none
            caller, cursor = await games.open_game_stream(gid, token, after, "after")
    except ProblemError as error:
        raise problem_error(error) from None
    admissible(info, token)
    block_ms = info.context["settings"].sse_block_ms

    async def events() -> AsyncGenerator[t.GameEvent, None]:
        with stream_slot(info, token):
            try:
                async for seen in games.follow(gid, caller.seat, cursor, block_ms):
                    yield t.game_event(seen)
            except StreamLagged as lagged:
                raise lagged_error(lagged) from None

    return events()


async def resolve_my_turns(info: Info, after: str | None = None) -> AsyncGenerator[t.BotNotice, None]:
    games = games_of(info)
    try:
        async with counted_graphql(info, "open_stream", token_of(info)):
            bid, cursor = await games.open_bot_stream(token_of(info), after, "after")
    except ProblemError as error:
        raise problem_error(error) from None
    admissible(info, bid)
    block_ms = info.context["settings"].sse_block_ms

    async def notices() -> AsyncGenerator[t.BotNotice, None]:
        with stream_slot(info, bid):
            try:
                async for eid, notice in games.follow_notices(bid, cursor, block_ms):
                    delivered = await games.account_notice(notice)
                    if delivered is not None:
                        yield t.BotNotice.of({"id": eid, **delivered})
            except StreamLagged as lagged:
                raise lagged_error(lagged) from None

    return notices()


@strawberry.type
class Subscription:
    """Each subscription checks everything it can (rate limit, token, game, ``after``, stream caps)
    before it starts: a refusal then follows graphql-transport-ws as an ``error`` message for the
    operation (no ``next``, no ``complete``), which a graphql-ws client's ``error`` callback gets.
    The resolvers are plain coroutines returning the event stream, because the body of an async
    generator runs only at its first event, after the operation has started."""

    game_events = strawberry.subscription(
        resolver=resolve_game_events,
        description="The game's events as the caller's seat may see them, after the event id `after`; "
        "ends after the match is over. Authenticate with connection_init {Authorization: 'Bearer …'}.",
    )
    my_turns = strawberry.subscription(
        resolver=resolve_my_turns,
        description="For a bot account (its API key in connection_init {Authorization: 'Bearer …'}): "
        "`your_turn` in any of its games with the view and legal actions, and `game_over`; "
        "resume with `after`.",
    )
