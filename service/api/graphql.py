# mypy: disable-error-code="untyped-decorator,arg-type,return-value,list-item"
"""GraphQL at /graphql (Strawberry): the REST capabilities with the same semantics and error codes.

Expected failures are GraphQL errors whose ``extensions.code`` is the REST problem ``code``; every
other error gets a code too (``invalid_query`` for a document or variables graphql-core refuses,
``internal_error`` for a fault, its message hidden). Documents are bounded (size, tokens, fragments,
aliases, selections, depth, cost) by ``service.api.graphql_limits`` before graphql-core validates them.
Requests that are not GraphQL-shaped (bad JSON, a batch, a mutation over GET, another content type)
are answered with ``application/problem+json``, as REST answers them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, Callable, Iterator
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar

import strawberry
from cross_web import HTTPException
from graphql import GraphQLError, parse
from graphql.validation.validate import ValidationAbortedError
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.types import Info

from schema import graphql_types as t
from schema.actions import Action
from schema.bodies import CLIENT_SEED, CreateGameRequest
from schema.graphql_models import SCALARS, action_of, every_type, given
from service.api import docs_pages
from service.api.graphql_limits import QueryLimits, bound_validation, check_query, limits_of
from service.api.limits import parse_json, refuse_unsafe_names
from service.api.problems import invalid_request, observe_graphql_errors, problem_error, problem_response
from service.api.ratelimit import counted_graphql, rate_limit_graphql
from service.base.problems import CODES, ProblemError
from service.base.settings import Settings
from service.games import Games
from service.store.fanout import StreamClosing, StreamGap, StreamLagged, StreamSlot, client_key
from service.store.faults import store_fault
from service.store.keys import STREAM_ID_PATTERN

R = TypeVar("R")
ACTION = TypeAdapter(Action)


# graphql-java's extended error types, for clients that sort errors by class
RETRY_AFTER: ContextVar[str | None] = ContextVar("graphql_retry_after", default=None)
"""The longest ``retry_after`` among the errors of the GraphQL request being answered (set by
``process_result``, in the request's own task): the HTTP answer carries it as ``Retry-After``."""


async def guarded(call: Callable[[], Any]) -> Any:
    try:
        return await call()
    except ProblemError as error:
        raise problem_error(error) from None


def games_of(info: Info) -> Games:
    games: Games = info.context["games"]
    return games


def token_of(info: Info, explicit: str | None = None) -> str | None:
    if explicit:
        return explicit
    context = info.context
    params = context.get("connection_params") or {}
    header = None
    request = context.get("request")
    if request is not None:
        header = request.headers.get("authorization")
    header = header or params.get("Authorization") or params.get("authorization")
    if not header:
        return None
    scheme, _, token = str(header).partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise problem_error(
            ProblemError("invalid_token", "Send the token as `Authorization: Bearer <token>`.")
        )
    return token.strip()


CLIENT_SEED_DOC = (
    "Your own entropy (up to 64 printable ASCII characters), mixed into every hand's seed (docs/fairness.md)."
)


def check_client_seed(client_seed: str) -> None:
    """The REST rule for a client seed (``schema.bodies.CLIENT_SEED``), as a GraphQL error."""
    if len(client_seed) > 64 or not re.fullmatch(CLIENT_SEED, client_seed):
        raise problem_error(
            ProblemError("invalid_request", "clientSeed is at most 64 printable ASCII characters.")
        )


def parse_seed(seed: str | None) -> int | None:
    if seed is None:
        return None
    if not seed.isdigit():
        raise problem_error(ProblemError("invalid_request", "seed must be a decimal string of digits."))
    return int(seed)


@strawberry.type
class Query:
    @strawberry.field(description="A game by id.")
    async def game(self, info: Info, id: strawberry.ID) -> t.Game:
        games = games_of(info)

        async def run() -> t.Game:
            record = await games.get(str(id))
            return t.Game.of(games.summary(record, games.caller(record, token_of(info), required=False)))

        result: t.Game = await guarded(run)
        return result

    @strawberry.field(description="Open games: listed and waiting for players, newest first.")
    async def games(self, info: Info, limit: int = 50) -> list[t.Game]:
        if not 1 <= limit <= 100:
            raise problem_error(ProblemError("invalid_request", "limit must be from 1 to 100."))
        return [t.Game.of(s) for s in await games_of(info).open_games(limit)]

    @strawberry.field(
        description="Each game id with its players and rule options (defaults, allowed values)."
    )
    def rules(self) -> list[t.GameRules]:
        return t.GameRules.every()

    @strawberry.field(description="The caller's view: the seat of the bearer token, or a spectator's.")
    async def view(self, info: Info, game_id: strawberry.ID) -> t.View:
        result = await guarded(lambda: games_of(info).view(str(game_id), token_of(info)))
        return t.View.of(result)

    @strawberry.field(description="The caller's legal actions (needs the seat token).")
    async def legal_actions(self, info: Info, game_id: strawberry.ID) -> t.LegalActions:
        result = await guarded(lambda: games_of(info).legal_actions(str(game_id), token_of(info)))
        return t.LegalActions.of(result)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Create a game; an explicit deal needs the administrator token.")
    async def create_game(self, info: Info, input: t.CreateGameInput) -> t.CreateGameResult:
        await rate_limit_graphql(info, "create_game", await games_of(info).account_token(token_of(info)))
        raw: dict[str, Any] = {
            "game": input.game,
            "options": given(input.options) if input.options else {},
            "seats": input.seats,
            "seed": parse_seed(input.seed),
            "deal": given(input.deal) if input.deal else None,
            "listed": input.listed,
            "turn_seconds": input.turn_seconds,
            "timeouts_to_bot": input.timeouts_to_bot,
        }
        try:
            request = CreateGameRequest.model_validate(raw)
        except ValidationError as exc:
            raise problem_error(invalid_request(exc)) from None
        games = games_of(info)
        record, invite = await guarded(lambda: games.create(request, token_of(info)))
        return t.CreateGameResult(game=t.Game.of(games.summary(record)), invite_code=invite)

    @strawberry.mutation(
        description="Take a seat (the first open one without `seat`); the token is shown once."
    )
    async def join_seat(
        self,
        info: Info,
        game_id: strawberry.ID,
        seat: int | None = None,
        name: str = "",
        invite_code: str | None = None,
        client_seed: Annotated[str, strawberry.argument(description=CLIENT_SEED_DOC)] = "",
    ) -> t.JoinResult:
        if (seat is not None and not 0 <= seat <= 4) or len(name) > 40:
            raise problem_error(
                ProblemError("invalid_request", "seat is 0..4 and name at most 40 characters.")
            )
        check_client_seed(client_seed)
        await rate_limit_graphql(info, "join", await games_of(info).account_token(token_of(info)))
        refuse_unsafe_names(name=name)
        taken, token, started = await guarded(
            lambda: games_of(info).join(str(game_id), seat, name, invite_code, client_seed=client_seed)
        )
        return t.JoinResult(game_id=game_id, seat=taken, token=token, started=started)

    @strawberry.mutation(description="Give up the caller's seat (a bot plays it out once the game runs).")
    async def leave_seat(self, info: Info, game_id: strawberry.ID) -> t.LeaveResult:
        seat, outcome = await guarded(lambda: games_of(info).leave(str(game_id), token_of(info)))
        return t.LeaveResult(game_id=game_id, seat=seat, outcome=outcome)

    @strawberry.mutation(description="Offer or accept the rematch of a finished game, in the same seat.")
    async def rematch(
        self,
        info: Info,
        game_id: strawberry.ID,
        client_seed: Annotated[str, strawberry.argument(description=CLIENT_SEED_DOC)] = "",
    ) -> t.RematchResult:
        check_client_seed(client_seed)
        games = games_of(info)
        record, seat, token, started = await guarded(
            lambda: games.rematch(str(game_id), token_of(info), client_seed=client_seed)
        )
        return t.RematchResult(game=t.Game.of(games.summary(record)), seat=seat, token=token, started=started)

    @strawberry.mutation(description="Register a bot account: join seats with its API key, follow myTurns.")
    async def register_bot(self, info: Info, name: str, contact: str | None = None) -> t.BotRegistration:
        if not 1 <= len(name) <= 40 or (contact is not None and len(contact) > 200):
            raise problem_error(
                ProblemError("invalid_request", "name is 1 to 40 characters, contact at most 200.")
            )
        await rate_limit_graphql(info, "register_bot", await games_of(info).account_token(token_of(info)))
        refuse_unsafe_names(name=name, contact=contact)
        bid, key = await games_of(info).register_bot(name, contact)
        return t.BotRegistration(bot_id=strawberry.ID(bid), name=name, api_key=key)

    @strawberry.mutation(description="Delete a bot account (administrator token); true once deleted.")
    async def delete_bot(self, info: Info, bot_id: strawberry.ID) -> bool:
        await guarded(lambda: games_of(info).delete_bot(str(bot_id), token_of(info)))
        return True

    @strawberry.mutation(description="Submit an action for the caller's seat (same rules as REST).")
    async def submit_action(
        self,
        info: Info,
        game_id: strawberry.ID,
        action: t.ActionInput,  # type: ignore[valid-type]  # made from the action models
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> t.ActionResult:
        games = games_of(info)
        token = token_of(info)

        async def run() -> t.ActionResult:
            async with counted_graphql(info, "act", token):
                record = await games.get(str(game_id))
                games.caller(record, token, required=True)
            try:
                parsed = ACTION.validate_python(action_of(action))
            except ValidationError as exc:
                raise invalid_request(exc) from None
            except ValueError as exc:
                raise ProblemError("invalid_request", str(exc)) from None
            if expected_version is not None and expected_version < 0:
                raise ProblemError("invalid_request", "expected_version must be 0 or more.")
            if idempotency_key is not None and not 1 <= len(idempotency_key) <= 200:
                raise ProblemError("invalid_request", "idempotencyKey must be 1 to 200 characters.")
            response, replayed = await games.act(
                str(game_id),
                token,
                parsed.model_dump(exclude_none=True),
                expected_version=expected_version,
                idempotency_key=idempotency_key,
            )
            return t.ActionResult.of(response, replayed)

        result: t.ActionResult = await guarded(run)
        return result


def resume_from(after: str | None, what: str) -> str:
    """The stream id a subscription resumes after ("0-0": from the start); a malformed one is
    refused with the same ``invalid_request`` the REST streams give."""
    cursor = after or "0-0"
    if not STREAM_ID_PATTERN.fullmatch(cursor):
        raise problem_error(ProblemError("invalid_request", f"after must be {what} such as 1733140000000-0."))
    return cursor


def stream_slot(info: Info, who: str | None) -> StreamSlot:
    """A place among the open streams, under the caps the REST streams have (per token, else per
    address, and per process); the refusal carries the same code and a ``retry_after`` in seconds."""
    request = info.context.get("request")
    client = getattr(request, "client", None)
    try:
        return games_of(info).admit_stream(client_key(who, client.host if client else None))
    except ProblemError as error:
        retry = int(error.headers.get("Retry-After", "1"))
        refusal = ProblemError(error.code, error.detail, retry_after=retry, **error.extra)
        raise problem_error(refusal) from None


def lagged_error(lagged: StreamLagged) -> GraphQLError:
    """The end of a subscription that fell too far behind: subscribe again with ``after`` (or, when
    the events after it are gone, resync from the view first: :class:`service.store.fanout.StreamGap`)."""
    if isinstance(lagged, StreamGap):
        return problem_error(ProblemError(lagged.code, lagged.detail, last_event_id=lagged.last_id))
    if isinstance(lagged, StreamClosing):
        return problem_error(
            ProblemError(
                "server_closing",
                f"This server is shutting down; subscribe again with after: {lagged.last_id!r} (another "
                "replica resumes without a gap).",
                last_event_id=lagged.last_id,
                retry_after=1,
            )
        )
    return problem_error(
        ProblemError(
            "stream_lagged",
            f"This subscription fell too far behind and was ended; subscribe again with after: "
            f"{lagged.last_id!r} to resume without a gap.",
            last_event_id=lagged.last_id,
            retry_after=1,
        )
    )


def admissible(info: Info, who: str | None) -> None:
    """Refuse now, before the subscription starts, when the stream caps are already reached; the
    stream takes its place for real when it starts (a race lost in between ends it with the same
    error as a ``next``)."""
    with stream_slot(info, who):
        pass


@strawberry.type
class Subscription:
    """Each subscription checks everything it can (rate limit, token, game, ``after``, stream caps)
    before it starts: a refusal then follows graphql-transport-ws as an ``error`` message for the
    operation (no ``next``, no ``complete``), which a graphql-ws client's ``error`` callback gets.
    The resolvers are plain coroutines returning the event stream, because the body of an async
    generator runs only at its first event, after the operation has started."""

    @strawberry.subscription(
        description="The game's events as the caller's seat may see them, after the event id `after`; "
        "ends after the match is over. Authenticate with connection_init {Authorization: 'Bearer …'}."
    )
    async def game_events(
        self, info: Info, game_id: strawberry.ID, after: str | None = None
    ) -> AsyncGenerator[t.GameEvent, None]:
        games = games_of(info)
        gid = str(game_id)
        token = token_of(info)
        try:
            async with counted_graphql(info, "open_stream", token):  # a seat's token, the admin's, or none
                record = await games.get(gid)
                caller = games.caller(record, token, required=False)
        except ProblemError as error:
            raise problem_error(error) from None
        cursor = resume_from(after, "an event id")
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

    @strawberry.subscription(
        description="For a bot account (its API key in connection_init {Authorization: 'Bearer …'}): "
        "`your_turn` in any of its games with the view and legal actions, and `game_over`; "
        "resume with `after`."
    )
    async def my_turns(self, info: Info, after: str | None = None) -> AsyncGenerator[t.BotNotice, None]:
        games = games_of(info)
        try:
            async with counted_graphql(info, "open_stream", token_of(info)):
                bid = await games.bot_of(token_of(info))
        except ProblemError as error:
            raise problem_error(error) from None
        cursor = resume_from(after, "a notice id")
        admissible(info, bid)
        block_ms = info.context["settings"].sse_block_ms

        async def notices() -> AsyncGenerator[t.BotNotice, None]:
            with stream_slot(info, bid):
                try:
                    async for eid, notice in games.follow_notices(bid, cursor, block_ms):
                        delivered = await games.bot_notice(notice)
                        if delivered is not None:
                            yield t.BotNotice.of({"id": eid, **delivered})
                except StreamLagged as lagged:
                    raise lagged_error(lagged) from None

        return notices()


# Stands in for a refused document: Strawberry looks up the operation's type before it reads the
# errors that stop the request, and the real document may be unparsable or too costly to touch.
PLACEHOLDER = parse("{ __typename }")
INTERNAL = "Something went wrong on our side; the error was logged."
# What graphql-core wraps when it refuses variables or literals (a scalar's parse_value raising).
PRE_EXECUTION_FAULTS = (GraphQLError, ValueError, TypeError)
# graphql-core's hints ("Did you mean "games"?") name fields and types: dropped with introspection off.
SUGGESTION = re.compile(r" Did you mean .*\?$", re.DOTALL)


def coded(error: GraphQLError) -> GraphQLError:
    """Give ``error`` an ``extensions.code`` when it has none, so a client can sort every error.

    A ProblemError raised by a resolver keeps its code; an error before execution (a document or
    variables graphql-core refuses) is ``invalid_query``; anything else is a fault of ours:
    ``internal_error``, its message replaced (``AtoutSchema.process_errors`` logged it already).
    Changes the error in place, and leaves a coded one alone, so it may run more than once.
    """
    if (error.extensions or {}).get("code"):
        return error
    original = error.original_error
    if isinstance(original, ProblemError):
        problem = original
    elif isinstance(error, ValidationAbortedError) and "Too many validation errors" not in error.message:
        problem = ProblemError(
            "query_too_complex",
            "Validation gave up on this document: it compares the same fields too many times (a field "
            "repeated, or fragments selecting the same fields spread side by side); select each field once.",
        )
    elif original is not None and (fault := store_fault(original, "graphql")) is not None:
        problem = fault  # Redis down or full: store_unavailable / server_full, never redis-py's text
    elif error.path is None and (original is None or isinstance(original, PRE_EXECUTION_FAULTS)):
        problem = ProblemError("invalid_query", error.message)
    else:
        problem = ProblemError("internal_error", INTERNAL)
    error.message = problem.detail
    error.extensions = problem_error(problem).extensions
    return error


def code_errors(result: Any) -> None:
    for error in getattr(result, "errors", None) or ():
        coded(error)


class DocumentLimits(SchemaExtension):
    """Parse and bound the document before graphql-core validates it (validation expands fragments, so
    a small document can stand for billions of fields); then give every error of the result a code."""

    def __init__(self, *, limits: QueryLimits) -> None:
        self.limits = limits

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        if context.query and context.graphql_document is None:
            try:
                context.graphql_document = check_query(context.query, self.limits, context.variables)
            except ProblemError as error:
                # Strawberry skips validation and execution when errors are already there.
                context.graphql_document = PLACEHOLDER
                context._provided_operation_name = None  # the placeholder's operation is unnamed
                context.pre_execution_errors = [problem_error(error)]
        yield
        self._finish(context.result)

    def on_stream_result(self, result: Any) -> Iterator[None]:
        self._finish(result)
        yield

    def _finish(self, result: Any) -> None:
        code_errors(result)
        observe_graphql_errors(result)  # counted by code, named by the request's id
        if not self.limits.introspection:
            for error in getattr(result, "errors", None) or ():
                error.message = SUGGESTION.sub("", error.message)


class AtoutSchema(strawberry.Schema):
    """Expected failures (a problem code, a refused query) are answers, not incidents: log only the rest."""

    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        unexpected = [
            e
            for e in errors
            if (e.extensions or {}).get("code") not in CODES
            and not (e.path is None and e.original_error is None)
        ]
        if unexpected:
            super().process_errors(unexpected, execution_context)


def build_schema(limits: QueryLimits | None = None) -> strawberry.Schema:
    bounds = limits or QueryLimits()
    bound_validation()
    return AtoutSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[*every_type(), t.IntOption, t.BoolOption],  # reached only through their interfaces
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[lambda: DocumentLimits(limits=bounds)],  # one per operation: it holds its context
    )


class RefusedJSON(json.JSONDecodeError):
    """A WebSocket message the safe parser refused: Strawberry closes the socket with 4400."""


def http_problem(error: HTTPException) -> ProblemError:
    """Strawberry's plain-text refusals of a request that is not GraphQL-shaped, as problems."""
    reason = error.reason
    if error.status_code == 405:
        return ProblemError("method_not_allowed", "GraphQL answers GET (queries only) and POST.")
    if error.status_code == 404:
        return ProblemError("not_found", "Nothing here: send a GraphQL request with a `query`.")
    if reason == "Unsupported content type":
        return ProblemError(
            "unsupported_media_type",
            "Send the GraphQL request as JSON with `Content-Type: application/json`.",
        )
    if reason == "Unable to parse request body as JSON":
        return ProblemError(
            "malformed_body", 'The body must be a JSON object: {"query": "{ rules { id } }"}.'
        )
    if "not allowed when using GET" in reason:
        return ProblemError(
            "method_not_allowed",
            f"{reason.split(' ')[0].capitalize()} must be sent with POST: GET runs queries only.",
            headers={"Allow": "POST"},
        )
    if reason in {"Batching is not enabled", "Too many operations"}:
        return ProblemError(
            "invalid_query",
            "Send one GraphQL request per HTTP request: a JSON array (a batch) is not accepted.",
        )
    if reason.startswith("No GraphQL query found"):
        return ProblemError("invalid_query", 'The request has no `query`: send {"query": "…"}.')
    return ProblemError("invalid_query", reason)


class AtoutGraphQL(GraphQL[dict[str, Any], None]):
    """Context: the request (or websocket), the Games service and settings. Refusals of requests that
    are not GraphQL-shaped are problem+json (Strawberry answers them as text/plain), and JSON is read
    by the same parser as REST bodies, so deep nesting or a huge integer is a 4xx, never a 500."""

    def __init__(self, schema: strawberry.Schema, settings: Settings) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self.max_json_depth = settings.max_json_depth
        self.max_int_digits = settings.max_int_digits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        RETRY_AFTER.set(None)
        try:
            response = await self.run(request)
            if (retry := RETRY_AFTER.get()) is not None:
                response.headers["Retry-After"] = retry
        except HTTPException as error:
            response = problem_response(http_problem(error), request.url.path)
        except ProblemError as error:
            response = problem_response(error, request.url.path)
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL from the assets this service serves (service/api/docs_pages.py), not from a CDN."""
        return docs_pages.graphiql_page()

    def parse_json(self, data: str | bytes) -> Any:
        return parse_json(data, self.max_json_depth, self.max_int_digits)

    async def parse_http_body(self, request: Any) -> Any:
        """Strawberry reads the body's fields with ``.get``: a body of ``null``, ``1`` or ``"x"`` is
        JSON but not a GraphQL request, and must be a 400, not an AttributeError (a 500)."""
        try:
            return await super().parse_http_body(request)
        except AttributeError:
            raise ProblemError(
                "invalid_query", 'The body must be a JSON object such as {"query": "{ rules { id } }"}.'
            ) from None

    def decode_json(self, data: str | bytes) -> object:
        try:
            return self.parse_json(data)
        except ProblemError as error:
            raise RefusedJSON(error.detail, data if isinstance(data, str) else "", 0) from None

    async def process_result(self, request: Any, result: Any) -> Any:
        code_errors(result)  # errors raised outside the operation hooks too
        hints = [
            int(hint)
            for error in getattr(result, "errors", None) or ()
            if isinstance(hint := (error.extensions or {}).get("retry_after"), int)
        ]
        if hints:  # the HTTP answer says when to retry, as a REST problem would (set in __call__)
            RETRY_AFTER.set(str(max(hints)))
        return await super().process_result(request, result)

    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        return {
            "request": request,
            "response": response,
            "games": request.app.state.games,
            "settings": request.app.state.settings,
        }


def graphql_app(settings: Settings) -> AtoutGraphQL:
    return AtoutGraphQL(build_schema(limits_of(settings)), settings)


def sdl() -> str:
    return build_schema().as_str() + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(sdl())
