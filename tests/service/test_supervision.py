"""`atout serve` with its embedded Redis keeps its children alive and takes them all down with it:
a killed redis-server or worker is restarted and the games go on, a bot turn whose job was lost is
enqueued again, SIGTERM leaves no process behind, and a second server refuses the same data folder."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import redis
from rq import Queue, Worker
from rq.job import Job
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, fill, wait_for_human
from test_cli import _state, serve_without_redis_url, wait_until_ready

from service.base.settings import Settings
from service.runtime.embedded_redis import free_port
from service.runtime.supervisor import Supervisor, WorkerChild, children, cmdline, descendants
from workers.jobs import queue as bot_jobs
from workers.jobs import watchdog as bot_watchdog

ROOT = Path(__file__).resolve().parents[2]
BOTS_GAME = {"kind": "rough", "options": FAST_OPTIONS["rough"], "seats": ["open", *["bot:random"] * 3]}


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or "zombie" in _state(pid)


def child_pid(serve_pid: int, marker: str) -> int | None:
    pids = [p for p in children(serve_pid) if marker in cmdline(p) and not gone(p)]
    return pids[0] if pids else None


@contextmanager
def serving(tmp_path: Path, **env: str) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    """A real `atout serve` without REDIS_URL; killed (by PID) if the test did not stop it."""
    port = free_port()
    log_path = tmp_path / f"serve-{port}.log"
    with open(log_path, "wb") as log:
        proc = serve_without_redis_url(
            tmp_path,
            port,
            # A bot job lost at a fresh start (seen under the full suite's load, cause not found yet)
            # is what the watchdog is for: recover it within seconds, not the default 120 s.
            {"ATOUT_LOG_JSON": "true", "ATOUT_BOT_BUDGET": "0.01", "ATOUT_BOT_TURN_TIMEOUT": "5", **env},
            log.fileno(),
        )
    try:
        wait_until_ready(f"http://127.0.0.1:{port}/readyz", proc)
        yield proc, f"http://127.0.0.1:{port}", log_path
    except BaseException:
        lines = [line for line in log_path.read_text().splitlines() if '"event": "request"' not in line]
        print("atout serve's log without request lines, last lines:\n" + "\n".join(lines[-60:]))
        raise
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)


def redis_of(tmp_path: Path) -> redis.Redis:
    return redis.Redis.from_url((tmp_path / "redis" / "redis.url").read_text().strip())


def bots_game(http: httpx.Client) -> Table:
    created = http.post("/v1/games", json=BOTS_GAME)
    assert created.status_code == 201, created.text
    table = Table(http, created.json()["game"]["game_id"])  # type: ignore[arg-type]  # same API as TestClient
    joined = http.post(f"/v1/games/{table.game_id}/join", json={"seat": 0, "name": "human"})
    assert joined.status_code == 201, joined.text
    table.tokens[0] = joined.json()["token"]
    return table


def a_bot_moves(table: Table, rng: random.Random) -> None:
    """Seat 0 (the human) moves whenever it is its turn, until a bot seat is to act; then that bot
    must move (the version goes past the one it was asked to act at)."""
    for _ in range(50):
        game = wait_for_human(table, {0}, 60) if table.game()["to_act"] == 0 else table.game()
        assert game["status"] == "active", game
        if game["to_act"] != 0:
            break
        response = table.act(0, fill(rng.choice(table.legal(0)), rng), expected_version=game["version"])
        assert response.status_code == 200, response.text
    else:
        raise AssertionError("seat 0 kept the turn")
    waiting_at = game["version"]
    wait_for(lambda: table.game()["version"] > waiting_at, f"a bot to move at version {waiting_at}", 60)


def test_a_killed_redis_server_is_restarted_and_the_game_goes_on(tmp_path: Path) -> None:
    rng = random.Random(9)
    with serving(tmp_path) as (proc, base, log_path), httpx.Client(base_url=base, timeout=20) as http:
        store = redis_of(tmp_path)
        store.config_set("appendfsync", "always")  # a SIGKILL then loses no write the API saw done
        store.close()
        table = bots_game(http)
        a_bot_moves(table, rng)
        old = child_pid(proc.pid, "redis-server")
        assert old is not None
        os.kill(old, signal.SIGKILL)
        wait_for(
            lambda: (new := child_pid(proc.pid, "redis-server")) is not None and new != old, "a new redis"
        )
        wait_for(lambda: http.get("/readyz").status_code == 200, "the API to reach the restarted Redis")
        a_bot_moves(table, rng)  # the game survived (AOF), the API and the workers reconnected
        assert proc.poll() is None
    assert "child_restarted" in log_path.read_text()


def test_a_killed_worker_is_restarted_with_its_scheduler_gone_and_bots_move_again(tmp_path: Path) -> None:
    rng = random.Random(10)
    with serving(tmp_path) as (proc, base, _), httpx.Client(base_url=base, timeout=20) as http:
        wait_for(lambda: child_pid(proc.pid, "--queues fast") is not None, "the fast worker")
        old = child_pid(proc.pid, "--queues fast")
        assert old is not None
        wait_for(lambda: len(children(old)) > 0, "the worker's RQ scheduler process")
        scheduler = children(old)
        os.kill(old, signal.SIGKILL)
        wait_for(lambda: all(gone(p) for p in scheduler), "the dead worker's scheduler to die with it", 30)
        wait_for(
            lambda: (new := child_pid(proc.pid, "--queues fast")) is not None and new != old, "a new worker"
        )
        table = bots_game(http)
        a_bot_moves(table, rng)
        a_bot_moves(table, rng)
        wait_for(lambda: http.get("/readyz").json()["status"] == "ready", "/readyz to see fresh heartbeats")
        workers = http.get("/readyz").json()["workers"]
        assert workers["queues"]["atout-bots"]["status"] == "ok"
        assert workers["queues"]["atout-bots"]["heartbeat_age_seconds"] is not None


def test_sigterm_stops_every_descendant_and_cleans_up(tmp_path: Path) -> None:
    with serving(tmp_path) as (proc, _, log_path):
        connection = redis_of(tmp_path)
        wait_for(lambda: len(Worker.all(connection=connection)) == 3, "the three workers")
        connection.close()
        wait_for(lambda: len(descendants(proc.pid)) >= 7, "redis, three workers and their schedulers")
        every = descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    wait_for(lambda: all(gone(p) for p in every), f"every child of atout serve to stop: {every}", 30)
    assert "embedded_redis_stopped" in log_path.read_text()
    assert not (tmp_path / "redis" / "redis.url").exists()


def test_a_second_serve_on_the_same_data_folder_exits_2_and_the_first_keeps_serving(tmp_path: Path) -> None:
    with serving(tmp_path) as (first, base, _):
        url_before = (tmp_path / "redis" / "redis.url").read_text()
        second = serve_without_redis_url(tmp_path, free_port(), {}, subprocess.PIPE)
        try:
            output = second.communicate(timeout=60)[0].decode()
        finally:
            if second.poll() is None:
                second.kill()
                second.wait(60)
        assert second.returncode == 2, output
        assert f"pid {first.pid}" in output and "redis.url" in output
        assert (tmp_path / "redis" / "redis.url").read_text() == url_before
        assert httpx.get(f"{base}/readyz", timeout=10).status_code == 200
        assert first.poll() is None


def test_a_bot_turn_whose_job_was_lost_is_enqueued_again_after_the_timeout(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    created = client.post("/v1/games", json=BOTS_GAME)
    assert created.status_code == 201, created.text
    table = Table(client, created.json()["game"]["game_id"])
    joined = client.post(f"/v1/games/{table.game_id}/join", json={"seat": 0, "name": "human"})
    table.tokens[0] = joined.json()["token"]
    rng = random.Random(11)
    game = table.game()
    if game["to_act"] == 0:  # no worker runs yet: the human moves until a bot is to act
        assert table.act(0, fill(rng.choice(table.legal(0)), rng)).status_code == 200
        game = table.game()
    assert game["to_act"] != 0
    connection = redis.Redis.from_url(settings.redis_url or "")
    lost = Job.fetch(
        bot_jobs.job_id(table.game_id, game["version"]), connection=connection, serializer=JSONSerializer
    )
    lost.delete()  # the job is gone from Redis, as after a restart that lost the last writes
    assert Queue(settings.bot_queue, connection=connection).count == 0
    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url or "",
        "ATOUT_BOT_BUDGET": "0.01",
        "ATOUT_BOT_TURN_TIMEOUT": "1",
        "ATOUT_WORKER_TTL": "16",
        "PYTHONPATH": str(ROOT),
    }
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "worker"], env=env, stdout=log, stderr=log
        )
    try:
        wait_for(lambda: table.game()["version"] > game["version"], "the lost bot turn to be played", 60)
    finally:
        worker.terminate()
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        connection.close()
    assert "bot_turn_requeued" in (tmp_path / "worker.log").read_text()


def test_a_child_that_keeps_dying_is_restarted_with_a_doubling_bounded_backoff() -> None:
    crashing = WorkerChild("crasher", [sys.executable, "-c", "raise SystemExit(3)"], os.environ)
    steady = WorkerChild("steady", [sys.executable, "-c", "import time; time.sleep(600)"], os.environ)
    supervisor = Supervisor([crashing, steady], first_backoff=0.05, max_backoff=0.2, poll_interval=0.02)
    supervisor.start()
    try:
        wait_for(lambda: len(supervisor.delays("crasher")) >= 5, "five deaths of the crashing child", 60)
        steady_pid = steady.pid
    finally:
        supervisor.stop(timeout=30)
    assert supervisor.delays("crasher")[:5] == [0.05, 0.1, 0.2, 0.2, 0.2]
    assert supervisor.restarts("crasher") >= 4 and supervisor.restarts("steady") == 0
    assert steady_pid is not None and gone(steady_pid)


def test_the_index_of_due_bot_turns_forgets_games_gone_or_moved_on(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    """The watchdog reads a bounded slice of one sorted set, never a scan of keys, and prunes it."""
    created = client.post("/v1/games", json=BOTS_GAME)
    gid = created.json()["game"]["game_id"]
    joined = client.post(f"/v1/games/{gid}/join", json={"seat": 0, "name": "human"})
    assert joined.status_code == 201, joined.text
    an_hour_ago = time.time() - 3600
    worker_env.zadd(bot_jobs.DUE_KEY, {"no-such-game:7": an_hour_ago, f"{gid}:999": an_hour_ago})
    watchdog = settings.model_copy(update={"bot_turn_timeout": 1})
    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 0
    left = {m.decode() for m in worker_env.zrange(bot_jobs.DUE_KEY, 0, -1)}
    assert "no-such-game:7" not in left and f"{gid}:999" not in left
    worker_env.delete(bot_jobs.WATCHDOG_LOCK)
    worker_env.zadd(bot_jobs.DUE_KEY, {"no-such-game:8": an_hour_ago})
    worker_env.set(bot_jobs.WATCHDOG_LOCK, "1", ex=60)  # another worker is doing this pass
    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 0
    assert worker_env.zscore(bot_jobs.DUE_KEY, "no-such-game:8") is not None


def test_readyz_says_degraded_with_a_stale_heartbeat_once_the_only_worker_is_killed(
    settings: Settings, tmp_path: Path
) -> None:
    """Still 200 (the API's own store answers), but the body says plainly that bots will not move."""
    from service.api.app import create_app

    env = {
        **os.environ,
        "REDIS_URL": settings.redis_url or "",
        "ATOUT_WORKER_TTL": "5",
        "PYTHONPATH": str(ROOT),
    }
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "worker"], env=env, stdout=log, stderr=log
        )
    try:
        with TestClient(create_app(settings.model_copy(update={"worker_ttl": 5}))) as client:
            wait_for(lambda: client.get("/readyz").json()["status"] == "ready", "a first heartbeat")
            fresh = client.get("/readyz").json()["workers"]["queues"]["atout-bots"]
            assert fresh["status"] == "ok" and fresh["workers"] == 1
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait(30)
            wait_for(lambda: client.get("/readyz").json()["status"] == "degraded", "/readyz to notice", 60)
            response = client.get("/readyz")
            assert response.status_code == 200
            stale = response.json()["workers"]["queues"]["atout-bots"]
            assert stale["status"] == "stale" and stale["heartbeat_age_seconds"] >= 5
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(30)


