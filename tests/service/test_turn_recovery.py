"""A bot turn whose mover failed right after writing the move is still played.

Seen in the reshard drill (issue 26): a move was written, then a step after it (the log's fold,
refused mid-migration) failed before the next bot turn was enqueued; the client's retry replayed
the stored answer, the failed job's retry found the game moved on ("stale"), and the watchdog only
knew the turn that had been played. No one enqueued the new turn: the game sat at that version for
good. Now a stale job, and the watchdog dropping a turn the game moved past, enqueue the bot turn the
game is at (a no-op when it is queued already).
"""

from __future__ import annotations

import random
import time

import redis
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, admin_headers, fill

from service.base.settings import Settings
from workers.jobs import queue as bot_jobs
from workers.jobs import turns as bot_turns
from workers.jobs import watchdog as bot_watchdog

BOTS_ONLY = {"kind": "rough", "options": FAST_OPTIONS["rough"], "seats": ["bot:random"] * 4}


def job_status(connection: redis.Redis, gid: str, version: int) -> JobStatus | None:
    try:
        job = Job.fetch(bot_jobs.job_id(gid, version), connection=connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return None
    return job.get_status()


def moved_on_without_its_next_turn(client: TestClient, connection: redis.Redis) -> tuple[str, int]:
    """A bots-only game whose turn at ``v`` was played, and whose next turn (``v + 1``) was then lost
    as if its mover had failed right after the write: no job, no entry in the watchdog's index."""
    created = client.post("/v1/games", json=BOTS_ONLY)
    assert created.status_code == 201, created.text
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    assert bot_turns.play_turn(gid, version) == "played"
    assert client.get(f"/v1/games/{gid}").json()["version"] == version + 1
    Job.fetch(bot_jobs.job_id(gid, version + 1), connection=connection, serializer=JSONSerializer).delete()
    connection.zrem(bot_jobs.DUE_KEY, bot_jobs.due_member(gid, version + 1))
    assert job_status(connection, gid, version + 1) is None
    return gid, version


def test_a_retried_job_that_finds_its_move_written_enqueues_the_next_turn(
    client: TestClient, worker_env: redis.Redis
) -> None:
    """The job of turn ``v`` run again (RQ's retry after a fault past the write) finds the game at
    ``v + 1``: it enqueues that bot turn, which a worker then plays."""
    gid, version = moved_on_without_its_next_turn(client, worker_env)
    assert bot_turns.play_turn(gid, version) == "stale"
    assert job_status(worker_env, gid, version + 1) == JobStatus.QUEUED
    assert worker_env.zscore(bot_jobs.DUE_KEY, bot_jobs.due_member(gid, version + 1)) is not None
    assert bot_turns.play_turn(gid, version + 1) == "played"
    bot_turns.play_turn(gid, version)  # and once more: the turn it would enqueue is queued already
    assert job_status(worker_env, gid, version + 2) == JobStatus.QUEUED


def test_the_watchdog_enqueues_the_turn_a_game_moved_on_to(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    """The watchdog's index still holds turn ``v`` (its job failed past its retries after writing
    the move): dropping it, the watchdog enqueues the bot turn the game is at now."""
    gid, version = moved_on_without_its_next_turn(client, worker_env)
    worker_env.zadd(bot_jobs.DUE_KEY, {bot_jobs.due_member(gid, version): time.time() - 3600})
    watchdog = settings.model_copy(update={"bot_turn_timeout": 60})
    bot_watchdog.requeue_stuck_turns(worker_env, watchdog)
    assert worker_env.zscore(bot_jobs.DUE_KEY, bot_jobs.due_member(gid, version)) is None
    assert job_status(worker_env, gid, version + 1) == JobStatus.QUEUED
    assert bot_turns.play_turn(gid, version + 1) == "played"


def test_a_failed_bot_job_is_retried_with_a_growing_pause(
    client: TestClient, worker_env: redis.Redis
) -> None:
    """A bot turn's job meets a store fault (a failover, a slot migration past its wait): RQ retries it
    after 1, 2, 4, 8 and 15 s (its scheduler), not at once twice as before."""
    created = client.post("/v1/games", json=BOTS_ONLY)
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    job = Job.fetch(bot_jobs.job_id(gid, version), connection=worker_env, serializer=JSONSerializer)
    assert job.retries_left == len(bot_jobs.RETRY_INTERVALS) == 5
    assert job.retry_intervals == [1, 2, 4, 8, 15]


def test_a_replayed_move_enqueues_the_bot_turn_its_first_request_may_have_lost(
    client: TestClient, worker_env: redis.Redis
) -> None:
    """A person's move written, then its request failed before enqueuing the bot's turn (a write a
    replica did not confirm in time: 503): sent again with its Idempotency-Key it replays the stored
    answer, and the bot's turn is enqueued."""
    # A chosen deal (the administrator's), so that seat 0's move hands the turn to a bot whatever the
    # bots before it chose: with a random deal its move can end the auction and keep the turn.
    body = {
        "kind": "rough",
        "options": FAST_OPTIONS["rough"],
        "seats": ["open", *["bot:random"] * 3],
        "seed": "17",
    }
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    game = client.get(f"/v1/games/{gid}").json()
    while game["to_act"] != 0:  # the bots before seat 0, played in this process
        assert bot_turns.play_turn(gid, game["version"]) == "played"
        game = client.get(f"/v1/games/{gid}").json()
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "once"}
    legal = client.get(f"/v1/games/{gid}/actions", headers=headers).json()["legal_actions"]
    move = {"action": fill(legal[0], random.Random(1)), "expected_version": game["version"]}
    first = client.post(f"/v1/games/{gid}/actions", json=move, headers=headers)
    assert first.status_code == 200, first.text
    after = first.json()["version"]
    assert first.json()["to_act"] in (1, 2, 3)  # a bot's turn, its job enqueued by the first request
    Job.fetch(bot_jobs.job_id(gid, after), connection=worker_env, serializer=JSONSerializer).delete()
    worker_env.zrem(bot_jobs.DUE_KEY, bot_jobs.due_member(gid, after))

    again = client.post(f"/v1/games/{gid}/actions", json=move, headers=headers)
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert job_status(worker_env, gid, after) == JobStatus.QUEUED
    assert bot_turns.play_turn(gid, after) == "played"


def test_a_turn_taken_by_a_worker_that_stopped_before_starting_it_is_enqueued_again_within_seconds(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    """A worker on several queues takes a job with BLPOP; stopped (SIGTERM) before it marks the job
    started, it leaves the job ``queued`` in no queue (the upgrade drill's stall). The watchdog counts
    it lost once it is ``LOST_AFTER`` old, without waiting out the turn timeout (two minutes here)."""
    created = client.post("/v1/games", json=BOTS_ONLY)
    assert created.status_code == 201, created.text
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    queue_key = f"rq:queue:{settings.bot_queue}"
    taken = bot_jobs.job_id(gid, version)
    assert worker_env.lrem(queue_key, 0, taken) == 1  # what BLPOP did, and nothing after it
    member = bot_jobs.due_member(gid, version)
    patient = settings.model_copy(update={"bot_turn_timeout": 120})
    worker_env.zadd(bot_jobs.DUE_KEY, {member: time.time() - 1})  # just taken: not lost yet
    assert bot_watchdog.requeue_stuck_turns(worker_env, patient) == 0
    worker_env.delete(bot_jobs.WATCHDOG_LOCK)
    worker_env.zadd(bot_jobs.DUE_KEY, {member: time.time() - bot_watchdog.LOST_AFTER - 1})
    assert bot_watchdog.requeue_stuck_turns(worker_env, patient) == 1
    assert worker_env.lpos(queue_key, taken) is not None  # back in its queue
    assert bot_turns.play_turn(gid, version) == "played"


def test_a_job_waiting_in_its_queue_or_running_is_left_alone_before_the_turn_timeout(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    created = client.post("/v1/games", json=BOTS_ONLY)
    assert created.status_code == 201, created.text
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    member = bot_jobs.due_member(gid, version)
    worker_env.zadd(bot_jobs.DUE_KEY, {member: time.time() - 30})
    patient = settings.model_copy(update={"bot_turn_timeout": 120})
    assert bot_watchdog.requeue_stuck_turns(worker_env, patient) == 0  # still in its queue
    assert job_status(worker_env, gid, version) == JobStatus.QUEUED
