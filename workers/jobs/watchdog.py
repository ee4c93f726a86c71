"""The watchdog of bot turns, run from every worker's maintenance: a turn whose job was lost (a Redis
restart, a killed worker between RQ's bookkeeping steps) is enqueued again after
``ATOUT_BOT_TURN_TIMEOUT``."""

from __future__ import annotations

import time
from datetime import UTC
from typing import Any, cast

import redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from service.base.settings import Settings
from service.store.keys import game_key
from workers.jobs.queue import DUE_KEY, WATCHDOG_BATCH, WATCHDOG_LOCK, enqueue, job_id, log
from workers.jobs.turns import Runtime, runtime

LOST_AFTER = 5.0
"""Seconds after its enqueue past which a turn whose job reads ``queued`` but waits in no queue counts as
lost, without waiting out ``bot_turn_timeout``. A worker listening on several queues takes a job with
BLPOP (no intermediate list to hand it back from): a SIGTERM between that and marking the job started
(RQ's warm shutdown raises at once in an idle worker) drops it. The upgrade drill met it: a Euchre-5 bot
turn waited past the drill's two minutes. A live worker marks what it took started within milliseconds;
were one slower, the copy loses the compare-and-set on the game's version."""


def requeue_stuck_turns(connection: redis.Redis, settings: Settings) -> int:
    """Enqueue again every bot turn due for longer than ``bot_turn_timeout`` whose job is neither
    queued nor running (lost with a Redis restart, deleted, or failed past its retries), and one due for
    :data:`LOST_AFTER` whose job is queued in no queue (taken by a worker that stopped before starting
    it); drop the index entries of games that moved on (enqueuing the bot turn they moved on to, if any).
    Run from every worker's maintenance: a short lock lets one worker of the cluster do a pass at a time.
    Returns the number of turns enqueued again."""

    now = time.time()
    lock_seconds = max(1, int(settings.bot_turn_timeout // 2))
    if not connection.set(WATCHDOG_LOCK, "1", nx=True, ex=lock_seconds):
        return 0
    connection.zremrangebyscore(DUE_KEY, "-inf", now - settings.abandoned_ttl)  # those games expired
    overdue_before = now - settings.bot_turn_timeout
    due = connection.zrangebyscore(
        DUE_KEY,
        "-inf",
        now - min(LOST_AFTER, settings.bot_turn_timeout),
        start=0,
        num=WATCHDOG_BATCH,
        withscores=True,
    )
    requeued = 0
    for raw, score in cast(list[tuple[bytes | str, float]], due):
        since = float(score)
        member = raw.decode() if isinstance(raw, bytes) else str(raw)
        game_id, _, v = member.rpartition(":")
        turn = runtime().bot_turn(game_id)
        if turn is None or turn[0] != int(v):
            connection.zrem(DUE_KEY, member)
            if turn is not None and turn[0] > int(v):
                # moved on to another bot turn, which may never have been enqueued (its mover failed
                # right after the write): enqueued now, a no-op if it was
                enqueue(connection, settings.bot_queue, game_id, *turn)
            continue
        level = turn[1]
        try:
            job = Job.fetch(job_id(game_id, int(v)), connection=connection, serializer=JSONSerializer)
            status = job.get_status()
        except NoSuchJobError:
            job, status = None, None
        if not _lost(connection, job, status, since > overdue_before, settings.bot_turn_timeout, now):
            continue
        # Also a job "started" longer than a bot turn may take: its worker died with it (killed, or
        # Redis went down under it, so the job's end was never written). RQ would fail it only after
        # its timeout; the turn is due now. Should it still be running, the copy loses the race.
        # Also a job "queued" but in no queue: a worker took it (BLPOP, or BLMOVE to RQ's intermediate
        # list) and stopped, died or lost Redis before marking it started (LOST_AFTER).
        if job is not None:
            # finished or failed under the same id: the unique enqueue would refuse; and RQ's own
            # cleanup must not later fail the new job for the old one's place in the intermediate list
            connection.lrem(Queue(job.origin, connection=connection).intermediate_queue_key, 0, job.id)
            job.delete()
        enqueue(connection, settings.bot_queue, game_id, int(v), level)
        connection.zadd(DUE_KEY, {member: time.time()})  # its clock starts again
        log.warning("bot_turn_requeued", game=game_id, version=int(v), level=level, job_status=str(status))
        requeued += 1
    return requeued


def _lost(connection: redis.Redis, job: Any, status: Any, recent: bool, timeout: float, now: float) -> bool:
    """Whether a due turn's job is lost: queued in no queue (at any age past :data:`LOST_AFTER`), or,
    once the turn is overdue (not ``recent``), gone, finished, failed, or started longer ago than a
    bot turn may take. A scheduled or deferred job (a retry's pause) is never lost."""
    if status in (JobStatus.SCHEDULED, JobStatus.DEFERRED):
        return False
    if status == JobStatus.QUEUED:
        return not _waiting_in_queue(connection, job)
    if recent:
        return False  # not overdue: its worker may still be at it
    return not (status == JobStatus.STARTED and _started_within(job, timeout, now))


def _waiting_in_queue(connection: redis.Redis, job: Any) -> bool:
    """Whether ``job`` is still in its queue's list (LPOS: no copy of the list), waiting for a worker."""
    queue_key = Queue(job.origin, connection=connection).key
    return connection.lpos(queue_key, job.id) is not None


def _started_within(job: Any, seconds: float, now: float) -> bool:
    started = getattr(job, "started_at", None)
    return started is not None and now - started.replace(tzinfo=started.tzinfo or UTC).timestamp() < seconds


def enqueue_bot_turns_of_every_game(settings: Settings) -> int:
    """Enqueue the turn of every running game whose seat to act is a bot, in the store ``settings``
    name; a turn already queued is left as it is (the unique enqueue). For a store restored from a
    snapshot (``atout restore``): a snapshot taken between a move's write and the enqueue of the bot
    turn it led to holds a bot to act with no job and no watchdog entry, a game no one would move on.
    Scans every game key: an offline command's work, never the service's. Returns how many turns."""
    rt = Runtime(settings)
    try:
        enqueued = 0
        for raw in rt.sync.scan_iter(match=game_key("*"), count=500):
            key = raw.decode() if isinstance(raw, bytes) else str(raw)
            game_id = key[key.index("{") + 1 : key.rindex("}")]
            turn = rt.bot_turn(game_id)
            if turn is not None:
                enqueue(rt.sync, settings.bot_queue, game_id, *turn)
                enqueued += 1
        return enqueued
    finally:
        rt.close()
