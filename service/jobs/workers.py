"""The RQ worker classes that play bot turns: ``atout worker`` runs one, and so does any code that
plays queued turns in its own process (the tests).

Two changes to RQ's workers, each for a failure seen here:

- **No pubsub thread** for RQ's remote commands (kill or stop a job, shut a worker down from another
  process): nothing sends them, and stopping that thread at the worker's end joins a thread that may
  sit in ``get_message(timeout=60)`` when its SUBSCRIBE was not yet answered (a race under load): a
  burst worker then took 60 s to return, a warm shutdown once hung for good.
- **A short reconnection wait**: while Redis is down RQ waits 1 s, 2 s, 4 s … up to 60 s between
  tries, so a worker could sleep most of a minute after Redis is back; bot turns are interactive.

With ``settings``, each maintenance pass also runs the watchdog of lost bot turns
(:func:`service.jobs.watchdog.requeue_stuck_turns`).
"""

from __future__ import annotations

from rq import SimpleWorker, Worker
from rq.exceptions import StopRequested

from service.base import logs
from service.base.settings import Settings
from service.jobs.watchdog import requeue_stuck_turns

log = logs.get_logger("atout.worker")


class _TurnWorking:
    """What both worker classes add to RQ's (see the module's docstring)."""

    max_connection_wait_time = 2.0
    settings: Settings | None = None  # set by whoever runs the worker: the watchdog needs it

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()  # type: ignore[misc]  # RQ's, next in the MRO
        if self.settings is None:
            return
        try:
            requeue_stuck_turns(self.connection, self.settings)  # type: ignore[attr-defined]  # RQ's
        except StopRequested:
            raise  # a warm shutdown asked for while the watchdog ran (RQ's signal handler raises it)
        except Exception as exc:  # the watchdog must never stop the worker; the next pass retries
            log.warning("watchdog_failed", error=type(exc).__name__)


class TurnWorker(_TurnWorking, SimpleWorker):
    """Plays each job in this process (bot code is pure and short: one loop and Redis pool for all)."""


class ForkingTurnWorker(_TurnWorking, Worker):
    """Plays each job in a forked work horse (``atout worker --fork``: isolation over speed)."""
