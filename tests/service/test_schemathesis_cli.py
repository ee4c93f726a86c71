"""The OpenAPI document says exactly what the server does: the schemathesis CLI (``st run``, every
phase: examples, coverage, fuzzing, stateful through the document's links, so it reaches the game
operations with real seat tokens; every default check) against a live ``atout serve`` finds no
failure, but for what schemathesis.toml states and justifies: what no request schema can know (a
seat of *that* game, a move legal in its state) and the ignored_auth check, which takes the links'
real tokens for generated ones. Rate limits are off for the run: one address sends thousands of
requests (their 429s are tested in test_rate_limits.py). One worker: on Python 3.11, Hypothesis
parsing lambdas in two threads at once can trip CPython's AST recursion guard ("AST constructor
recursion depth mismatch"), an error of the tool, not of the service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from test_shutdown import serving

ROOT = Path(__file__).resolve().parents[2]
SECONDS = os.environ.get("ATOUT_SCHEMATHESIS_SECONDS", "45")


def test_schemathesis_finds_no_failure_against_a_live_service(tmp_path: Path) -> None:
    with serving(tmp_path, ATOUT_RATE_LIMITS="false") as served:
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("st")),
                "run",
                f"{served.base}/openapi.json",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-time",
                SECONDS,
                "--workers",
                "1",
                "--seed",
                "20261204",
                "--no-color",
            ],
            cwd=ROOT,  # schemathesis.toml
            capture_output=True,
            text=True,
            timeout=int(SECONDS) + 240,
            check=False,
        )
    report = run.stdout[-6000:]
    assert run.returncode == 0, report
    assert "Failures:" not in run.stdout, report
