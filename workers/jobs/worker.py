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
(:func:`workers.jobs.watchdog.requeue_stuck_turns`).

- **Jobs handed back at a warm shutdown.** RQ takes a job by moving its id from the queue to an
  "intermediate" list (``BLMOVE``), then marks it started. A SIGTERM to an idle worker raises at once,
  wherever the worker is: between the two, the job is left in the intermediate list, in no queue,
  until RQ's cleanup notices it one to two maintenance passes (a minute or more) later. A rolling
  deploy stops workers all the time: the upgrade drill met it (a Euchre-5 bot turn waited past the
  test's minute). On its way out, a worker puts such jobs back at the front of their queue, and each
  maintenance pass does the same for jobs another worker stranded (a worker of the previous release).
"""

from __future__ import annotations

import time
from typing import Any

from redis.exceptions import RedisError
from rq import SimpleWorker, Worker
from rq.exceptions import StopRequested

from service.base import logs
from service.base.settings import Settings
from workers.jobs.watchdog import requeue_stuck_turns

log = logs.get_logger("atout.worker")

HAND_BACK_GRACE = 0.5
"""Seconds a job id must stay in the intermediate list, not started, before a stopping worker puts it
back: a live worker marks what it took started within milliseconds. Were one slower, its job would be
played twice, which a bot turn or a timer allows (a compare-and-set on the game's version)."""

HAND_BACK = """
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 then
  redis.call('LPUSH', KEYS[2], ARGV[1])
  return 1
end
return 0
"""


class _TurnWorking:
    """What both worker classes add to RQ's (see the module's docstring)."""

    max_connection_wait_time = 2.0
    settings: Settings | None = None  # set by whoever runs the worker: the watchdog needs it

    def subscribe(self) -> None:
        pass

    def unsubscribe(self) -> None:
        pass

    def work(self, *args: Any, **kwargs: Any) -> bool:
        worked: bool = super().work(*args, **kwargs)  # type: ignore[misc]  # RQ's, next in the MRO
        try:
            self.hand_back_taken_jobs()
        except RedisError as exc:  # Redis gone as the worker stops: RQ's own cleanup remains
            log.warning("hand_back_failed", error=type(exc).__name__)
        return worked

    def hand_back_taken_jobs(self, grace: float = HAND_BACK_GRACE) -> int:
        """Put back at the front of its queue every job id left in a queue's intermediate list and not
        started (see the module's docstring); returns how many."""
        queues: list[Any] = self.queues  # type: ignore[attr-defined]  # RQ's
        stranded = [
            (queue, [job for job in queue.intermediate_queue.get_job_ids() if job not in running])
            for queue in queues
            for running in [queue.started_job_registry]
        ]
        if not any(jobs for _, jobs in stranded):
            return 0
        time.sleep(grace)
        script = self.connection.register_script(HAND_BACK)  # type: ignore[attr-defined]  # RQ's
        handed = 0
        for queue, jobs in stranded:
            for job in jobs:
                if job in queue.started_job_registry:
                    continue
                if script(keys=[queue.intermediate_queue_key, queue.key], args=[job]):
                    handed += 1
                    log.info("job_handed_back", queue=queue.name, job=job)
        return handed

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()  # type: ignore[misc]  # RQ's, next in the MRO
        if self.settings is None:
            return
        try:
            # a job another worker stranded (one of a release without the hand-back, or killed): back
            # within a maintenance interval rather than RQ's minute or more
            self.hand_back_taken_jobs()
            requeue_stuck_turns(self.connection, self.settings)  # type: ignore[attr-defined]  # RQ's
        except StopRequested:
            raise  # a warm shutdown asked for while the watchdog ran (RQ's signal handler raises it)
        except Exception as exc:  # the watchdog must never stop the worker; the next pass retries
            log.warning("watchdog_failed", error=type(exc).__name__)


class TurnWorker(_TurnWorking, SimpleWorker):
    """Plays each job in this process (bot code is pure and short: one loop and Redis pool for all)."""


class ForkingTurnWorker(_TurnWorking, Worker):
    """Plays each job in a forked work horse (``atout worker --fork``: isolation over speed)."""
