"""The shape of the v1 contract, read from the committed openapi/openapi.json as a client author reads
it (issue 34, docs/glossary.md): open to additions (no schema an answer holds closed with
``additionalProperties: false``, ``Problem.code`` and the ``type`` of events and notices documented as
extensible, not closed), one schema per event, every moment an RFC 3339 string (``format: date-time``)
and every duration in ``*_seconds``, every schema named (no inline object a generator must name), every
union tagged by a discriminator, and no required field deprecated. Each test lists what breaks its rule,
so a failure names the schemas to fix."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.base.problems import CODES

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]
MOMENT = re.compile(r"(^|_)at$|^deadline$")  # glossary: `*_at` is a moment (and a deadline is one)
ENVELOPE = {"id", "version"}  # a stream frame's own fields (glossary, "Events")


def walk(node: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every schema object inside ``node`` (itself included), with a path that names it."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


def refs_in(node: Any) -> set[str]:
    return {
        value.rpartition("/")[2]
        for _, schema in walk(node, "")
        if isinstance(value := schema.get("$ref"), str) and "/components/schemas/" in value
    }


def reachable(roots: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += refs_in(SCHEMAS[name])
    return seen


def operations() -> Iterator[dict[str, Any]]:
    for item in DOCUMENT["paths"].values():
        yield from item.values()


ANSWERED = reachable(set().union(*(refs_in(op["responses"]) for op in operations())))
"""Every schema a client decodes: those the answers reach (problems and stream frames included)."""


def properties() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(where, name, schema) of every property of every object inside the named schemas."""
    for name, schema in SCHEMAS.items():
        for where, node in walk(schema, name):
            fields = node.get("properties")
            if isinstance(fields, dict) and not where.endswith("/properties"):
                for prop, value in fields.items():
                    yield where, prop, value


def typed_members(union: list[Any]) -> list[Any]:
    """The members of a oneOf/anyOf that are types of their own (not null, not a bare constraint)."""
    return [m for m in union if "$ref" in m or m.get("type") not in (None, "null")]


def test_no_schema_an_answer_holds_is_closed_to_additions() -> None:
    """A decoder generated from the document (Swift's Codable, Kotlin's) must not fail on a field /v1
    adds later: no answer's schema, nor any object inside it, says ``additionalProperties: false``."""
    closed = [
        where
        for name in sorted(ANSWERED)
        for where, node in walk(SCHEMAS[name], name)
        if node.get("additionalProperties") is False
    ]
    assert closed == []


def test_problem_codes_are_an_open_string_with_their_known_values_listed() -> None:
    code = SCHEMAS["Problem"]["properties"]["code"]
    assert code["type"] == "string" and "enum" not in code
    assert code["x-extensible-enum"] == list(CODES)
    assert "HTTP `status`" in code["description"]


def test_every_union_an_answer_holds_by_type_says_a_client_skips_an_unknown_member() -> None:
    unions = {
        where: node
        for name in sorted(ANSWERED)
        for where, node in walk(SCHEMAS[name], name)
        if node.get("discriminator", {}).get("propertyName") == "type"
    }
    assert unions, "the events and notices are unions by `type`"
    silent = [where for where, node in unions.items() if "skips a member" not in node.get("description", "")]
    assert silent == []


def type_const(schema: dict[str, Any]) -> str | None:
    """The one value of a schema's ``type`` property (its discriminator), if it has one."""
    kind = schema.get("properties", {}).get("type", {})
    values = [kind["const"]] if "const" in kind else kind.get("enum", [])
    return values[0] if len(values) == 1 and isinstance(values[0], str) else None


