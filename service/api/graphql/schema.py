"""The schema: the three roots, the schema's own types and scalars, and the extension that bounds each
document (:mod:`service.api.graphql.limits`) before graphql-core validates it; ``sdl()`` prints it as
the committed ``schema/schema.graphql``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import strawberry
from graphql import DocumentNode, GraphQLError, parse
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig

from schema import graphql_bodies as b
from schema.graphql_models import SCALARS, every_type
from service.api.graphql.error_codes import ErrorCode
from service.api.graphql.errors import code_errors, drop_suggestions
from service.api.graphql.limits import (
    QueryLimits,
    bound_validation,
    check_document,
    parse_limited,
    sized_by_variables,
)
from service.api.graphql.mutations import Mutation
from service.api.graphql.queries import Query
from service.api.graphql.subscriptions import Subscription
from service.api.problems import observe_graphql_errors, problem_error
from service.base.problems import CODES, ProblemError

# Stands in for a refused document: Strawberry looks up the operation's type before it reads the
# errors that stop the request, and the real document may be unparsable or too costly to touch.
PLACEHOLDER = parse("{ __typename }")


DOCUMENTS_KEPT = 256
"""Documents a process keeps parsed and validated, by their text: a client sends the same few again and
again (a bot's move, its view), and parsing and validating one cost most of a GraphQL move's CPU
(``bench/api.py --graphql --profile``: validation ~48%, parsing ~12% of a worker's samples)."""


class Documents:
    """The documents already parsed within the limits, by their text, and those of them that passed
    graphql-core's validation (with the same rules), and those within the limits whatever the variables
    (:meth:`check`): the least recently used forgotten past ``DOCUMENTS_KEPT``, so a flood of distinct
    documents costs what it cost before and no memory. A document that fails to parse, to validate or
    the limits is never recorded: its errors are computed each time. A document whose lists are sized
    by its variables (``first: $n``) is weighed on every request."""

    def __init__(self, kept: int = DOCUMENTS_KEPT) -> None:
        self.kept = kept
        self.parsed: OrderedDict[str, DocumentNode] = OrderedDict()
        self.valid: set[tuple[int, tuple[Any, ...]]] = set()  # (id of a kept document, its rules)
        self.within: set[int] = set()  # ids of kept documents within the limits whatever the variables

    def check(self, query: str, document: DocumentNode, limits: QueryLimits, variables: Any) -> None:
        """:func:`check_document`, once for a kept document its variables cannot change."""
        if id(document) in self.within:
            return
        check_document(document, limits, variables)
        if self.parsed.get(query) is document and not sized_by_variables(document):
            self.within.add(id(document))

    def parse(self, query: str, limits: QueryLimits) -> DocumentNode:
        document = self.parsed.get(query)
        if document is not None:
            self.parsed.move_to_end(query)
            return document
        document = parse_limited(query, limits)
        self.parsed[query] = document
        if len(self.parsed) > self.kept:
            _, gone = self.parsed.popitem(last=False)
            self.valid = {key for key in self.valid if key[0] != id(gone)}
            self.within.discard(id(gone))
        return document

    def validated(self, document: DocumentNode, rules: tuple[Any, ...]) -> bool:
        return (id(document), rules) in self.valid

    def passed(self, query: str, document: DocumentNode, rules: tuple[Any, ...]) -> None:
        if self.parsed.get(query) is document:  # only a kept document: its id stays its own
            self.valid.add((id(document), rules))


class DocumentLimits(SchemaExtension):
    """Parse and bound the document before graphql-core validates it (validation expands fragments, so
    a small document can stand for billions of fields); then give every error of the result a code. A
    document seen before is not parsed nor validated again (:class:`Documents`)."""

    def __init__(self, *, limits: QueryLimits, documents: Documents | None = None) -> None:
        self.limits = limits
        self.documents = documents or Documents(0)

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context
        if context.query and context.graphql_document is None:
            try:
                document = self.documents.parse(context.query, self.limits)
                self.documents.check(context.query, document, self.limits, context.variables)
                context.graphql_document = document
            except ProblemError as error:
                # Strawberry skips validation and execution when errors are already there.
                context.graphql_document = PLACEHOLDER
                context._provided_operation_name = None  # the placeholder's operation is unnamed
                context.pre_execution_errors = [problem_error(error)]
        yield
        self._finish(context.result)

    def on_validate(self) -> Iterator[None]:
        """Validation skipped for a document that passed it already with the same rules (graphql-core
        validates against the schema alone, not the variables); recorded when it passes."""
        context = self.execution_context
        document, rules = context.graphql_document, tuple(context.validation_rules)
        if document is not None and context.pre_execution_errors is None and rules:
            if self.documents.validated(document, rules):
                context.pre_execution_errors = []
            else:
                yield
                if context.pre_execution_errors == [] and context.query:
                    self.documents.passed(context.query, document, rules)
                return
        yield

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
    documents = Documents()
    bound_validation()
    schema = AtoutSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[*every_type(), b.IntOption, b.BoolOption, ErrorCode],  # reached only through their interfaces
        config=StrawberryConfig(scalar_map=SCALARS),
        extensions=[lambda: DocumentLimits(limits=bounds, documents=documents)],  # one per operation
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
