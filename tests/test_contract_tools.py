"""The committed contracts pass third-party tools, as an app developer would run them: Redocly's
linter and Spectral's ``spectral:oas`` find no problem in openapi/openapi.json; openapi-typescript
generates from it exactly the committed examples/client/atout-api.d.ts, and GraphQL Code Generator
from schema/schema.graphql and the GraphQL client's operations exactly examples/client/atout-graphql.ts;
and both example clients type-check against those types with ``tsc --strict`` (while a wrong request
body or action input does not). The tools are the npm packages pinned in package-lock.json, installed
by ``make test`` (``npm ci``); nothing is downloaded here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "examples" / "client"


def npx(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    assert (ROOT / "node_modules" / ".installed").exists(), "run `make test`: it installs the npm tools"
    return subprocess.run(
        ["npx", "--no-install", *args], cwd=cwd, capture_output=True, text=True, timeout=240, check=False
    )


def test_the_openapi_document_passes_redocly_lint_with_no_problem() -> None:
    linted = npx("redocly", "lint", "openapi/openapi.json", "--format=summary")
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "error" not in linted.stdout and "warning" not in linted.stdout, linted.stdout


def test_the_openapi_document_passes_spectral_oas_with_no_error_and_no_warning() -> None:
    """Spectral's OpenAPI ruleset (.spectral.yaml: ``spectral:oas``, every rule on): its ``oas3-schema``
    compiles each ``pattern`` with JavaScript's RegExp (no ``u`` flag), and it wants top-level ``tags``,
    a contact and every operation described."""
    linted = npx("spectral", "lint", "-r", ".spectral.yaml", "openapi/openapi.json", "-f", "json", "-q")
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert json.loads(linted.stdout or "[]") == []


def test_openapi_typescript_generates_the_committed_types(tmp_path: Path) -> None:
    generated = tmp_path / "atout-api.d.ts"
    made = npx("openapi-typescript", "openapi/openapi.json", "-o", str(generated))
    assert made.returncode == 0, made.stderr
    assert generated.read_text() == (CLIENT / "atout-api.d.ts").read_text(), (
        "examples/client/atout-api.d.ts is stale: make openapi"
    )


def test_graphql_codegen_generates_the_committed_types(tmp_path: Path) -> None:
    config = yaml.safe_load((ROOT / "codegen.yml").read_text())
    config["generates"] = {
        str(tmp_path / "atout-graphql.ts"): config["generates"]["examples/client/atout-graphql.ts"]
    }
    (tmp_path / "codegen.yml").write_text(yaml.safe_dump(config))
    made = npx("graphql-codegen", "--config", str(tmp_path / "codegen.yml"))
    assert made.returncode == 0, made.stdout + made.stderr
    assert (tmp_path / "atout-graphql.ts").read_text() == (CLIENT / "atout-graphql.ts").read_text(), (
        "examples/client/atout-graphql.ts is stale: make openapi"
    )


def test_the_example_client_type_checks_against_the_generated_types() -> None:
    checked = npx("tsc", "-p", str(CLIENT))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_web_table_type_checks_against_the_generated_types() -> None:
    """/play is plain JavaScript with JSDoc types: ``tsc --checkJs`` holds it to the OpenAPI types."""
    checked = npx("tsc", "-p", str(ROOT / "service" / "static" / "play"))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_wrong_request_body_does_not_type_check(tmp_path: Path) -> None:
    copy = tmp_path / "client"
    shutil.copytree(CLIENT, copy)
    (copy / "wrong.ts").write_text(
        'import type { components } from "./atout-api";\n'
        'export const move: components["schemas"]["ActionRequest"] = '
        '{ action: { type: "bid", tricks: "seven" } };\n'
    )
    checked = npx("tsc", "-p", str(copy))
    assert checked.returncode != 0 and "wrong.ts" in checked.stdout, checked.stdout


def test_an_action_input_naming_two_actions_does_not_type_check(tmp_path: Path) -> None:
    """ActionInput is @oneOf: the generated type admits exactly one action."""
    copy = tmp_path / "client"
    shutil.copytree(CLIENT, copy)
    (copy / "right.ts").write_text(
        'import type { ActionInput } from "./atout-graphql";\n'
        "export const moves: ActionInput[] = "
        '[{ pass: true }, { bid: { points: 80 } }, { play: { card: "AS" } }];\n'
    )
    assert npx("tsc", "-p", str(copy)).returncode == 0
    (copy / "wrong.ts").write_text(
        'import type { ActionInput } from "./atout-graphql";\n'
        "export const move: ActionInput = { pass: true, bid: { points: 80 } };\n"
    )
    checked = npx("tsc", "-p", str(copy))
    assert checked.returncode != 0 and "wrong.ts" in checked.stdout, checked.stdout
