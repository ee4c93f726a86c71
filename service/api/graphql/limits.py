"""Bounds on a GraphQL document, checked in one linear pass before anything expands its fragments.

Why a pass of our own: graphql-core's validation and Strawberry's depth and alias limiters walk each
fragment once *per spread*, so 40 fragments that each spread the previous one twice (1.5 KB) stand for
2^40 fields and hold the event loop for minutes. Here each syntactic node is visited once: a fragment's
depth and cost are computed the first time it is spread and reused for every later spread, and a
fragment that spreads itself (directly or not) is refused. The walk uses an explicit stack, so a deeply
nested document cannot raise ``RecursionError`` in it either.

The order of the checks follows their cost: the size in bytes before parsing, the number of tokens
while parsing (graphql-core stops the lexer at ``max_tokens``), then the counts, depth and cost.

Depth and cost keep the meaning of the former Strawberry ``QueryDepthLimiter`` and cost rule: the
root fields are at depth 0 and each nested selection set adds 1; every field costs 1 times the sizes of
the lists enclosing it (``games`` 50 or its ``first``, ``seats`` 5, ``actions`` and ``events`` 50,
``myInvitations`` 100; a connection, ``games`` or ``myGames`` …, 50 or its ``first``, and its ``edges``
and ``nodes`` 1).
Introspection fields count like any other, so the introspection query obeys the same limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import GraphQLSyntaxError, parse
from graphql.language import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionNode,
    ValueNode,
    VariableNode,
)
from graphql.validation.rules import overlapping_fields_can_be_merged

from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text

# Sizes of the lists of the schema, used when the query gives no `first` or `limit` (their resolvers'
# maximum; `myInvitations`: ATOUT_INVITATIONS_PER_PLAYER's default). A connection (`games`, `myGames`,
# `ladder`, `webhookDeliveries`, `deadLetters`) weighs as its list, by its `first`: its `edges` and
# `nodes` then weigh 1 (PAGE_TYPES), so a page's list is counted once, with the size it was asked for.
LIST_FIELDS = {
    "games": 50,
    "seats": 5,
    "actions": 50,
    "events": 50,
    "webhooks": 50,
    "myInvitations": 100,
    "myGames": 50,
    "ladder": 50,
    "webhookDeliveries": 50,
    "deadLetters": 50,
}
PAGES = frozenset({"games", "myGames", "ladder", "webhookDeliveries", "deadLetters"})
PAGE_TYPES = frozenset(
    {
        "GameConnection",
        "MyGameConnection",
        "LadderConnection",
        "WebhookDeliveryConnection",
        "DeadLetterConnection",
    }
)
PAGE_LISTS = frozenset({"edges", "nodes"})
INTROSPECTION_FIELDS = frozenset({"__schema", "__type"})
SHORTER = Text("send a shorter document")
# Costs saturate here: comparisons with the limit stay exact and the numbers stay small.
COST_CAP = 10**15
# graphql-core's OverlappingFieldsCanBeMergedRule compares every pair of fields that share a response
# name, up to a budget (500,000 units by default: about 200 ms of CPU here, for `{ __typename }` written
# 999 times). GraphiQL's introspection query passes with 2,000; real queries compare a few fields.
VALIDATION_BUDGET = 20_000


@dataclass(frozen=True)
class QueryLimits:
    """The bounds of one document; :func:`limits_of` builds them from the ``ATOUT_GRAPHQL_*`` settings."""

    max_bytes: int = 32_768
    max_tokens: int = 2_000
    max_operations: int = 20
    max_fragments: int = 100
    max_spreads: int = 200
    max_aliases: int = 30
    max_selections: int = 500
    max_depth: int = 15
    max_cost: int = 2_000
    max_value_depth: int = 32
    introspection: bool = True


def too_complex(what: Text, setting: str, limit: int, advice: Text) -> ProblemError:
    """The refusal of a query over one limit: the message names the limit and its setting."""
    return ProblemError(
        "query_too_complex",
        Text(
            "{what}, over the limit of {limit} ({setting}): {advice}.",
            what=what,
            limit=limit,
            setting=f"ATOUT_GRAPHQL_{setting.upper()}",
            advice=advice,
        ),
        limit=f"graphql_{setting}",
        max=limit,
    )


def invalid_query(detail: Text) -> ProblemError:
    return ProblemError("invalid_query", detail)


def parse_limited(query: str, limits: QueryLimits) -> DocumentNode:
    """Parse ``query`` within the byte and token limits; a syntax error is ``invalid_query``."""
    size = len(query.encode("utf-8", "surrogatepass"))
    if size > limits.max_bytes:
        raise too_complex(
            Text("The query is {size} bytes", size=size), "max_bytes", limits.max_bytes, SHORTER
        )
    try:
        # Comments are not tokens for graphql-core but cost lexing too: they are bounded alike.
        return parse(query, max_lexical_tokens=limits.max_tokens, max_comments=limits.max_tokens)
    except GraphQLSyntaxError as error:
        if "Parsing aborted" in error.message and "more than" in error.message:
            what = (
                Text("The query has more than {count} comments", count=limits.max_tokens)
                if "comments" in error.message
                else Text("The query has more than {count} tokens", count=limits.max_tokens)
            )
            raise too_complex(what, "max_tokens", limits.max_tokens, SHORTER) from None
        if "nested too deeply" in error.message:  # graphql-core's RecursionError, caught
            raise too_complex(
                Text("The query is nested too deeply to parse"),
                "max_depth",
                limits.max_depth,
                Text("nest fewer selections or values"),
            ) from None
        raise invalid_query(_with_where(error)) from None


def _with_where(error: GraphQLSyntaxError) -> Text:
    """graphql-core's message (quoted as it is) and where in the document it was found."""
    if error.locations:
        location = error.locations[0]
        return Text(
            "{message} (line {line}, column {column})",
            message=Text.verbatim(error.message),
            line=location.line,
            column=location.column,
        )
    return Text.verbatim(error.message)


