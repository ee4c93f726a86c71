"""Whole GraphQL selections, read off the served schema: a test asks for every field a typed view,
action or event has (every member of an interface by fragment), and compares the answer with the
REST JSON, so a field that one API has and the other lacks fails a test."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
)

from schema.graphql_models import GENERATED, graphql_name
from service.api.graphql import build_schema


@cache
def served() -> GraphQLSchema:
    return build_schema()._schema


def _named(kind: Any) -> Any:
    while isinstance(kind, GraphQLNonNull | GraphQLList):
        kind = kind.of_type
    return kind


def _fields(kind: GraphQLObjectType | GraphQLInterfaceType, known: frozenset[str] = frozenset()) -> str:
    parts = []
    for name, field in kind.fields.items():
        if name in known:
            continue  # selected on the interface already
        inner = _named(field.type)
        parts.append(
            f"{name} {{ {select(inner.name)} }}"
            if hasattr(inner, "fields") or isinstance(inner, GraphQLUnionType)
            else name
        )
    return " ".join(parts)


@cache
def select(type_name: str) -> str:
    """Every field of ``type_name``; for an interface, ``__typename``, its fields and each
    implementation's own fields by fragment."""
    schema = served()
    kind = schema.get_type(type_name)
    if isinstance(kind, GraphQLObjectType):
        return _fields(kind)
    assert isinstance(kind, GraphQLInterfaceType | GraphQLUnionType), type_name
    members = schema.get_possible_types(kind)
    shared = _fields(kind) if isinstance(kind, GraphQLInterfaceType) else ""
    known = frozenset(kind.fields) if isinstance(kind, GraphQLInterfaceType) else frozenset()
    fragments = " ".join(
        f"... on {member.name} {{ {own} }}" for member in members if (own := _fields(member, known))
    )
    return f"__typename {shared} {fragments}"


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def as_input(value: dict[str, Any]) -> dict[str, Any]:
    """A JSON object (REST's form of an action or options) as a GraphQL input: camelCase names."""
    return {camel(name): item for name, item in value.items()}


def as_action_input(action: dict[str, Any]) -> dict[str, Any]:
    """A JSON action as the @oneOf ActionInput: ``{"type": "bid", "points": 80}`` is
    ``{"bid": {"points": 80}}``, ``{"type": "pass"}`` is ``{"pass": true}``."""
    fields = {name: item for name, item in action.items() if name != "type"}
    return {camel(action["type"]): as_input(fields) if fields else True}


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def json_names(type_name: str) -> dict[str, str]:
    """The JSON names of a generated type's fields renamed in GraphQL (``bidPoints`` → ``points``)."""
    served()  # every type generated
    return {
        renamed: field.alias or name  # the JSON name where a field has an alias
        for model, made in GENERATED.items()
        if made.__strawberry_definition__.name == type_name
        for name, field in model.model_fields.items()
        if (renamed := graphql_name(model, name))
    }


def as_json(value: Any, enum: GraphQLEnumType | None = None) -> Any:
    """A GraphQL answer in the REST JSON form: JSON names, an enum's value as its wire string
    (``FIVE_HUNDRED`` → ``five_hundred``, read off the type ``__typename`` names), no ``__typename``,
    no nulls (REST leaves out an optional field the GraphQL type lists as null)."""
    if isinstance(value, dict):
        typename = value.get("__typename")
        names = json_names(typename) if typename else {}
        return {
            names.get(k) or snake(k): as_json(v, enum_of(typename, k))
            for k, v in value.items()
            if k != "__typename" and v is not None
        }
    if isinstance(value, list):
        return [as_json(item, enum) for item in value]
    if enum is not None and isinstance(value, str):
        return enum.values[value].value
    return value


def enum_of(typename: str | None, field: str) -> GraphQLEnumType | None:
    """The enum field ``field`` of type ``typename`` holds, if it holds one."""
    kind = served().get_type(typename) if typename else None
    held = (
        _named(kind.fields[field].type)
        if isinstance(kind, GraphQLObjectType) and field in kind.fields
        else None
    )
    return held if isinstance(held, GraphQLEnumType) else None


def wire(value: str) -> str:
    """An enum value as REST sends it: ``FIVE_HUNDRED`` → ``five_hundred`` (every enum of the schema
    holds its values' wire strings; a suit stays ``S``)."""
    for kind in served().type_map.values():
        if isinstance(kind, GraphQLEnumType) and value in kind.values and not kind.name.startswith("__"):
            return str(kind.values[value].value)
    raise KeyError(value)


def upper(value: str) -> str:
    """A wire string as GraphQL's enums spell it: ``five_hundred`` → ``FIVE_HUNDRED``."""
    return value.upper()


def without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value
