"""SIGTERM (what Kubernetes and process managers send) stops `atout serve` and `atout worker` as
cleanly as Ctrl-C: open streams are told to come back, the workers finish their job, the embedded
Redis shuts down (its URL file removed), nothing outlives the command, and no traceback is logged."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import redis
from rq import Worker
from test_supervision import a_bot_moves, bots_game, gone, redis_of, serving, wait_for

from service.supervisor import descendants

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]
NOISE = ("Traceback", "Error 111", "Connection refused", "ConnectionError")


def read_stream(base: str, gid: str, out: dict[str, object]) -> None:
    """Follow a game's SSE stream until the server ends it; record how it ended."""
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(60, read=60)) as http,
            http.stream("GET", f"{base}/v1/games/{gid}/events") as response,
        ):
            out["status"] = response.status_code
            lines = []
            for line in response.iter_lines():
                lines.append(line)
            out["lines"] = lines
            out["ended"] = "cleanly"
    except httpx.HTTPError as error:
        out["ended"] = type(error).__name__


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_serve_cleanly_with_streams_open_and_bots_playing(
    tmp_path: Path, signum: signal.Signals
) -> None:
    rng = random.Random(signum)
    with serving(tmp_path) as (proc, base, log_path), httpx.Client(base_url=base, timeout=20) as http:
        connection = redis_of(tmp_path)
        wait_for(lambda: len(Worker.all(connection=connection)) == 2, "both workers")
        connection.close()
        table = bots_game(http)
        a_bot_moves(table, rng)
        stream: dict[str, object] = {}
        reader = threading.Thread(target=read_stream, args=(base, table.game_id, stream), daemon=True)
        reader.start()
        wait_for(lambda: "status" in stream, "the stream to open")
        every = descendants(proc.pid)
        assert len(every) >= 5, every  # redis-server, two workers and their schedulers
        proc.send_signal(signum)
        assert proc.wait(60) == 0
        reader.join(30)
    wait_for(lambda: all(gone(p) for p in every), f"every child of atout serve to stop: {every}", 30)
    log = log_path.read_text()
    assert "embedded_redis_stopped" in log
    assert not (tmp_path / "redis" / "redis.url").exists()
    assert stream.get("ended") == "cleanly", stream.get("ended")  # a clean end, never a reset
    lines = stream["lines"]
    assert isinstance(lines, list)
    assert "event: server_closing" in lines, lines[-6:]  # told to come back, and when
    assert "retry: 1000" in lines
    for noise in NOISE:
        assert noise not in log, f"{noise!r} in the log of a {signum.name} shutdown"


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_a_lone_worker_cleanly(redis_url: str, tmp_path: Path, signum: signal.Signals) -> None:
    """`atout worker` on its own (as a Kubernetes worker pod runs it): a warm shutdown, its RQ
    scheduler gone with it, exit 0, no traceback."""
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT), "ATOUT_LOG_JSON": "true"}
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"], env=env, stdout=log, stderr=log
        )
    try:
        connection = redis.Redis.from_url(redis_url)
        wait_for(lambda: len(Worker.all(connection=connection)) == 1, "the worker to register")
        wait_for(lambda: len(descendants(worker.pid)) >= 1, "its RQ scheduler")
        every = descendants(worker.pid)
        time.sleep(0.5)
        worker.send_signal(signum)
        assert worker.wait(60) == 0
        wait_for(lambda: all(gone(p) for p in every), "the worker's scheduler to stop", 30)
        assert Worker.all(connection=connection) == []  # it unregistered itself
        connection.close()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(30)
    log = log_path.read_text()
    for noise in NOISE:
        assert noise not in log, f"{noise!r} in the log of a worker's {signum.name} shutdown:\n{log[-3000:]}"
    # no RQ pubsub thread (it sleeps 60 s between reads, and closing it could hang the shutdown)
    assert "subscribing to channel" not in log
