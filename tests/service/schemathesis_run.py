"""One ``st run`` (schemathesis's CLI: every phase, every default check) against a live ``atout serve``,
with no credential or, with ``--admin``, the administrator token on every request.

tests/service/test_schemathesis_cli.py runs it in a network namespace of its own where only the
loopback exists (``unshare -n``): a generated webhook URL may name any host or address, and as the
administrator schemathesis registers them, so neither a resolver nor a receiver anywhere but this
machine may be reached by the service it tests. Prints the report's tail; exits with st's status,
or 3 when the service logged a server error that st did not see.

    python tests/service/schemathesis_run.py [--admin] [--seconds 45] [--seed N] TMPDIR
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from test_shutdown import ADMIN_TOKEN, serving

ROOT = Path(__file__).resolve().parents[2]


def server_errors(log: str) -> list[str]:
    """The request lines of the service's JSON log that answered 5xx (a 503 of a store fault aside:
    none is expected here, so every one counts)."""
    found = []
    for line in log.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("event") == "request" and int(entry.get("status", 0)) >= 500:
            found.append(line)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tmp", type=Path)
    parser.add_argument("--admin", action="store_true")
    parser.add_argument("--seconds", default="45")
    parser.add_argument("--seed", default="20261204")
    args = parser.parse_args()
    with serving(args.tmp, ATOUT_RATE_LIMITS="false") as served:
        command = [
            str(Path(sys.executable).with_name("st")),
            "run",
            f"{served.base}/openapi.json",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-time",
            args.seconds,
            "--workers",
            "1",
            "--seed",
            args.seed,
            "--no-color",
        ]
        if args.admin:
            command += ["--header", f"Authorization: Bearer {ADMIN_TOKEN}"]
        run = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, timeout=int(args.seconds) + 240, check=False
        )
        errors = server_errors(served.log())
    failures = run.stdout.find("FAILURES")
    print(run.stdout[failures:][:24000] if failures >= 0 else run.stdout[-6000:])
    if errors:
        print("server errors in the service's log:\n" + "\n".join(errors[:20]))
        return 3
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
