"""``atout matchmaker``: the process that runs Play now's matcher, a pass every
``ATOUT_MATCHMAKING_INTERVAL`` seconds (service/games/matchmaking.py). Several may run (one per node, a
Deployment's replicas): a ticket is claimed by one table only, and a table a killed matcher left half
opened is finished by the next pass after its lease. ``atout serve`` runs one beside its workers.

Its metrics (Prometheus, through the same multiprocess files as the workers' under ``atout serve``):
tickets waiting by pool, the wait of each matched ticket, tables opened and those filled with bots."""

from __future__ import annotations

import signal
import time
from types import FrameType

from prometheus_client import Counter, Gauge, Histogram
from redis.exceptions import RedisError

from service.base import logs
from service.base.settings import Settings
from service.games.matchmaking import PassReport
from workers.jobs.turns import Runtime

log = logs.get_logger("atout.matchmaker")

WAITING = Gauge(
    "atout_matchmaking_waiting_tickets", "Play-now tickets left waiting after a pass, by pool", ["pool"],
    multiprocess_mode="livemax",
)  # fmt: skip
WAITED = Histogram(
    "atout_matchmaking_wait_seconds",
    "Seconds a Play-now ticket waited before its table",
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600),
)
TABLES = Counter("atout_matchmaking_tables_total", "Play-now tables opened", ["bot_filled"])


def observe(report: PassReport) -> None:
    for pool, count in report.waiting.items():
        WAITING.labels(pool=pool).set(count)
    for seconds in report.waited:
        WAITED.observe(seconds)
    TABLES.labels(bot_filled="yes").inc(report.bot_filled)
    TABLES.labels(bot_filled="no").inc(report.tables - report.bot_filled)


def run_matchmaker(settings: Settings, passes: int | None = None) -> int:
    """Pass after pass until SIGTERM or SIGINT (the pass under way finishes), or ``passes`` of them.
    A store fault is logged and the next pass tries again: the matcher outlives a Redis restart."""
    stopping: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    rt = Runtime(settings)
    done = 0
    try:
        while not stopping and (passes is None or done < passes):
            started = time.monotonic()
            try:
                report = rt.loop.run_until_complete(rt.games.matchmaking.run_pass())
                observe(report)
                if report.tables or report.expired or report.recovered:
                    log.info("matchmaking_pass", **_said(report))
            except (RedisError, OSError) as error:
                log.warning("matchmaking_pass_failed", error=type(error).__name__)
            except Exception:  # a bug must not stop Play now: logged whole, the next pass goes on
                log.exception("matchmaking_pass_crashed")
            done += 1
            pause = settings.matchmaking_interval - (time.monotonic() - started)
            deadline = time.monotonic() + max(0.0, pause)
            while not stopping and time.monotonic() < deadline:
                time.sleep(min(0.1, deadline - time.monotonic()) if deadline > time.monotonic() else 0)
    finally:
        rt.close()
    return 0


def _said(report: PassReport) -> dict[str, int]:
    return {
        "tables": report.tables,
        "bot_filled": report.bot_filled,
        "expired": report.expired,
        "recovered": report.recovered,
        "lost_races": report.lost_races,
    }
