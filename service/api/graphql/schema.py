"""The schema: the three roots, the schema's own types and scalars, and the extension that bounds each
document (:mod:`service.api.graphql.limits`) before graphql-core validates it; ``sdl()`` prints it as
the committed ``schema/schema.graphql``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import strawberry
from graphql import GraphQLError, parse
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig

from schema import graphql_bodies as b
from schema.graphql_models import SCALARS, every_type
from service.api.graphql.error_codes import ErrorCode
from service.api.graphql.errors import code_errors, drop_suggestions
from service.api.graphql.limits import QueryLimits, bound_validation, check_query
from service.api.graphql.mutations import Mutation
from service.api.graphql.queries import Query
from service.api.graphql.subscriptions import Subscription
from service.api.problems import observe_graphql_errors, problem_error
from service.base.problems import CODES, ProblemError

# Stands in for a refused document: Strawberry looks up the operation's type before it reads the
# errors that stop the request, and the real document may be unparsable or too costly to touch.
PLACEHOLDER = parse("{ __typename }")


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
            drop_suggestions(result)


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
    """The schema, its documents bounded by ``limits`` (the defaults when none are given)."""
    bounds = limits or QueryLimits()
    bound_validation()
    schema = AtoutSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[*every_type(), b.IntOption, b.BoolOption, ErrorCode],  # reached only through their interfaces
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[lambda: DocumentLimits(limits=bounds)],  # one per operation: it holds its context
    )
    describe_arguments(schema)
    return schema


ARGUMENTS = {
    "gameId": "The game's id.",
    "tournamentId": "The tournament's id.",
    "ticketId": "The Play-now ticket's id (yours).",
    "partyId": "The party's id (one you are a member of).",
    "webhookId": "The webhook endpoint's id.",
    "accountId": "The account's id: a player's or a bot's.",
    "first": "At most this many (1 to 100; 50 unless said).",
    "after": "Start after this cursor: a page's `pageInfo.endCursor` (none: the first page).",
    "around": "Neighbours either side (0 to 50).",
    "limit": "At most this many of the latest changes (1 to 200; 50 unless said).",
    "status": "Only the games in this state.",
    "kind": "The game kind.",
    "board": "Which ladder.",
    "input": "What the mutation takes: its REST twin's request body, and the ids of its path.",
}
"""The arguments' descriptions, one per name: an argument means the same on every field (docs/glossary.md)."""
STREAM_AFTER = "Resume after this stream id (an event's or a notice's `id`); none: from now."


def describe_arguments(schema: strawberry.Schema) -> None:
    """Give each argument without a description its name's (:data:`ARGUMENTS`); a subscription's
    ``after`` is a stream id, not a page's cursor."""
    for kind in schema._schema.type_map.values():
        for field in (getattr(kind, "fields", None) or {}).values():
            for argument_name, argument in (getattr(field, "args", None) or {}).items():
                if argument.description:
                    continue
                if argument_name == "after" and kind is schema._schema.subscription_type:
                    argument.description = STREAM_AFTER
                else:
                    argument.description = ARGUMENTS.get(argument_name)


def sdl() -> str:
    """The schema in SDL, as committed in ``schema/schema.graphql`` (``python -m service.api.graphql``)."""
    return build_schema().as_str() + "\n"
