"""The reshard drill's slow migration, run N times in a row: how often a game is left stalled.

Issue 26 saw a Le Rough game stop for good in 3 of 11 runs of this: 12 clients each play a match
(one REST seat, three heuristic bots) through a real API and two real bot workers on a 3+3 Redis
Cluster with a fourth master added; once the first game has 12 moves, its own slot is migrated key
by key to another master (``CLUSTER SETSLOT … IMPORTING/MIGRATING``, one ``MIGRATE … KEYS`` per key
with a pause, the move log last, ``SETSLOT … NODE``). Each run plays fresh matches on the same
cluster and moves the new first game's slot (tests/cluster/reshard_drill.py has the scenario;
tests/cluster/test_reshard.py runs it twice).

Per run: seconds, acknowledged moves, lost ones (a 2xx move missing from the game's final log),
stalled games (no move for 90 s), unfinished matches, 5xx other than a 503 with Retry-After, those
503s, and the longest wait for a bot's move that overlapped the migration. Loopback only; every
process is stopped by its PID.

    python bench/reshard.py [--runs 20] [--quick] [--clients 12] [--pause 0.3]

``--quick``: 2 runs of 6 clients (under a minute). The last line is
``bench reshard: runs=… stalled=0 lost=0 max_bot_wait_s=… fivexx=… retried_503=…``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "cluster"))  # embedded_cluster: dev-only, not in the package

from reshard_drill import drill_service, slow_migration_run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--pause", type=float, default=0.3, help="seconds after each key migrated")
    parser.add_argument("--quick", action="store_true", help="2 runs of 6 clients")
    args = parser.parse_args()
    runs, clients = (2, 6) if args.quick else (args.runs, args.clients)
    began = time.monotonic()
    reports = []
    with drill_service() as service:
        service.cluster.add_master()
        for run in range(runs):
            report = slow_migration_run(service, clients=clients, pause=args.pause, seed=run)
            reports.append(report)
            print(
                f"run {run + 1}/{runs}: {report.seconds:.0f}s slot owner {report.owners} "
                f"mid_match={report.mid_match} "
                f"acknowledged={sum(len(g.acknowledged) for g in report.games)} lost={report.lost} "
                f"stalled={report.stalled} unfinished={report.unfinished} fivexx={len(report.fivexx)} "
                f"retried_503={report.retried_503} max_bot_wait_s={report.max_bot_wait_migrating:.2f}",
                flush=True,
            )
            for failure in report.fivexx[:5]:
                print(f"  5xx: {failure}", flush=True)
        api_tracebacks = service.tracebacks("api")
    stalled = sum(r.stalled + r.unfinished for r in reports)
    lost = sum(r.lost for r in reports)
    fivexx = sum(len(r.fivexx) for r in reports)
    print(f"seconds={time.monotonic() - began:.0f} api_tracebacks={api_tracebacks}")
    print(
        f"bench reshard: runs={runs} stalled={stalled} lost={lost} "
        f"max_bot_wait_s={max(r.max_bot_wait_migrating for r in reports):.2f} fivexx={fivexx} "
        f"retried_503={sum(r.retried_503 for r in reports)}"
    )
    return 0 if stalled == lost == fivexx == 0 and all(r.mid_match for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
