"""The ``Subscription`` root: a game's events, a bot account's turns and a player's notices, under the
rules of the REST streams (the ``after`` cursor, the caps on open streams, the end of a stream that
fell behind).

The resolvers are plain functions given to ``strawberry.subscription(resolver=…)``, the typed form (see
:mod:`service.api.graphql.queries`).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from schema import games as g
from schema import graphql_bodies as b
from schema import players as p
from schema import tournaments as m
from schema import views
from schema.graphql_models import build, object_type
from service.api.graphql.context import client_of, games_of, token_of
from service.api.problems import problem_error
from service.api.ratelimit import counted
from service.base.problems import ProblemError
from service.base.texts import Text
from service.store.fanout import StreamClosing, StreamGap, StreamLagged, StreamSlot, client_key


def stream_slot(info: Info, who: str | None) -> StreamSlot:
    """A place among the open streams, under the caps the REST streams have (per token, else per
    address, and per process; never per resource followed: ``who`` is the caller, see
    :meth:`service.games.tournaments.Tournaments.stream_counted_as`); the refusal carries the same
    code and a ``retry_after`` in seconds."""
    request = info.context.get("request")
    client = getattr(request, "client", None)
    try:
        return games_of(info).events.admit_stream(client_key(who, client.host if client else None))
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
) -> AsyncGenerator[Any, None]:
    """The game's event envelopes (``EventEnvelope { id version event }``) as the caller's seat may see
    them: each ``event`` the same ``GameEvent`` a move's answer gives."""
    games = games_of(info)
    gid = str(game_id)
    token = token_of(info)
    try:
        async with counted(client_of(info), "open_stream", token):  # a seat's token, the admin's, or none
            caller, cursor = await games.events.open_game_stream(gid, token, after, "after")
    except ProblemError as error:
        raise problem_error(error) from None
    admissible(info, token)
    block_ms = info.context["settings"].sse_block_ms

    async def events() -> AsyncGenerator[Any, None]:
        with stream_slot(info, token):
            try:
                async for seen in games.events.follow(gid, caller.seat, cursor, block_ms):
                    yield build(views.EventEnvelope, seen)
            except StreamLagged as lagged:
                raise lagged_error(lagged) from None

    return events()


OpenAccount = Callable[[str | None, str | None, str], Awaitable[tuple[str, str]]]
N = TypeVar("N")


async def account_notices(
    info: Info, open_account: OpenAccount, after: str | None, shape: Callable[[dict[str, Any]], N]
) -> AsyncGenerator[N, None]:
    """The notices of the account ``open_account`` finds for the connection's credential (a seat owner:
    a bot account's id, or ``player:<id>``) after ``after``, each as ``shape`` types it: the loop
    behind ``botTurns`` and ``myEvents``, as :func:`service.api.rest.streams.account_stream` is behind
    the REST streams (a ``your_turn`` gains the seat's view and legal actions, or is left out once its
    game has moved on). It ends when the account is gone, or as a lagged stream does."""
    games = games_of(info)
    token = token_of(info)
    try:
        async with counted(client_of(info), "open_stream", token):
            owner, cursor = await open_account(token, after, "after")
    except ProblemError as error:
        raise problem_error(error) from None
    who = await games.tournaments.stream_counted_as(owner, token)  # the caller, never a shared tournament
    admissible(info, who)
    block_ms = info.context["settings"].sse_block_ms

    async def notices() -> AsyncGenerator[N, None]:
        with stream_slot(info, who):
            try:
                async for eid, notice in games.events.follow_notices(owner, cursor, block_ms):
                    delivered = await games.bots.account_notice(notice)
                    if delivered is not None:
                        yield shape({"id": eid, **delivered})
            except StreamLagged as lagged:
                raise lagged_error(lagged) from None

    return notices()


async def resolve_bot_turns(info: Info, after: str | None = None) -> AsyncGenerator[Any, None]:
    shape = functools.partial(build, g.BotNotice)
    return await account_notices(info, games_of(info).events.open_bot_stream, after, shape)


async def resolve_my_events(info: Info, after: str | None = None) -> AsyncGenerator[Any, None]:
    shape = functools.partial(build, p.PlayerNotice)
    return await account_notices(info, games_of(info).players.open_player_stream, after, shape)


async def resolve_tournament_events(
    info: Info, tournament_id: strawberry.ID, after: str | None = None
) -> AsyncGenerator[Any, None]:
    games = games_of(info)

    async def open_stream(token: str | None, after: str | None, name: str) -> tuple[str, str]:
        return await games.tournaments.open_tournament_stream(str(tournament_id), after, name)

    return await account_notices(info, open_stream, after, functools.partial(build, m.TournamentEvent))


@strawberry.type(
    description="What a client follows: a game's events, an account's notices, a tournament's events "
    "(graphql-transport-ws at /graphql)."
)
class Subscription:
    """Each subscription checks everything it can (rate limit, token, game, ``after``, stream caps)
    before it starts: a refusal then follows graphql-transport-ws as an ``error`` message for the
    operation (no ``next``, no ``complete``), which a graphql-ws client's ``error`` callback gets.
    The resolvers are plain coroutines returning the event stream, because the body of an async
    generator runs only at its first event, after the operation has started."""

    game_events = strawberry.subscription(
        resolver=resolve_game_events,
        graphql_type=object_type(views.EventEnvelope),
        description="The game's events as the caller's seat may see them, after the stream id `after`, "
        "each in its envelope (`id`: resume after it; `version`; `event`); ends after the game is "
        "finished. Authenticate with connection_init {Authorization: 'Bearer …'}.",
    )
    bot_turns = strawberry.subscription(
        resolver=resolve_bot_turns,
        graphql_type=b.BotNotice,
        description="For a bot account (its API key in connection_init {Authorization: 'Bearer …'}): "
        "`your_turn` in any of its games with the view and legal actions, and `game_finished`; "
        "resume with `after`.",
    )
    tournament_events = strawberry.subscription(
        resolver=resolve_tournament_events,
        graphql_type=b.TournamentEvent,
        description="A tournament's events after `after` (an event's `id`): created, rounds started and "
        "finished (standings), games over, the end (the key). No credential needed.",
    )
    my_events = strawberry.subscription(
        resolver=resolve_my_events,
        graphql_type=b.PlayerNotice,
        description="For a player (a player token or an identity provider's JWT in connection_init "
        "{Authorization: 'Bearer …'}): one stream for all your games: your turns (with the view and "
        "legal actions; one whose game has moved on is left out), invitations, games started and over, "
        "rematches, reminders. Resume with `after` (a notice's `id`): none is missed or repeated.",
    )
