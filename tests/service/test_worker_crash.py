"""A worker that dies mid-job loses no move and doubles none.

The death is staged exactly as RQ sees it: the job left its queue, is marked started, and its
entry in the started registry has expired with nobody to finish it. Another worker's maintenance
(``StartedJobRegistry.cleanup``) then retries it; the compare-and-set decides what the retry does.
"""

from __future__ import annotations

import time

import redis
from rq import Queue
from rq.job import JobStatus
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import Table, admin_headers

import engine
from service.base.settings import Settings
from workers.jobs import queue as bot_jobs
from workers.jobs import turns as bot_turns
from workers.jobs.worker import TurnWorker


def bot_first_game(client: TestClient) -> Table:
    """A game whose first turn is the only bot seat's (the others are humans, so nothing follows)."""
    first = engine.new_match("rough", seed=17).to_act
    assert first is not None
    seats = ["bot:random" if s == first else "open" for s in range(4)]
    body = {"kind": "rough", "seed": "17", "seats": seats}  # a chosen seed: the administrator's
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    table = Table(client, gid)
    for seat in range(4):
        if seat != first:
            table.tokens[seat] = client.post(f"/v1/games/{gid}/join", json={"seat": seat}).json()["token"]
    return table


def die_holding(queue: Queue, job_id: str) -> None:
    """A worker took the job, started it, and died: only its expired registry entry remains."""
    job = queue.fetch_job(job_id)
    assert job is not None
    queue.remove(job)
    job.set_status(JobStatus.STARTED)
    registry = StartedJobRegistry(queue=queue)
    queue.connection.zadd(registry.key, {f"{job_id}:dead-worker": 1})


def maintain_and_drain(queue: Queue) -> None:
    """Another worker's maintenance finds the lost job and schedules its retry after the first of
    ``RETRY_INTERVALS``; once that is due, a worker with its scheduler (as ``atout worker`` runs)
    enqueues the retry and runs it."""
    StartedJobRegistry(queue=queue).cleanup()
    time.sleep(bot_jobs.RETRY_INTERVALS[0] + 0.1)
    TurnWorker([queue], connection=queue.connection, serializer=JSONSerializer).work(
        burst=True, with_scheduler=True
    )


def test_a_job_lost_before_its_move_is_retried_and_the_move_is_made_once(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = bot_first_game(client)
    queue = Queue(settings.bot_queue, connection=worker_env, serializer=JSONSerializer)
    assert queue.job_ids == [bot_jobs.job_id(table.game_id, 0)]
    die_holding(queue, bot_jobs.job_id(table.game_id, 0))
    assert table.game()["version"] == 0
    maintain_and_drain(queue)
    assert table.game()["version"] == 1
    log = client.get(
        f"/v1/games/{table.game_id}/log", headers={"Authorization": f"Bearer {settings.admin_token}"}
    )
    assert [entry["version"] for entry in log.json()["actions"]] == [1]


def test_a_job_lost_after_its_move_is_retried_and_does_nothing(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = bot_first_game(client)
    queue = Queue(settings.bot_queue, connection=worker_env, serializer=JSONSerializer)
    assert bot_turns.play_turn(table.game_id, 0) == "played"  # the move landed, then the worker died
    die_holding(queue, bot_jobs.job_id(table.game_id, 0))
    maintain_and_drain(queue)
    assert table.game()["version"] == 1
    log = client.get(
        f"/v1/games/{table.game_id}/log", headers={"Authorization": f"Bearer {settings.admin_token}"}
    )
    assert len(log.json()["actions"]) == 1
    # it ran again (found the turn played) and, like every bot job that succeeds, left nothing behind
    assert queue.fetch_job(bot_jobs.job_id(table.game_id, 0)) is None
    assert not worker_env.keys("rq:results:*")
