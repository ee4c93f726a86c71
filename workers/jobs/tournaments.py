"""Tournament rounds as RQ jobs: a check of a tournament every ``tournament_poll_seconds`` until it ends.

A check (``games.tournaments.advance_tournament``, service/games/tournaments.py) scores the round's
finished games and starts the next round once all are over (or, when the caps on open games leave no
room for it yet, leaves it waiting for a later check). Each check schedules the next one itself, so a
tournament costs one scheduled job at a time; a check that finds another at work (the tournament's
lock) schedules nothing, and the one at work carries on. A tournament ends (finished, or stopped past
``tournament_max_seconds``), and with it the checks: bounded.
"""

from __future__ import annotations

import time
from datetime import timedelta

import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from workers.jobs.queue import CHECK_TOURNAMENT, FAILURE_TTL, JOB_TIMEOUT
from workers.jobs.turns import runtime

CONTINUE = ("running", "round started", "waiting")
"""A check's outcomes after which the tournament goes on: ``waiting``, a round over whose next cannot
start yet (a cap on open games, service/games/quotas.py), is tried again at the next check."""


def check_tournament(tournament_id: str) -> str:
    """RQ job: one check of the tournament; the next is scheduled while it runs."""
    rt = runtime()
    outcome = rt.loop.run_until_complete(rt.games.tournaments.advance_tournament(tournament_id))
    if outcome in CONTINUE:
        schedule_check(rt.sync, rt.settings.bot_queue, tournament_id, rt.settings.tournament_poll_seconds)
    return outcome


def schedule_check(connection: redis.Redis, queue_name: str, tournament_id: str, seconds: float) -> None:
    """The tournament's next check in ``seconds`` (on the fast bot queue: a check takes milliseconds)."""
    queue = Queue(queue_name, connection=connection, serializer=JSONSerializer)
    queue.enqueue_in(
        timedelta(seconds=seconds),
        CHECK_TOURNAMENT,
        tournament_id,
        job_id=f"tournament-{tournament_id}-{time.time_ns()}",
        retry=Retry(max=2),
        job_timeout=JOB_TIMEOUT,
        result_ttl=0,
        failure_ttl=FAILURE_TTL,
    )