def snake(name: str) -> str:
    """``CardPlayed`` -> ``card_played``: an event's ``type`` is its schema's name so (glossary)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def streamed() -> set[str]:
    """The schemas of what the streams deliver (events, notices, their envelopes and ends)."""
    roots: set[str] = set()
    for op in operations():
        for answer in op["responses"].values():
            if "text/event-stream" in answer.get("content", {}):
                roots |= refs_in(answer["content"])
    return reachable(roots)


def test_no_event_schema_exists_twice() -> None:
    """One schema per event (glossary, "Events"): never a copy of another with the stream envelope's
    ``id`` and ``version`` added (``BidMade`` beside ``BidMadeEvent``): no two schemas of one ``type``,
    an event's among them, of which one holds the other's fields. An event is a schema a stream
    delivers whose ``type`` is its name in snake case."""
    events = {name for name in streamed() if type_const(SCHEMAS[name]) == snake(name)}  # glossary
    by_type: dict[str, list[str]] = {}
    for name, schema in SCHEMAS.items():
        if (kind := type_const(schema)) is not None:
            by_type.setdefault(kind, []).append(name)
    copies = []
    for kind, names in sorted(by_type.items()):
        for a in names:
            for b in names:
                fields_a, fields_b = set(SCHEMAS[a]["properties"]), set(SCHEMAS[b]["properties"])
                one_holds_the_other = fields_a - ENVELOPE <= fields_b or fields_b - ENVELOPE <= fields_a
                if a < b and {a, b} & events and one_holds_the_other:
                    copies.append((kind, a, b))
    assert len(events) > 30, "the streams deliver the events"
    assert copies == []


def test_every_moment_is_a_date_time_string_and_every_duration_in_seconds() -> None:
    """Glossary: a ``*_at`` is an RFC 3339 string, ``format: date-time``; a duration is a number named
    ``*_seconds``."""
    wrong = []
    for where, prop, schema in properties():
        members = [m for m in schema.get("anyOf", [schema]) if m.get("type") != "null"]
        if MOMENT.search(prop) and not all(
            m.get("type") == "string" and m.get("format") == "date-time" for m in members
        ):
            wrong.append(f"{where}.{prop}")
        if prop.endswith("_seconds") and not all(m.get("type") in ("integer", "number") for m in members):
            wrong.append(f"{where}.{prop}")
        if prop.endswith(("_ms", "_millis", "_timeout")):
            wrong.append(f"{where}.{prop}")
    assert wrong == []


def test_no_inline_schema_a_generator_must_name() -> None:
    """Every object is a named component: no object with ``properties`` inside another schema, nor in
    an operation's request or answer (openapi-generator makes names up for those: ``InlineObject1``)."""
    inline = [
        where
        for name, schema in SCHEMAS.items()
        for where, node in walk(schema, name)
        if where != name and isinstance(node.get("properties"), dict) and not where.endswith("/properties")
    ]
    for op in operations():
        bodies = [op.get("requestBody", {}), *op["responses"].values()]
        for body in bodies:
            for media, content in body.get("content", {}).items():
                if "$ref" not in content["schema"]:
                    inline.append(f"{op['operationId']} {media}")
    assert inline == []


def test_every_union_is_tagged_by_a_discriminator() -> None:
    """A ``oneOf``/``anyOf`` of two types or more says which by a ``discriminator`` (an ``integer |
    string`` or two objects without one cannot be narrowed by generated code); ``X | null`` is not a
    union."""
    untagged = [
        f"{where}/{key}"
        for name, schema in SCHEMAS.items()
        for where, node in walk(schema, name)
        for key in ("oneOf", "anyOf")
        if len(typed_members(node.get(key, []))) > 1 and "discriminator" not in node
    ]
    assert untagged == []


def test_no_required_field_is_deprecated() -> None:
    """A deprecated field may go away at its sunset: a client cannot be told to rely on it."""
    both = [
        f"{where}.{prop}"
        for name, schema in SCHEMAS.items()
        for where, node in walk(schema, name)
        if isinstance(node.get("properties"), dict)
        for prop in node.get("required", [])
        if node["properties"].get(prop, {}).get("deprecated")
    ]
    assert both == []


def test_every_deprecated_operation_declares_its_deprecation_headers() -> None:
    """docs/apps.md, "Versioning": each answer of a deprecated operation carries
    ``Deprecation``, ``Sunset`` and ``Link``, and the document says so on each of its answers."""
    deprecated = [op for op in operations() if op.get("deprecated")]
    assert "getLegalActions" in [op["operationId"] for op in deprecated]
    missing = [
        (op["operationId"], status)
        for op in deprecated
        for status, answer in op["responses"].items()
        if not {"Deprecation", "Sunset", "Link"} <= set(answer.get("headers", {}))
    ]
    assert missing == []