def test_a_bot_turn_left_started_by_a_dead_worker_is_enqueued_again(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    """A worker killed mid-move (or cut off by a Redis restart) leaves its job "started" forever: RQ
    would fail it only after the job's timeout. The watchdog enqueues the turn again once it is due
    for longer than a bot turn may take; a job started a moment ago is left alone."""
    from datetime import UTC, datetime, timedelta

    from rq.job import JobStatus

    created = client.post("/v1/games", json={**BOTS_GAME, "seats": ["bot:random"] * 4})
    assert created.status_code == 201, created.text
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    job = Job.fetch(bot_jobs.job_id(gid, version), connection=worker_env, serializer=JSONSerializer)
    Queue(job.origin, connection=worker_env, serializer=JSONSerializer).remove(job)  # a worker took it
    job.set_status(JobStatus.STARTED)
    watchdog = settings.model_copy(update={"bot_turn_timeout": 60})
    worker_env.zadd(bot_jobs.DUE_KEY, {bot_jobs.due_member(gid, version): time.time() - 3600})

    job.started_at = datetime.now(UTC) - timedelta(seconds=5)  # still within a bot turn: running
    job.save()
    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 0
    assert job.get_status(refresh=True) == JobStatus.STARTED

    worker_env.delete(bot_jobs.WATCHDOG_LOCK)
    job.started_at = datetime.now(UTC) - timedelta(hours=1)  # its worker is long gone
    job.save()
    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 1
    requeued = Job.fetch(bot_jobs.job_id(gid, version), connection=worker_env, serializer=JSONSerializer)
    assert requeued.get_status() == JobStatus.QUEUED


def test_a_bot_turn_dequeued_by_a_worker_that_died_before_starting_it_is_enqueued_again(
    client: TestClient, settings: Settings, worker_env: redis.Redis
) -> None:
    """RQ moves a job to an intermediate list when a worker takes it and marks it started a moment
    later; a worker killed (or cut off by a Redis restart) in between leaves it "queued" in no queue.
    The watchdog enqueues that turn again; a job still waiting in its queue is left alone."""
    from rq.job import JobStatus

    created = client.post("/v1/games", json={**BOTS_GAME, "seats": ["bot:random"] * 4})
    assert created.status_code == 201, created.text
    gid, version = created.json()["game"]["game_id"], created.json()["game"]["version"]
    job = Job.fetch(bot_jobs.job_id(gid, version), connection=worker_env, serializer=JSONSerializer)
    queue = Queue(job.origin, connection=worker_env, serializer=JSONSerializer)
    watchdog = settings.model_copy(update={"bot_turn_timeout": 60})
    worker_env.zadd(bot_jobs.DUE_KEY, {bot_jobs.due_member(gid, version): time.time() - 3600})

    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 0  # queued behind others: only late
    assert job.id in queue.get_job_ids()

    worker_env.delete(bot_jobs.WATCHDOG_LOCK)
    assert worker_env.lmove(queue.key, queue.intermediate_queue_key) == job.id.encode()  # a worker took it
    assert job.get_status(refresh=True) == JobStatus.QUEUED  # ... and died before marking it started
    assert bot_watchdog.requeue_stuck_turns(worker_env, watchdog) == 1
    assert queue.get_job_ids() == [job.id]
    assert worker_env.lrange(queue.intermediate_queue_key, 0, -1) == []  # RQ will not fail the new one
