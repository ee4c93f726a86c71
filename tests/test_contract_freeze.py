"""v1 is frozen: the contracts may grow, never break (docs/apps.md, "Versioning"; CHANGELOG.md).

The baseline is the v1 release's documents, committed under ``openapi/baseline/``. The OpenAPI
document is compared with Optic's ``diff --check`` (npm ``@useoptic/optic``, pinned in
package-lock.json, run offline from node_modules): its breaking-change rules refuse a removed
response field, operation or parameter, a newly required request field, a narrowed type or enum of a
request. One of its rules is stricter than the policy: it refuses a value added to an enum that an
answer carries, where the policy lets v1 add enum values (clients are told to keep a case for an
unknown one: ``enumUnknownDefaultCase``, docs/apps.md "Types"). That rule's findings, and only
those, are allowed (:data:`ADDITIONS_THE_POLICY_ALLOWS`). The GraphQL SDL is compared with
graphql-core's ``find_breaking_changes`` (the reference implementation's own list: a removed type,
field, argument or enum value, a changed type, a new required argument). Additions pass both.

Each checker is shown to fail on a deliberately broken copy of the baseline and to pass on an
extended one, so a check that cannot fail would be caught here."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema, build_schema, find_breaking_changes, print_schema

from service.api.graphql.schema import sdl
from service.api.rest.openapi import openapi_document

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "openapi" / "baseline"
OPENAPI_V1 = BASELINE / "v1-openapi.json"
GRAPHQL_V1 = BASELINE / "v1-schema.graphql"


ADDITIONS_THE_POLICY_ALLOWS = re.compile(r"cannot add enum option '[^']+' (from|to) '[^']+' property")
"""Optic's words for an enum value added to an answer: an addition within v1 by the policy."""
NARROWED_UNION = re.compile(r"anyOf/\d+: enums (?P<values>.+?) were removed")
"""Optic's words when an answer's nullable enum (``anyOf: [enum, null]``) changes: it says the values
were *removed* whether they were removed or added. Let through only when every value it names is in
an enum of the new document and in none of the old: an addition, misnamed."""
FINDING = re.compile(r"^\s*x \[(?P<rule>[^\]]+)\] (?P<words>.*)$", re.MULTILINE)


def openapi_breaks(before: dict[str, Any], after: dict[str, Any], tmp: Path) -> str:
    """Optic's findings of what ``after`` breaks of ``before``, less the additions the policy allows;
    empty when nothing breaks."""
    report = optic_report(before, after, tmp)
    return report if breaking(report, before, after) else ""


def breaking(report: str, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The findings of Optic's ``report`` that are not additions the policy allows."""
    findings = [match.group(0).strip() for match in FINDING.finditer(report)]
    assert findings or not report, report[:2000]  # Optic failed, but on no finding we can read
    old, new = enum_values(before), enum_values(after)
    return [finding for finding in findings if not an_allowed_addition(finding, old, new)]


def an_allowed_addition(finding: str, old: set[str], new: set[str]) -> bool:
    """Whether Optic's ``finding`` is an enum value added to an answer (the policy allows it)."""
    if ADDITIONS_THE_POLICY_ALLOWS.search(finding):
        return True
    union = NARROWED_UNION.search(finding)
    return union is not None and all(v in new and v not in old for v in union["values"].split(", "))


def enum_values(node: Any) -> set[str]:
    """Every string value of every ``enum`` in a document."""
    if isinstance(node, list):
        return set().union(*(enum_values(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {v for v in node.get("enum", []) if isinstance(v, str)}
    return found.union(*(enum_values(value) for value in node.values()))


def optic_report(before: dict[str, Any], after: dict[str, Any], tmp: Path) -> str:
    """Optic's report of what ``after`` breaks of ``before``; empty when nothing does."""
    assert (ROOT / "node_modules" / ".installed").exists(), "run `make test`: it installs the npm tools"
    (tmp / "before.json").write_text(json.dumps(before))
    (tmp / "after.json").write_text(json.dumps(after))
    checked = subprocess.run(
        [str(ROOT / "node_modules" / ".bin" / "optic"), "diff", "before.json", "after.json", "--check"],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ, "OPTIC_TELEMETRY_LEVEL": "off", "HOME": str(tmp)},
    )
    if checked.returncode == 0:
        return ""
    assert FINDING.search(checked.stdout), (checked.stdout + checked.stderr)[:2000]  # a finding, not a crash
    return checked.stdout


def graphql_breaks(before_sdl: str, after_sdl: str) -> list[str]:
    """graphql-core's breaking changes of ``after_sdl`` against ``before_sdl``."""
    changes = find_breaking_changes(build_schema(before_sdl), build_schema(after_sdl))
    return [f"{change.type.name}: {change.description}" for change in changes]


def test_the_openapi_document_breaks_nothing_of_v1(tmp_path: Path) -> None:
    broken = openapi_breaks(json.loads(OPENAPI_V1.read_text()), openapi_document(), tmp_path)
    assert not broken, "a breaking change against the v1 baseline (add, never remove):\n" + broken


def test_the_graphql_schema_breaks_nothing_of_v1() -> None:
    broken = graphql_breaks(GRAPHQL_V1.read_text(), sdl())
    assert not broken, "a breaking change against the v1 baseline (add, never remove):\n" + "\n".join(broken)


def with_paths(document: dict[str, Any], *paths: str) -> dict[str, Any]:
    """``document`` with only ``paths`` (every component kept): the checks of the checker below need
    only the operations they change, and Optic reads those in 3 s rather than the whole API in 25."""
    return {**document, "paths": {path: document["paths"][path] for path in paths}}


def _a_response_schema(document: dict[str, Any]) -> str:
    """The schema of ``getGame``'s answer: a response every client reads."""
    answer = document["paths"]["/v1/games/{game_id}"]["get"]["responses"]["200"]
    return str(answer["content"]["application/json"]["schema"]["$ref"]).rsplit("/", 1)[-1]


def test_the_openapi_check_refuses_a_removed_response_field(tmp_path: Path) -> None:
    before = with_paths(json.loads(OPENAPI_V1.read_text()), "/v1/games/{game_id}")
    after = copy.deepcopy(before)
    schema = after["components"]["schemas"][_a_response_schema(after)]
    removed = sorted(schema["required"])[0]
    del schema["properties"][removed]
    schema["required"].remove(removed)
    broken = openapi_breaks(before, after, tmp_path)
    assert f"cannot remove response property '{removed}'" in broken, broken


def test_the_openapi_check_passes_an_added_response_field(tmp_path: Path) -> None:
    before = with_paths(json.loads(OPENAPI_V1.read_text()), "/v1/games/{game_id}")
    after = copy.deepcopy(before)
    schema = after["components"]["schemas"][_a_response_schema(after)]
    schema["properties"]["added_later"] = {"type": "string", "description": "A field of a later release."}
    assert openapi_breaks(before, after, tmp_path) == ""


def test_the_graphql_check_refuses_a_removed_field_and_passes_an_added_one() -> None:
    before = GRAPHQL_V1.read_text()
    schema = build_schema(before)
    kind = next(
        named
        for name, named in sorted(schema.type_map.items())
        if isinstance(named, GraphQLObjectType)
        and not name.startswith("__")
        and named not in roots_of(schema)
    )
    removed = sorted(kind.fields)[0]
    del kind.fields[removed]
    broken = graphql_breaks(before, print_schema(schema))
    assert f"FIELD_REMOVED: Field {kind.name}.{removed} was removed." in broken, broken
    added = before.replace("type Query {", "type Query {\n  addedLater: String", 1)
    assert graphql_breaks(before, added) == []


def roots_of(schema: GraphQLSchema) -> tuple[GraphQLObjectType | None, ...]:
    return (schema.query_type, schema.mutation_type, schema.subscription_type)


def test_the_openapi_check_passes_enum_values_added_to_answers(tmp_path: Path) -> None:
    """The policy lets v1 add enum values: Optic's stricter rule is let through, and so is its
    narrowing rule's report of a value added to a nullable enum (a seat's ``bot_level`` is ``anyOf:
    [enum, null]``; a level added there, ``bot:learned``, is reported as values *removed*). A value
    truly removed from a request's enum is still refused (the test below)."""
    deliveries, game = "/v1/admin/webhooks/{webhook_id}/deliveries", "/v1/games/{game_id}"
    before = with_paths(json.loads(OPENAPI_V1.read_text()), deliveries, game)
    after = copy.deepcopy(before)
    schemas = after["components"]["schemas"]
    schemas["WebhookDelivery"]["properties"]["event_type"]["enum"].append("added_later")
    schemas["SeatInfo"]["properties"]["bot_level"]["anyOf"][0]["enum"].append("added_later")
    report = optic_report(before, after, tmp_path)
    assert ADDITIONS_THE_POLICY_ALLOWS.search(report) and NARROWED_UNION.search(report), report[:2000]
    assert breaking(report, before, after) == []


def test_the_openapi_check_refuses_an_enum_value_removed_from_a_request(tmp_path: Path) -> None:
    before = with_paths(json.loads(OPENAPI_V1.read_text()), "/v1/tournaments")
    after = copy.deepcopy(before)
    after["components"]["schemas"]["CreateTournamentRequest"]["properties"]["format"]["enum"].remove("swiss")
    broken = openapi_breaks(before, after, tmp_path)
    assert "cannot remove enum option 'swiss' from 'format' property" in broken, broken
