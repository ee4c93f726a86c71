"""The names and contacts rule is said by the OpenAPI document as a ``pattern``, exactly: over every
code point, the pattern accepts what the server accepts and refuses what it refuses, read as Python's
``re`` reads it, as jsonschema-rs (schemathesis' validator) does, and as ECMA-262 with the ``u`` flag
(what JSON Schema specifies; Node's RegExp), lone surrogates included where a string can hold one."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

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


def property_of(document: dict[str, Any], schema: str, name: str) -> dict[str, Any]:
    prop: dict[str, Any] = document["components"]["schemas"][schema]["properties"][name]
    return next((member for member in prop.get("anyOf", []) if member.get("type") == "string"), prop)


@pytest.mark.parametrize(
    ("schema", "name"),
    [("JoinRequest", "name"), ("RegisterBotRequest", "name"), ("RegisterBotRequest", "contact")],
)
def test_every_name_and_contact_of_the_document_carries_the_pattern(schema: str, name: str) -> None:
    prop = property_of(openapi_document(), schema, name)
    assert prop["pattern"] == display_pattern()
    assert "maxLength" in prop