class _Frame:
    """One selection set being summed: the walk's explicit stack entry."""

    __slots__ = (
        "alternatives",
        "condition",
        "cost",
        "depth",
        "fragment",
        "in_page",
        "index",
        "nested",
        "selections",
        "weight",
    )

    def __init__(
        self,
        selections: tuple[SelectionNode, ...],
        weight: int,
        nested: bool,
        fragment: str | None,
        condition: str | None = None,
        in_page: bool = False,
    ) -> None:
        self.selections = selections
        self.in_page = in_page  # the selection set of a page: its `games` weigh 1, the page its size
        self.condition = condition  # an inline fragment's type: `... on EuchreView { … }`
        # The inline fragments of this set by type: one object is of one type, so it costs the sum of
        # its plain fields plus the dearest type's fragments (a view selects each game's fields, an
        # event stream each event's, and pays for one).
        self.alternatives: dict[str, int] = {}
        self.index = 0
        self.depth = 0
        self.cost = 0
        self.weight = weight  # how much the parent multiplies this set's cost by (a list's size)
        self.nested = nested  # a field's own selection set (one level deeper), not a fragment's
        self.fragment = fragment  # the fragment this set defines, memoized when done


class _Check:
    def __init__(self, document: DocumentNode, limits: QueryLimits, variables: dict[str, Any]) -> None:
        self.limits = limits
        self.variables = variables
        self.fragments: dict[str, FragmentDefinitionNode] = {}
        self.operations: list[OperationDefinitionNode] = []
        for definition in document.definitions:
            if isinstance(definition, FragmentDefinitionNode):
                self.fragments.setdefault(definition.name.value, definition)
            elif isinstance(definition, OperationDefinitionNode):
                self.operations.append(definition)
        self.done: dict[str, tuple[int, int]] = {}  # fragment -> (depth, cost)
        self.active: list[str] = []  # fragments being summed, outermost first: a cycle shows here
        self.selections = self.aliases = self.spreads = 0

    def run(self, fragment_count: int) -> None:
        limits = self.limits
        if len(self.operations) > limits.max_operations:
            raise too_complex(
                Text("The document has {count} operations", count=len(self.operations)),
                "max_operations",
                limits.max_operations,
                Text("send one operation per request"),
            )
        if fragment_count > limits.max_fragments:
            raise too_complex(
                Text("The document has {count} fragments", count=fragment_count),
                "max_fragments",
                limits.max_fragments,
                Text("use fewer fragments"),
            )
        for operation in self.operations:
            for variable in operation.variable_definitions or ():
                if variable.default_value is not None:
                    self._value_depth(variable.default_value)
            depth, cost = self._sum(operation.selection_set.selections, None)
            self._bound(depth, cost, Text("The query"))
        # Unused fragments are summed too: graphql-core validates them all, spreads expanded.
        for name, fragment in self.fragments.items():
            if name not in self.done:
                depth, cost = self._sum(fragment.selection_set.selections, name)
                self._bound(depth, cost, Text("The fragment {name}", name=name))

    def _bound(self, depth: int, cost: int, what: Text) -> None:
        limits = self.limits
        if depth > limits.max_depth:
            raise too_complex(
                Text("{what}'s depth is {depth}", what=what, depth=depth),
                "max_depth",
                limits.max_depth,
                Text("nest fewer selections"),
            )
        if cost > limits.max_cost:
            shown = Text("more than {cap}", cap=COST_CAP) if cost >= COST_CAP else str(cost)
            raise too_complex(
                Text(
                    "{what} costs {shown} (each field 1, times the size of the lists around it)",
                    what=what,
                    shown=shown,
                ),
                "max_cost",
                limits.max_cost,
                Text("select fewer fields or ask for shorter lists with `limit`"),
            )

    def _sum(self, selections: tuple[SelectionNode, ...], fragment: str | None) -> tuple[int, int]:
        """(depth, cost) of a selection set, with every fragment summed once."""
        if fragment is not None:
            self.active.append(fragment)
        stack = [_Frame(selections, 1, False, fragment, in_page=self._on_page(fragment))]
        while True:
            frame = stack[-1]
            if frame.index == len(frame.selections):
                frame.cost = min(COST_CAP, frame.cost + max(frame.alternatives.values(), default=0))
                stack.pop()
                if frame.fragment is not None:
                    self.done[frame.fragment] = (frame.depth, frame.cost)
                    self.active.pop()
                if not stack:
                    return frame.depth, frame.cost
                parent = stack[-1]
                parent.depth = max(parent.depth, frame.depth + 1 if frame.nested else frame.depth)
                if frame.condition is not None:
                    summed = parent.alternatives.get(frame.condition, 0) + frame.cost
                    parent.alternatives[frame.condition] = min(COST_CAP, summed)
                else:
                    parent.cost = min(COST_CAP, parent.cost + frame.weight * frame.cost)
                continue
            node = frame.selections[frame.index]
            frame.index += 1
            self._count(node)
            if isinstance(node, FieldNode):
                frame.cost = min(COST_CAP, frame.cost + 1)
                if node.selection_set is not None:
                    size = 1 if frame.in_page and node.name.value in PAGE_LISTS else self._list_size(node)
                    page = node.name.value in PAGES and not frame.in_page
                    stack.append(_Frame(node.selection_set.selections, size, True, None, in_page=page))
            elif isinstance(node, InlineFragmentNode):
                condition = node.type_condition.name.value if node.type_condition is not None else None
                page = frame.in_page if condition is None else condition in PAGE_TYPES
                stack.append(_Frame(node.selection_set.selections, 1, False, None, condition, page))
            elif isinstance(node, FragmentSpreadNode):
                name = node.name.value
                if name in self.done:
                    depth, cost = self.done[name]
                    frame.depth = max(frame.depth, depth)
                    frame.cost = min(COST_CAP, frame.cost + cost)
                elif name in self.active:
                    cycle = " → ".join([*self.active[self.active.index(name) :], name])
                    raise invalid_query(
                        Text("The fragments spread each other in a cycle: {cycle}.", cycle=cycle)
                    )
                elif name in self.fragments:  # an unknown one is reported by validation
                    self.active.append(name)
                    selections = self.fragments[name].selection_set.selections
                    stack.append(_Frame(selections, 1, False, name, in_page=self._on_page(name)))

    def _on_page(self, fragment: str | None) -> bool:
        """Whether the fragment ``fragment`` is on a page type (summed alike wherever it is spread)."""
        definition = self.fragments.get(fragment) if fragment is not None else None
        return definition is not None and definition.type_condition.name.value in PAGE_TYPES

    def _count(self, node: SelectionNode) -> None:
        limits = self.limits
        self.selections += 1
        if self.selections > limits.max_selections:
            raise too_complex(
                Text("The document has more than {count} selections", count=limits.max_selections),
                "max_selections",
                limits.max_selections,
                Text("select fewer fields"),
            )
        if isinstance(node, FragmentSpreadNode):
            self.spreads += 1
            if self.spreads > limits.max_spreads:
                raise too_complex(
                    Text("The document has more than {count} fragment spreads", count=limits.max_spreads),
                    "max_spreads",
                    limits.max_spreads,
                    Text("spread fewer fragments"),
                )
        elif isinstance(node, FieldNode):
            if node.alias is not None:
                self.aliases += 1
                if self.aliases > limits.max_aliases:
                    raise too_complex(
                        Text("The document has more than {count} aliases", count=limits.max_aliases),
                        "max_aliases",
                        limits.max_aliases,
                        Text("use fewer aliases"),
                    )
            if not limits.introspection and node.name.value in INTROSPECTION_FIELDS:
                raise ProblemError(
                    "introspection_disabled",
                    Text(
                        "Introspection ({field}) is switched off on this server "
                        "(ATOUT_GRAPHQL_INTROSPECTION=false); the schema is published as schema.graphql.",
                        field=node.name.value,
                    ),
                )
            for argument in node.arguments or ():
                self._value_depth(argument.value)

    def _value_depth(self, value: ValueNode) -> None:
        """Refuse argument literals nested deeper than ``max_value_depth`` (lists and objects)."""
        stack = [(value, 1)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, ListValueNode):
                children: Any = node.values
            elif isinstance(node, ObjectValueNode):
                children = [item.value for item in node.fields]
            else:
                continue
            if depth > self.limits.max_value_depth:
                raise too_complex(
                    Text(
                        "An argument value is nested more than {depth} levels deep",
                        depth=self.limits.max_value_depth,
                    ),
                    "max_value_depth",
                    self.limits.max_value_depth,
                    Text("send flatter values"),
                )
            stack.extend((child, depth + 1) for child in children)

    def _list_size(self, node: FieldNode) -> int:
        size = LIST_FIELDS.get(node.name.value, 1)
        for argument in node.arguments or ():
            if argument.name.value not in SIZE_ARGUMENTS:
                continue
            value: Any = argument.value
            if isinstance(value, VariableNode):
                value = self.variables.get(value.name.value)
            else:
                value = getattr(value, "value", None)
            if isinstance(value, int) and not isinstance(value, bool):
                size = max(1, min(value, 1_000))
            elif isinstance(value, str) and value.isdigit() and len(value) <= 6:
                size = max(1, int(value))
        return size


