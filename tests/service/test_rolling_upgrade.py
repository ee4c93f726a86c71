"""A rolling upgrade across the moves of the job functions: RQ stores a job's function by its import
path, so a bot turn queued by an API of an old layout must still be played by a worker of the new one.
Issue 20 moved them from ``service/bots.py`` (kept as a shim) to ``service/jobs/``; issue 33 moved them
on to ``workers/jobs/``, and this release still enqueues the ``service.jobs.*`` paths the previous
release's workers import (``service/jobs/`` keeps them importable: shims with an end date)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.utils import import_attribute
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, admin_headers, auth

from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import game_key
from workers.jobs import queue as bot_jobs
from workers.jobs import tournaments, turns, webhooks

ROOT = Path(__file__).resolve().parents[2]

ENQUEUED = {
    bot_jobs.PLAY_TURN: ("service.jobs.turns.play_turn", turns.play_turn),
    bot_jobs.TURN_TIMEOUT: ("service.jobs.turns.turn_timeout", turns.turn_timeout),
    bot_jobs.TURN_REMINDER: ("service.jobs.turns.turn_reminder", turns.turn_reminder),
    bot_jobs.CHECK_TOURNAMENT: ("service.jobs.tournaments.check_tournament", tournaments.check_tournament),
    bot_jobs.DELIVER_WEBHOOK: ("service.jobs.webhooks.deliver", webhooks.deliver),
}
"""The paths this release enqueues, the previous release's (5c5cea1), and the function each runs."""


def test_every_job_is_enqueued_under_a_path_the_previous_release_imports() -> None:
    """A worker of the previous release takes this release's jobs during a deploy: it has no
    ``workers.jobs``, so the paths stay ``service.jobs.*`` for one more release (docs/operations.md,
    "Rolling upgrade"). Each resolves, as RQ resolves it, to the function in ``workers.jobs``; so do the
    new paths the next release will enqueue, and the first layout's ``service.bots``."""
    for path, (previous, function) in ENQUEUED.items():
        assert path == previous
        assert import_attribute(path) is function
        assert import_attribute(f"{function.__module__}.{function.__name__}") is function
        assert function.__module__.startswith("workers.jobs.")
    assert import_attribute("service.bots.play_turn") is turns.play_turn
    assert import_attribute("service.bots.turn_timeout") is turns.turn_timeout


def test_a_bot_turn_queued_under_the_old_job_path_is_played_by_a_new_worker(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    body = {
        "kind": "rough",
        "seed": "41",
        "options": FAST_OPTIONS["rough"],
        "seats": ["bot:random"] * 3 + ["open"],
    }
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 3}).json()["token"]
    game = client.get(f"/v1/games/{gid}").json()
    for _ in range(4):  # until a bot is to act: the human passes
        if game["to_act"] != 3:
            break
        answer = client.post(
            f"/v1/games/{gid}/actions",
            json={"action": {"type": "pass"}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
        game = client.get(f"/v1/games/{gid}").json()
    assert game["to_act"] != 3, game
    version = game["version"]

    connection = redis.Redis.from_url(settings.redis_url or "")
    try:
        queue = Queue(settings.bot_queue, connection=connection, serializer=JSONSerializer)
        assert queue.job_ids == [bot_jobs.job_id(gid, version)]  # queued by this API
        # under the path both releases import
        assert queue.fetch_job(queue.job_ids[0]).func_name == "service.jobs.turns.play_turn"
        queue.empty()
        # as an API of the old layout queued it
        old = queue.enqueue_call("service.bots.play_turn", args=(gid, version), job_id="old-layout-turn")
        env = {**os.environ, "REDIS_URL": settings.redis_url or "", "PYTHONPATH": str(ROOT)}
        worker = subprocess.run(
            [sys.executable, "-m", "service.runtime.cli", "worker", "--burst", "--queues", "fast"],
            env={**env, "ATOUT_BOT_BUDGET": "0.01"},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert worker.returncode == 0, worker.stderr[-3000:]
        job = Job.fetch(old.id, connection=connection, serializer=JSONSerializer)
        assert job.func_name == "service.bots.play_turn"
        assert job.get_status() == "finished", worker.stderr[-3000:]
        assert job.return_value() == "played"
    finally:
        connection.close()
    assert client.get(f"/v1/games/{gid}").json()["version"] > version


def test_a_state_in_a_format_from_a_newer_release_is_refused_and_left_as_it_is(
    client: TestClient, settings: Settings, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """No format changed since the previous release (``atout.match/1``, docs/operations.md "Rolling
    upgrade"), so no reader of an older one exists. What a server meets when a newer release wrote a
    format it does not know (an upgrade rolled out in one step instead of two): it refuses the game,
    API and worker alike, names the format in its log, and never writes over it."""
    body = {
        "kind": "rough",
        "seed": "42",
        "options": FAST_OPTIONS["rough"],
        "seats": ["bot:random"] * 3 + ["open"],
    }
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 3}).json()["token"]
    while (game := client.get(f"/v1/games/{gid}").json())["to_act"] == 3:
        assert (
            client.post(
                f"/v1/games/{gid}/actions", json={"action": {"type": "pass"}}, headers=auth(token)
            ).status_code
            == 200
        )
    store = redis.Redis.from_url(settings.redis_url or "")
    try:
        state = json.loads(store.hget(game_key(gid), "state") or b"{}")
        assert state["format"] == "atout.match/1"
        state["format"] = "atout.match/2"
        future = json.dumps(state).encode()
        store.hset(game_key(gid), "state", future)
        before = store.hgetall(game_key(gid))
        capfd.readouterr()

        with TestClient(create_app(settings), raise_server_exceptions=False) as fresh:  # no cached copy
            read = fresh.get(f"/v1/games/{gid}")
            moved = fresh.post(
                f"/v1/games/{gid}/actions", json={"action": {"type": "pass"}}, headers=auth(token)
            )
        for answer in (read, moved):
            assert answer.status_code == 500 and answer.json()["code"] == "internal_error", answer.text
        logged = capfd.readouterr()
        assert (
            "a match stored in format 'atout.match/2', which this release does not read"
            in logged.out + logged.err
        )

        # the bot turn queued before: a worker of this release fails it with the same reason and plays
        # nothing; RQ retries it later (queue.RETRY_INTERVALS: a worker of the newer release may take
        # it), then leaves it in the failed registry an operator reads
        job = Job.fetch(bot_jobs.job_id(gid, game["version"]), connection=store, serializer=JSONSerializer)
        env = {**os.environ, "REDIS_URL": settings.redis_url or "", "PYTHONPATH": str(ROOT)}
        worker = subprocess.run(
            [sys.executable, "-m", "service.runtime.cli", "worker", "--burst", "--queues", "fast"],
            env={**env, "ATOUT_BOT_BUDGET": "0.01"},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert worker.returncode == 0, worker.stderr[-3000:]
        job.refresh()
        assert job.get_status() == "scheduled", worker.stderr[-3000:]  # failed once, its retry scheduled
        assert "a match stored in format 'atout.match/2'" in worker.stdout + worker.stderr  # its log says why
        assert store.hgetall(game_key(gid)) == before  # not one field written: the game waits, whole
    finally:
        store.close()
