# mypy: disable-error-code="untyped-decorator,arg-type,return-value,list-item"
"""GraphQL at /graphql (Strawberry): the REST capabilities with the same semantics and error codes.

Expected failures are GraphQL errors whose ``extensions.code`` is the REST problem ``code``.
Queries are bounded by depth and by a cost (fields selected, lists weighted by their limit).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError, ValidationContext, ValidationRule
from graphql.language import FieldNode, FragmentSpreadNode, InlineFragmentNode, OperationDefinitionNode
from pydantic import TypeAdapter, ValidationError
from strawberry.asgi import GraphQL
from strawberry.extensions import AddValidationRules, MaxAliasesLimiter, QueryDepthLimiter
from strawberry.scalars import JSON
from strawberry.types import Info

import engine
from schema import graphql_types as t
from schema.rest import Action, CreateGameRequest
from service.errors import CODES, ProblemError
from service.games import Games
from service.rest import invalid_request
from service.store import STREAM_ID_PATTERN

R = TypeVar("R")
ACTION = TypeAdapter(Action)


# graphql-java's extended error types, for clients that sort errors by class
CLASSIFICATION = {401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND"}


def problem_error(error: ProblemError) -> GraphQLError:
    """The REST problem as a GraphQL error: ``extensions.code`` is the same stable code."""
    classification = CLASSIFICATION.get(
        error.status, "BAD_REQUEST" if error.status < 500 else "INTERNAL_ERROR"
    )
    extensions = {"code": error.code, "status": error.status, "classification": classification, **error.extra}
    return GraphQLError(error.detail, extensions=extensions)


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
    def rules(self) -> JSON:
        return engine.games()

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
        raw: dict[str, Any] = {
            "game": input.game,
            "options": input.options or {},
            "seats": input.seats,
            "seed": parse_seed(input.seed),
            "deal": input.deal,
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
    ) -> t.JoinResult:
        if (seat is not None and not 0 <= seat <= 4) or len(name) > 40:
            raise problem_error(
                ProblemError("invalid_request", "seat is 0..4 and name at most 40 characters.")
            )
        taken, token, started = await guarded(
            lambda: games_of(info).join(str(game_id), seat, name, invite_code)
        )
        return t.JoinResult(game_id=game_id, seat=taken, token=token, started=started)

    @strawberry.mutation(description="Give up the caller's seat (a bot plays it out once the game runs).")
    async def leave_seat(self, info: Info, game_id: strawberry.ID) -> t.LeaveResult:
        seat, outcome = await guarded(lambda: games_of(info).leave(str(game_id), token_of(info)))
        return t.LeaveResult(game_id=game_id, seat=seat, outcome=outcome)

    @strawberry.mutation(description="Offer or accept the rematch of a finished game, in the same seat.")
    async def rematch(self, info: Info, game_id: strawberry.ID) -> t.RematchResult:
        games = games_of(info)
        record, seat, token, started = await guarded(lambda: games.rematch(str(game_id), token_of(info)))
        return t.RematchResult(game=t.Game.of(games.summary(record)), seat=seat, token=token, started=started)

    @strawberry.mutation(description="Register a bot account: join seats with its API key, follow myTurns.")
    async def register_bot(self, info: Info, name: str, contact: str | None = None) -> t.BotRegistration:
        if not 1 <= len(name) <= 40 or (contact is not None and len(contact) > 200):
            raise problem_error(
                ProblemError("invalid_request", "name is 1 to 40 characters, contact at most 200.")
            )
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
        action: JSON,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> t.ActionResult:
        games = games_of(info)
        token = token_of(info)

        async def run() -> t.ActionResult:
            record = await games.get(str(game_id))
            games.caller(record, token, required=True)
            try:
                parsed = ACTION.validate_python(action)
            except ValidationError as exc:
                raise invalid_request(exc) from None
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
    if not STREAM_ID_PATTERN.match(cursor):
        raise problem_error(ProblemError("invalid_request", f"after must be {what} such as 1733140000000-0."))
    return cursor


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="The game's events as the caller's seat may see them, after the event id `after`; "
        "ends after the match is over. Authenticate with connection_init {Authorization: 'Bearer …'}."
    )
    async def game_events(
        self, info: Info, game_id: strawberry.ID, after: str | None = None
    ) -> AsyncGenerator[t.GameEvent, None]:
        games = games_of(info)
        gid = str(game_id)
        try:
            record = await games.get(gid)
            caller = games.caller(record, token_of(info), required=False)
        except ProblemError as error:
            raise problem_error(error) from None
        cursor = resume_from(after, "an event id")
        block_ms = info.context["settings"].sse_block_ms
        async for seen in games.follow(gid, caller.seat, cursor, block_ms):
            yield t.GameEvent.of(seen)

    @strawberry.subscription(
        description="For a bot account (its API key in connection_init {Authorization: 'Bearer …'}): "
        "`your_turn` in any of its games with the view and legal actions, and `game_over`; "
        "resume with `after`."
    )
    async def my_turns(self, info: Info, after: str | None = None) -> AsyncGenerator[t.BotNotice, None]:
        games = games_of(info)
        try:
            bid = await games.bot_of(token_of(info))
        except ProblemError as error:
            raise problem_error(error) from None
        cursor = resume_from(after, "a notice id")
        block_ms = info.context["settings"].sse_block_ms
        while True:
            batch = await games.store.bot_notices(bid, cursor)
            if not batch:
                batch = await games.store.bot_notices(bid, cursor, block_ms)
            for eid, notice in batch:
                cursor = eid
                delivered = await games.bot_notice(notice)
                if delivered is not None:
                    yield t.BotNotice.of({"id": eid, **delivered})


class CostLimit(ValidationRule):
    """Refuse operations selecting too many fields: each field costs 1, times the size of enclosing lists."""

    max_cost = 2000
    list_fields = {"games": 50, "seats": 5, "actions": 50, "events": 50}

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        cost = self._cost(node.selection_set, 1, set())
        if cost > self.max_cost:
            self.report_error(
                GraphQLError(
                    f"The query costs {cost}, over the limit of {self.max_cost}: select fewer fields.",
                    node,
                    extensions={"code": "query_too_costly"},
                )
            )

    def _cost(self, selection_set: Any, multiplier: int, seen: set[str]) -> int:
        if selection_set is None:
            return 0
        total = 0
        context: ValidationContext = self.context
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                total += multiplier
                inner = multiplier * self._list_size(selection)
                total += self._cost(selection.selection_set, inner, seen)
            elif isinstance(selection, InlineFragmentNode):
                total += self._cost(selection.selection_set, multiplier, seen)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
                fragment = context.get_fragment(selection.name.value)
                if fragment is not None:
                    total += self._cost(fragment.selection_set, multiplier, seen | {selection.name.value})
        return total

    def _list_size(self, node: FieldNode) -> int:
        size = self.list_fields.get(node.name.value, 1)
        for argument in node.arguments or ():
            if argument.name.value == "limit" and hasattr(argument.value, "value"):
                with contextlib.suppress(TypeError, ValueError):
                    size = max(1, int(argument.value.value))
        return size


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


def build_schema(max_depth: int = 10, max_cost: int = 2000) -> strawberry.Schema:
    rule = type("ConfiguredCostLimit", (CostLimit,), {"max_cost": max_cost})
    return AtoutSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=[
            lambda: QueryDepthLimiter(max_depth=max_depth),
            lambda: MaxAliasesLimiter(max_alias_count=30),
            lambda: AddValidationRules([rule]),
        ],
    )


class AtoutGraphQL(GraphQL[dict[str, Any], None]):
    """Context: the request (or websocket), the Games service and settings."""

    async def get_context(self, request: Any, response: Any) -> dict[str, Any]:
        return {
            "request": request,
            "response": response,
            "games": request.app.state.games,
            "settings": request.app.state.settings,
        }


def graphql_app(max_depth: int, max_cost: int) -> AtoutGraphQL:
    return AtoutGraphQL(build_schema(max_depth, max_cost), graphql_ide="graphiql")


def sdl() -> str:
    return build_schema().as_str() + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(sdl())