SIZE_ARGUMENTS = ("limit", "first")
"""The arguments that size a list field, and so its cost: the only part of a check the variables change."""


def sized_by_variables(document: DocumentNode) -> bool:
    """Whether a list's size in ``document`` comes from a variable (``games(limit: $n)``): only then does
    :func:`check_document` answer differently for different variables."""
    stack: list[Any] = list(document.definitions)
    while stack:
        node = stack.pop()
        if isinstance(node, FieldNode) and any(
            a.name.value in SIZE_ARGUMENTS and isinstance(a.value, VariableNode) for a in node.arguments or ()
        ):
            return True
        selections = getattr(node, "selection_set", None)
        if selections is not None:
            stack.extend(selections.selections)
    return False


def check_document(
    document: DocumentNode, limits: QueryLimits, variables: dict[str, Any] | None = None
) -> None:
    """Raise a ``ProblemError`` (``query_too_complex``, ``introspection_disabled`` or ``invalid_query``
    for a fragment cycle) when ``document`` is over a limit; linear in the document's size."""
    fragment_count = sum(isinstance(d, FragmentDefinitionNode) for d in document.definitions)
    _Check(document, limits, variables or {}).run(fragment_count)


def check_query(query: str, limits: QueryLimits, variables: dict[str, Any] | None = None) -> DocumentNode:
    """Parse and check ``query``: the document, or a ``ProblemError``."""
    document = parse_limited(query, limits)
    check_document(document, limits, variables)
    return document


def bound_validation() -> None:
    """Lower graphql-core's budget for comparing overlapping fields (a documented module attribute,
    read when each validation starts): past it validation stops with ``ValidationAbortedError``."""
    overlapping_fields_can_be_merged.MAX_COMPLEXITY_BUDGET = VALIDATION_BUDGET


def limits_of(settings: Settings) -> QueryLimits:
    """The document limits from the ``ATOUT_GRAPHQL_*`` settings."""
    return QueryLimits(
        max_bytes=settings.graphql_max_bytes,
        max_tokens=settings.graphql_max_tokens,
        max_operations=settings.graphql_max_operations,
        max_fragments=settings.graphql_max_fragments,
        max_spreads=settings.graphql_max_spreads,
        max_aliases=settings.graphql_max_aliases,
        max_selections=settings.graphql_max_selections,
        max_depth=settings.graphql_max_depth,
        max_cost=settings.graphql_max_cost,
        max_value_depth=settings.graphql_max_value_depth,
        introspection=settings.graphql_introspection,
    )
