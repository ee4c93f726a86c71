"""The committed contracts pass third-party tools, as an app developer would run them: Redocly's
linter finds no problem in openapi/openapi.json; openapi-typescript generates from it exactly the
committed examples/client/atout-api.d.ts; and the example client type-checks against those types
with ``tsc --strict`` (while a wrong request body does not). The tools are the npm packages pinned in
package-lock.json, installed by ``make test`` (``npm ci``); nothing is downloaded here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

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


def test_openapi_typescript_generates_the_committed_types(tmp_path: Path) -> None:
    generated = tmp_path / "atout-api.d.ts"
    made = npx("openapi-typescript", "openapi/openapi.json", "-o", str(generated))
    assert made.returncode == 0, made.stderr
    assert generated.read_text() == (CLIENT / "atout-api.d.ts").read_text(), (
        "examples/client/atout-api.d.ts is stale: make openapi"
    )


def test_the_example_client_type_checks_against_the_generated_types() -> None:
    checked = npx("tsc", "-p", str(CLIENT))
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
