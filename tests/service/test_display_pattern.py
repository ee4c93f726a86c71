"""The names and contacts rule is said by the models' JSON Schema as a ``pattern``, exactly: over every
code point, the pattern accepts what the server accepts and refuses what it refuses, read as Python's
``re`` reads it, as jsonschema-rs (schemathesis' validator) does, and as ECMA-262 with the ``u`` flag
(what JSON Schema specifies; Node's RegExp), lone surrogates included where a string can hold one.
The models carry it; the OpenAPI document says the rule in words instead (JavaScript compiles the
pattern only with the ``u`` flag, which linters leave off)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from schema import games
from schema.display import display_pattern, unsafe_character
from service.api.rest.openapi import openapi_document

LAST = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)


def refused_code_points() -> list[int]:
    return [point for point in range(LAST + 1) if unsafe_character(chr(point)) is not None]


def test_the_pattern_is_the_servers_rule_in_python_re() -> None:
    pattern = re.compile(display_pattern())
    refused = set(refused_code_points())
    disagree = [p for p in range(LAST + 1) if (pattern.fullmatch(chr(p)) is None) != (p in refused)]
    assert disagree == []
    assert pattern.fullmatch("Zoë 👩\u200d👩\u200d👧 مرحبا") and not pattern.fullmatch("abc\u202egnp")


def test_the_pattern_is_the_servers_rule_in_jsonschema_rs() -> None:
    """schemathesis validates with jsonschema-rs: a Rust string holds no surrogate, the rest agree."""
    valid = jsonschema_rs.validator_for({"type": "string", "pattern": display_pattern()}).is_valid
    disagree = [
        p
        for p in range(LAST + 1)
        if p not in SURROGATES and valid(chr(p)) != (unsafe_character(chr(p)) is None)
    ]
    assert disagree == []


def test_the_pattern_is_the_servers_rule_in_ecma_262_with_the_u_flag(tmp_path: Path) -> None:
    assert shutil.which("node"), "needs Node: `make test` installs it with the npm tools"
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"pattern": display_pattern(), "refused": refused_code_points()}))
    script = (
        "const {pattern, refused} = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));"
        "const re = new RegExp(pattern, 'u'); const bad = new Set(refused); const disagree = [];"
        "for (let p = 0; p <= 0x10FFFF; p++)"
        " if (re.test(String.fromCodePoint(p)) === bad.has(p)) disagree.push(p);"
        "console.log(JSON.stringify(disagree));"
    )
    run = subprocess.run(
        ["node", "-e", script, str(facts)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []


def property_of(document: dict[str, Any], name: str, where: tuple[str, ...] = ()) -> dict[str, Any]:
    """The string schema of property ``name`` of the schema at ``where`` in ``document``."""
    for key in where:
        document = document[key]
    prop: dict[str, Any] = document["properties"][name]
    return next((member for member in prop.get("anyOf", []) if member.get("type") == "string"), prop)


def model_schema(name: str) -> dict[str, Any]:
    """The JSON Schema pydantic gives of the request model ``name`` of schema.games."""
    schema: dict[str, Any] = getattr(games, name).model_json_schema()
    return schema


def patterns_in(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from patterns_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from patterns_in(value)


@pytest.mark.parametrize(
    ("schema", "name"),
    [("JoinRequest", "name"), ("RegisterBotRequest", "name"), ("RegisterBotRequest", "contact")],
)
def test_every_name_and_contact_of_the_document_says_the_rule_in_words(schema: str, name: str) -> None:
    """The models carry the pattern; the document leaves it out (JavaScript compiles it only with the
    ``u`` flag, which linters leave off) and says the rule in the description, the server refusing."""
    assert property_of(model_schema(schema), name)["pattern"] == display_pattern()
    prop = property_of(openapi_document(), name, where=("components", "schemas", schema))
    assert "pattern" not in prop and "maxLength" in prop
    assert "unsafe_character" in prop["description"] and "control characters" in prop["description"]


def test_no_pattern_of_the_document_needs_the_u_flag() -> None:
    """Each pattern compiles in JavaScript's RegExp without the ``u`` flag, as spectral:oas compiles it."""
    patterns = sorted({p for p in patterns_in(openapi_document())})
    assert patterns, "the document has patterns (ids, cursors, entrants)"
    script = (
        "const bad = []; for (const p of JSON.parse(process.argv[1])) { try { new RegExp(p); } "
        "catch (e) { bad.push(p.slice(0, 80)); } } console.log(JSON.stringify(bad));"
    )
    run = subprocess.run(
        ["node", "-e", script, json.dumps(patterns)], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == []
