"""The OpenAPI document says exactly what the server does: the schemathesis CLI (``st run``, every
phase: examples, coverage, fuzzing, stateful through the document's links, so it reaches the game
operations with real seat tokens; every default check) against a live ``atout serve`` finds no
failure, but for what schemathesis.toml states and justifies: what no request schema can know (a
seat of *that* game, a move legal in its state) and the ignored_auth check, which takes the links'
real tokens for generated ones. Rate limits are off for the run: one address sends thousands of
requests (their 429s are tested in test_rate_limits.py). One worker: on Python 3.11, Hypothesis
parsing lambdas in two threads at once can trip CPython's AST recursion guard ("AST constructor
recursion depth mismatch"), an error of the tool, not of the service.

Twice (issue 32): with no credential, and with the administrator token on every request, which opens
the administrator's operations (explicit deals, webhooks, tournaments of any size) to the fuzzer. Each
run is tests/service/schemathesis_run.py inside a network namespace with only the loopback
(``unshare -n``): the administrator registers webhooks to whatever hosts the fuzzer makes up, and the
service must reach none of them, nor a resolver. Where no such namespace can be made (not root), the
run without credentials goes on the host as before; the administrator's needs the namespace."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SECONDS = os.environ.get("ATOUT_SCHEMATHESIS_SECONDS", "45")


def loopback_namespace() -> list[str] | None:
    """The command prefix that runs a command in a new network namespace with its loopback up, or None
    where none can be made here."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or "/usr/sbin/ip"
    if unshare is None or not Path(ip).exists():
        return None
    probe = subprocess.run([unshare, "-n", ip, "link", "set", "lo", "up"], capture_output=True, check=False)
    if probe.returncode != 0:
        return None
    return [unshare, "-n", "sh", "-c", f'{ip} link set lo up && exec "$@"', "netns"]


@pytest.mark.parametrize("credential", ["none", "admin"])
def test_schemathesis_finds_no_failure_against_a_live_service(tmp_path: Path, credential: str) -> None:
    prefix = loopback_namespace()
    if prefix is None and credential == "admin":
        pytest.skip("the administrator's run needs a loopback-only network namespace (unshare -n, as root)")
    command = [sys.executable, str(HERE / "schemathesis_run.py"), str(tmp_path), "--seconds", SECONDS]
    if credential == "admin":
        command.append("--admin")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parents[1])])}
    run = subprocess.run(
        [*(prefix or []), *command],
        capture_output=True,
        text=True,
        timeout=int(SECONDS) + 360,
        check=False,
        env=env,
    )
    report = run.stdout[:24000] + run.stderr[-3000:]
    assert run.returncode == 0, report
    assert "Failures:" not in run.stdout, report
