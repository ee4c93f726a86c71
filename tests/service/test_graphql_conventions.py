"""The GraphQL schema follows its ecosystem's conventions (GitHub's, Shopify's, Relay's), checked on the
served schema, so that a client written against one GraphQL API finds its way in this one:

- every closed set is an enum with UPPER_CASE values: no ``String`` field whose model says a Literal
  (or a ``StrEnum``), in an answer or an input;
- every moment is ``DateTime``: the models' ``datetime`` fields, and every field named ``…At``;
- every list that pages is a Relay connection (``edges { cursor node }``, ``pageInfo { hasNextPage
  endCursor }``, arguments ``first`` and ``after``), and no bespoke page type is left;
- a root lookup is nullable (one failing field is null with its error, not all of ``data``);
- each mutation takes one ``input: <Name>Input`` and answers its own ``<Name>Payload``;
- each REST operation has its GraphQL twin under the same name (the verb ``get``/``list``/``stream``
  dropped for a query or a subscription);
- every type, field, argument and enum is described.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from datetime import datetime
from typing import Any, Literal, get_args, get_origin

import pytest
from gql_select import served
from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
)
from pydantic import BaseModel

from schema.graphql_models import GENERATED, INPUTS, PAYLOADS, graphql_name
from service.api.rest.endpoints import OPS

BUILT_IN = {"String", "Int", "Float", "Boolean", "ID"}


def named(kind: Any) -> Any:
    while isinstance(kind, GraphQLNonNull | GraphQLList):
        kind = kind.of_type
    return kind


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def closed(annotation: Any) -> bool:
    """Whether ``annotation`` (through Optional, lists, Annotated) is a closed set of strings."""
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) is Literal:
        return all(isinstance(value, str) for value in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return True
    if get_origin(annotation) in (typing.Union, types.UnionType, list):
        members = [m for m in get_args(annotation) if m is not type(None)]
        return len(members) == 1 and closed(members[0])
    return False


def is_moment(annotation: Any) -> bool:
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return any(is_moment(m) for m in get_args(annotation) if m is not type(None))
    return annotation is datetime


def model_fields() -> list[tuple[str, str, Any, GraphQLField | GraphQLInputField]]:
    """(type, field, the model's annotation, the GraphQL field) for every field a model types, in the
    generated answer types, the payloads and the inputs."""
    schema = served()
    typed: list[tuple[type[BaseModel], str]] = [
        (model, made.__strawberry_definition__.name)  # type: ignore[attr-defined]
        for model, made in GENERATED.items()
    ]
    typed += [(model, made.__strawberry_definition__.name) for made, model in PAYLOADS.items()]  # type: ignore[attr-defined]
    typed += [(model, made.__strawberry_definition__.name) for made, held in INPUTS.items() for model in held]  # type: ignore[attr-defined]
    found = []
    for model, type_name in typed:
        kind = schema.get_type(type_name)
        assert isinstance(kind, GraphQLObjectType | GraphQLInputObjectType), type_name
        for name, info in model.model_fields.items():
            field = kind.fields.get(graphql_name(model, name) or camel(name))
            if field is not None:
                found.append((type_name, name, info.annotation, field))
    return found


def test_no_string_field_holds_a_closed_set_of_the_models() -> None:
    strings = [
        f"{type_name}.{name}"
        for type_name, name, annotation, field in model_fields()
        if closed(annotation) and not isinstance(named(field.type), GraphQLEnumType)
    ]
    assert not strings, f"closed sets typed String: {strings}"


def test_every_enum_value_is_upper_case() -> None:
    for kind in served().type_map.values():
        if isinstance(kind, GraphQLEnumType) and not kind.name.startswith("__"):
            assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", value) for value in kind.values), kind.name


def test_every_moment_is_a_date_time() -> None:
    schema = served()
    for type_name, name, annotation, field in model_fields():
        if is_moment(annotation):
            assert named(field.type).name == "DateTime", f"{type_name}.{name}"
    for kind in schema.type_map.values():
        for field_name, field in (getattr(kind, "fields", None) or {}).items():
            if re.fullmatch(r"[a-z]\w*At", field_name) and not kind.name.startswith("__"):
                assert named(field.type).name == "DateTime", f"{kind.name}.{field_name}"


def test_every_paged_list_is_a_relay_connection() -> None:
    schema = served()
    for kind in schema.type_map.values():
        if isinstance(kind, GraphQLObjectType | GraphQLInterfaceType):
            assert "nextCursor" not in kind.fields, f"{kind.name} is a bespoke page"
    paged = []
    for root in (schema.query_type, schema.subscription_type):
        assert root is not None
        for name, field in root.fields.items():
            if {"first", "after", "cursor"} & set(field.args) and root is schema.query_type:
                paged.append(name)
                kind = named(field.type)
                assert kind.name.endswith("Connection"), name
                assert {"first", "after"} <= set(field.args) and "cursor" not in field.args, name
                assert {"edges", "nodes", "pageInfo"} <= set(kind.fields), name
                edge = named(kind.fields["edges"].type)
                assert set(edge.fields) == {"cursor", "node"}, name
                page_info = named(kind.fields["pageInfo"].type)
                assert {"hasNextPage", "endCursor"} <= set(page_info.fields)
    assert set(paged) == {"games", "myGames", "ladder", "webhookDeliveries", "deadLetters"}


def test_a_root_lookup_is_nullable() -> None:
    query = served().query_type
    assert query is not None
    non_null = [name for name, field in query.fields.items() if isinstance(field.type, GraphQLNonNull)]
    assert non_null == ["rules"], "rules cannot fail; every other root field is null with its error"


def test_each_mutation_takes_one_input_and_answers_its_own_payload() -> None:
    mutation = served().mutation_type
    assert mutation is not None
    payloads = set()
    for name, field in mutation.fields.items():
        pascal = name[0].upper() + name[1:]
        assert set(field.args) <= {"input"}, name
        if field.args:
            assert named(field.args["input"].type).name == f"{pascal}Input", name
        assert named(field.type).name == f"{pascal}Payload", name
        payloads.add(named(field.type).name)
    assert len(payloads) == len(mutation.fields)


REST_ONLY = {
    "streamEvents": "gameEvents: the game's events (REST's name says no resource; GraphQL's names it)",
}


def twin_of(operation: str) -> str:
    """A REST operation's GraphQL name: a mutation's is the same; a read drops its verb."""
    match = re.fullmatch(r"(get|list|stream)([A-Z]\w*)", operation)
    if match is None:
        return operation
    rest = match.group(2)
    return rest[0].lower() + rest[1:]


def test_every_rest_operation_has_its_graphql_twin_by_name() -> None:
    schema = served()
    roots = {
        name
        for root in (schema.query_type, schema.mutation_type, schema.subscription_type)
        if root is not None
        for name in root.fields
    }
    missing = [
        op.operation_id
        for op in OPS
        if op.operation_id not in REST_ONLY and twin_of(op.operation_id) not in roots
    ]
    assert not missing, missing
    assert "gameEvents" in roots


def undescribed() -> list[str]:
    missing = []
    for name, kind in served().type_map.items():
        if name.startswith("__") or name in BUILT_IN:
            continue
        if not kind.description:
            missing.append(name)
        if isinstance(kind, GraphQLScalarType):
            continue
        for field_name, field in (getattr(kind, "fields", None) or {}).items():
            if not field.description:
                missing.append(f"{name}.{field_name}")
            for argument, value in (getattr(field, "args", None) or {}).items():
                if not value.description:
                    missing.append(f"{name}.{field_name}({argument})")
    return missing


def test_every_type_field_and_argument_is_described() -> None:
    assert undescribed() == []


@pytest.mark.parametrize("deprecated", ["legalActions"])
def test_a_legacy_field_kept_is_marked_deprecated_with_its_replacement(deprecated: str) -> None:
    query = served().query_type
    assert query is not None
    reason = query.fields[deprecated].deprecation_reason
    assert reason and "view" in reason
