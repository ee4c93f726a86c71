"""SIGTERM (what Kubernetes, Docker and process managers send) stops `atout serve` and `atout worker`
as cleanly as Ctrl-C, whether the signal reaches the process alone or its whole process group (a
terminal's Ctrl-C, `kill -TERM -<pgid>`): the API stops taking connections, its open streams (SSE,
NDJSON, GraphQL subscriptions) are told to reconnect, the workers finish the bot turn they are
playing, the embedded Redis shuts down last (AOF saved, its URL file removed), nothing outlives the
command, it exits 0, and no traceback or connection error is logged.

Every process here is started in a session of its own (a signal to its group never reaches pytest),
every wait is bounded, and whatever is still alive at the end is killed by PID."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from rq import Queue, Worker
from rq.registry import StartedJobRegistry
from rq.scheduler import SCHEDULER_KEY_TEMPLATE
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import admin_headers
from test_cli import wait_until_ready
from test_supervision import a_bot_moves, bots_game, child_pid, gone, redis_of, wait_for
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as websocket_connect

import engine
from service.runtime.embedded_redis import EmbeddedRedis, free_port
from service.runtime.supervisor import cmdline, descendants
from service.store.keys import game_key
from workers.jobs import queue as bot_jobs

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]
# to the process alone (Kubernetes, Docker, a process manager), or to its whole process group (a
# terminal's Ctrl-C, `kill -TERM -<pgid>`): then every child gets it too, unless it is in a session
# of its own
DELIVERIES = [pytest.param("process", id="to_the_process"), pytest.param("group", id="to_its_group")]
NOISE = ("Traceback", "Error 111", "Connection refused", "ConnectionError", "Errno 98")
EXPERT_QUEUE = bot_jobs.queue_for("atout-bots", "expert")
ADMIN_TOKEN = "admin-for-shutdown-tests"
BUDGET = "4"  # seconds an expert bot thinks: a turn outlasts the moment a signal is sent


def send(proc: subprocess.Popen[bytes], signum: signal.Signals, delivery: str) -> None:
    if delivery == "group":
        os.killpg(proc.pid, signum)  # the process leads its own group (start_new_session)
    else:
        proc.send_signal(signum)


def kill_leftovers(
    pids: list[int], markers: tuple[str, ...] = ("service.runtime.cli", "redis-server")
) -> None:
    """SIGKILL whichever of ``pids`` is still alive and still ours (its command line says so)."""
    for pid in pids:
        if not gone(pid) and any(marker in cmdline(pid) for marker in markers):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def noise_in(log: str) -> list[str]:
    return [noise for noise in NOISE if noise in log]


def events_of(log: str) -> list[dict[str, Any]]:
    """The structured (JSON) log events in a log several processes write to: a JSON event and its
    newline are two writes, so another process's line may come between them."""
    decoder = json.JSONDecoder()
    events = []
    for line in log.splitlines():
        at = line.find("{")
        while at != -1:
            try:
                event, end = decoder.raw_decode(line, at)
            except ValueError:
                at = line.find("{", at + 1)
                continue
            if isinstance(event, dict) and "event" in event:
                events.append(event)
            at = line.find("{", end)
    return events


# --- atout serve -------------------------------------------------------------------------------


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    base: str
    log_path: Path
    data_dir: Path
    pids: list[int] = field(default_factory=list)  # every descendant seen: killed if left over

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def serving(tmp_path: Path, **settings: str) -> Iterator[Served]:
    """A real `atout serve` without REDIS_URL (so with its embedded Redis and supervised workers), in
    a session of its own; killed, with every descendant recorded, if the test did not stop it."""
    port = free_port()
    log_path = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "ATOUT_REDIS_URL"}}
    env.update(
        ATOUT_DATA_DIR=str(tmp_path / "redis"),
        PYTHONPATH=str(ROOT),
        ATOUT_LOG_JSON="true",
        ATOUT_BOT_BUDGET=BUDGET,
        ATOUT_BOT_TURN_TIMEOUT="30",  # longer than an expert turn: none is enqueued twice
        ATOUT_ADMIN_TOKEN=ADMIN_TOKEN,
        **settings,
    )
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    served = Served(proc, f"http://127.0.0.1:{port}", log_path, tmp_path / "redis")
    try:
        wait_until_ready(f"{served.base}/readyz", proc)
        yield served
    except BaseException:
        lines = [line for line in served.log().splitlines() if '"event": "request"' not in line]
        print("atout serve's log without request lines, last lines:\n" + "\n".join(lines[-80:]))
        raise
    finally:
        served.pids += [p for p in descendants(proc.pid) if p not in served.pids]
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
        kill_leftovers(served.pids)


@dataclass
class Streams:
    """An SSE game stream, a bot's NDJSON stream and a GraphQL subscription, each read in a thread
    until the server ends it; how each ended."""

    sse: list[str] = field(default_factory=list)
    ndjson: list[dict[str, Any]] = field(default_factory=list)
    graphql: list[dict[str, Any]] = field(default_factory=list)
    ended: dict[str, str] = field(default_factory=dict)
    opened: dict[str, threading.Event] = field(
        default_factory=lambda: {k: threading.Event() for k in ("sse", "ndjson", "graphql")}
    )
    threads: list[threading.Thread] = field(default_factory=list)

    def open(self, base: str, gid: str, bot_key: str) -> None:
        for target, args in (
            (self._sse, (base, gid)),
            (self._ndjson, (base, bot_key)),
            (self._graphql, (base, gid)),
        ):
            thread = threading.Thread(target=target, args=args, daemon=True)
            thread.start()
            self.threads.append(thread)
        for name, event in self.opened.items():
            assert event.wait(30), f"the {name} stream did not open: {self.ended}"

    def join(self, seconds: float = 30) -> None:
        for thread in self.threads:
            thread.join(seconds)
            assert not thread.is_alive(), f"a stream was not ended by the server: {self.ended}"

    def _sse(self, base: str, gid: str) -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(60, read=60)) as http,
                http.stream("GET", f"{base}/v1/games/{gid}/events") as response,
            ):
                assert response.status_code == 200
                self.opened["sse"].set()
                for line in response.iter_lines():
                    self.sse.append(line)
                self.ended["sse"] = "cleanly"
        except Exception as error:
            self.ended["sse"] = repr(error)

    def _ndjson(self, base: str, bot_key: str) -> None:
        headers = {"Authorization": f"Bearer {bot_key}", "Accept": "application/x-ndjson"}
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(60, read=60)) as http,
                http.stream("GET", f"{base}/v1/bots/me/stream", headers=headers) as response,
            ):
                assert response.status_code == 200
                self.opened["ndjson"].set()
                for line in response.iter_lines():
                    if line:
                        self.ndjson.append(json.loads(line))
                self.ended["ndjson"] = "cleanly"
        except Exception as error:
            self.ended["ndjson"] = repr(error)

    def _graphql(self, base: str, gid: str) -> None:
        query = f'subscription {{ gameEvents(gameId: "{gid}") {{ id version event {{ __typename }} }} }}'
        url = base.replace("http://", "ws://") + "/graphql"
        try:
            with websocket_connect(url, subprotocols=["graphql-transport-ws"], open_timeout=30) as ws:
                ws.send(json.dumps({"type": "connection_init", "payload": {}}))
                assert json.loads(ws.recv(30))["type"] == "connection_ack"
                ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
                self.opened["graphql"].set()
                try:
                    while True:
                        self.graphql.append(json.loads(ws.recv(60)))
                except ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd is not None else None
                    self.ended["graphql"] = f"closed {code}"
        except Exception as error:
            self.ended["graphql"] = repr(error)


def expert_turn_in_progress(served: Served) -> tuple[str, int]:
    """A game of four expert bots, and the (game id, version) of the turn an expert worker is
    thinking about now: the first bid of the deal of seed 17, which has several candidates, so the
    bot thinks its whole ``BUDGET`` (tests/service/test_worker_kill.py relies on it too)."""
    created = httpx.post(
        f"{served.base}/v1/games",
        json={"kind": "rough", "seed": "17", "seats": ["bot:expert"] * 4},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},  # a chosen seed: the administrator's
    )
    assert created.status_code == 201, created.text
    gid = created.json()["game"]["game_id"]
    connection = redis_of(served.data_dir.parent)
    try:
        queue = Queue(EXPERT_QUEUE, connection=connection, serializer=JSONSerializer)
        registry = StartedJobRegistry(queue=queue)
        wait_for(
            lambda: bot_jobs.job_id(gid, 0) in registry.get_job_ids(), "an expert worker to start a turn"
        )
    finally:
        connection.close()
    return gid, 0


def assert_stopped_cleanly(served: Served, every: list[int], signame: str) -> str:
    """What every shutdown of `atout serve` must leave, whatever the signal: the log it wrote."""
    wait_for(lambda: all(gone(p) for p in every), f"every child of atout serve to stop: {every}", 30)
    log = served.log()
    assert not noise_in(log), f"{noise_in(log)} in the log of a {signame} shutdown"
    events = events_of(log)
    stopped = {e["child"]: e for e in events if e["event"] == "child_stopped"}
    assert set(stopped) == {
        "worker-fast",
        "worker-expert",
        "worker-webhooks",
        "matchmaker",
        "redis-server",
    }, stopped
    assert all(e["exit_code"] == 0 for e in stopped.values()), stopped
    assert len([e for e in events if e["event"] == "worker_stopped"]) == 3
    names = [e["event"] for e in events]
    assert "embedded_redis_stopped" in names
    assert next(e for e in events if e["event"] == "embedded_redis_stopped")["exit_code"] == 0
    # the workers stopped before the Redis they write to
    last_worker = max(i for i, e in enumerate(events) if e.get("child", "").startswith("worker-"))
    assert last_worker < names.index("embedded_redis_stopped")
    # a clean SHUTDOWN: the AOF fsynced, and the file that told tools where Redis was is gone
    assert "ready to exit" in (served.data_dir / "redis.log").read_text()
    assert not (served.data_dir / "redis.url").exists()
    assert "child_died" not in names  # nothing died on its own, so nothing was restarted meanwhile
    return log


def assert_finished_after_the_signal(log: str, expert_pid: int, gid: str, version: int) -> None:
    """The expert worker got the signal while it played (gid, version), and finished that turn."""
    asked = log.index(f"[PID {expert_pid}]: warm shut down requested")
    done = log.index(f"Successfully completed service.jobs.turns.play_turn('{gid}', {version})")
    assert asked < done, "the turn was over before the worker was asked to stop"


def saved_version(data_dir: Path, gid: str) -> int:
    """The game's version as the embedded Redis saved it (its AOF read back by a fresh server)."""
    with EmbeddedRedis(data_dir) as server:
        client = redis.Redis.from_url(server.url)
        try:
            return int(client.hget(game_key(gid), "version") or -1)
        finally:
            client.close()


@pytest.mark.parametrize("delivery", DELIVERIES)
@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_serve_cleanly_streams_told_to_reconnect_and_bot_turns_finished(
    tmp_path: Path, signum: signal.Signals, delivery: str
) -> None:
    rng = random.Random(int(signum) * 10 + len(delivery))
    with serving(tmp_path) as served, httpx.Client(base_url=served.base, timeout=20) as http:
        connection = redis_of(tmp_path)
        wait_for(lambda: len(Worker.all(connection=connection)) == 3, "the three workers")
        connection.close()
        table = bots_game(http)
        a_bot_moves(table, rng)  # the fast worker plays
        bot = http.post("/v1/bots", json={"name": "listener"})
        assert bot.status_code == 201, bot.text
        streams = Streams()
        streams.open(served.base, table.game_id, bot.json()["api_key"])
        expert = child_pid(served.proc.pid, "--queues expert")
        assert expert is not None
        gid, version = expert_turn_in_progress(served)  # the expert worker is busy
        every = descendants(served.proc.pid)
        served.pids += every
        assert len(every) >= 7, every  # redis-server, three workers and their RQ schedulers
        send(served.proc, signum, delivery)
        assert served.proc.wait(90) == 0
        streams.join()
    log = assert_stopped_cleanly(served, every, signum.name)
    assert_finished_after_the_signal(log, expert, gid, version)
    assert saved_version(served.data_dir, gid) > version  # the turn's move was saved

    # each stream was ended by the server with a notice saying when to come back, never cut
    assert streams.ended == {"sse": "cleanly", "ndjson": "cleanly", "graphql": "closed 1012"}, streams.ended
    assert "event: server_closing" in streams.sse, streams.sse[-6:]
    assert "retry: 1000" in streams.sse
    assert streams.ndjson[-1]["type"] == "server_closing", streams.ndjson[-3:]
    assert streams.ndjson[-1]["retry_after"] == 1
    # the subscription's last result is the server_closing error (resume after its last event), and
    # it is completed before the WebSocket is closed with 1012 (Service Restart: reconnect)
    *_, last_result, completed = streams.graphql
    assert completed == {"id": "1", "type": "complete"}, streams.graphql[-3:]
    error = last_result["payload"]["errors"][0]["extensions"]
    assert error["code"] == "server_closing" and error["retry_after"] == 1, last_result
    assert error["last_event_id"]


def test_sigterm_after_a_redis_restart_still_stops_the_workers_before_redis(tmp_path: Path) -> None:
    """A redis-server restarted by the supervisor's thread is tied to that thread's life
    (PR_SET_PDEATHSIG): it must not be stopped before the workers have finished, at the shutdown."""
    with serving(tmp_path) as served, httpx.Client(base_url=served.base, timeout=20) as http:
        old = child_pid(served.proc.pid, "redis-server")
        assert old is not None
        served.pids.append(old)
        os.kill(old, signal.SIGKILL)
        wait_for(lambda: child_pid(served.proc.pid, "redis-server") not in (None, old), "a new redis-server")
        wait_for(lambda: http.get("/readyz").status_code == 200, "the API to reach the restarted Redis")
        connection = redis_of(tmp_path)
        wait_for(lambda: len(Worker.all(connection=connection)) == 3, "the three workers to be back")
        connection.close()
        expert = child_pid(served.proc.pid, "--queues expert")
        assert expert is not None
        gid, version = expert_turn_in_progress(served)
        every = descendants(served.proc.pid)
        served.pids += every
        outage = len(served.log())  # the workers said they could not reach Redis while it was down
        served.proc.send_signal(signal.SIGTERM)
        assert served.proc.wait(90) == 0
    wait_for(lambda: all(gone(p) for p in every), f"every child of atout serve to stop: {every}", 30)
    log = served.log()[outage:]
    assert not noise_in(log), f"{noise_in(log)} in the log of a shutdown after a Redis restart"
    assert_finished_after_the_signal(log, expert, gid, version)
    events = events_of(log)
    stopped = [e["child"] for e in events if e["event"] == "child_stopped"]
    assert stopped[-1] == "redis-server" and len(stopped) == 5, stopped  # three workers, the matcher, Redis
    assert all(e["exit_code"] == 0 for e in events if e["event"] == "child_stopped")
    assert not (served.data_dir / "redis.url").exists()


# --- atout worker, alone -----------------------------------------------------------------------


@contextmanager
def lone_worker(redis_url: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path, list[int]]]:
    """`atout worker` on its own (as a Kubernetes worker pod runs it), in a session of its own."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "PYTHONPATH": str(ROOT),
        "ATOUT_LOG_JSON": "true",
        "ATOUT_BOT_BUDGET": BUDGET,
    }
    log_path = tmp_path / "worker.log"
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "worker"],
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    pids = [worker.pid]
    try:
        yield worker, log_path, pids
    except BaseException:
        print("atout worker's log:\n" + log_path.read_text(errors="replace")[-4000:])
        raise
    finally:
        pids += descendants(worker.pid)
        if worker.poll() is None:
            worker.kill()
            worker.wait(30)
        kill_leftovers(pids)


def assert_worker_stopped_cleanly(log: str, signame: str) -> None:
    assert not noise_in(log), f"{noise_in(log)} in the log of a worker's {signame} shutdown:\n{log[-3000:]}"
    assert '"event": "worker_stopped"' in log
    # no RQ pubsub thread (it sleeps 60 s between reads, and closing it could hang the shutdown)
    assert "subscribing to channel" not in log


@pytest.mark.parametrize("delivery", DELIVERIES)
@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_an_idle_lone_worker_cleanly_with_its_scheduler(
    redis_url: str, tmp_path: Path, signum: signal.Signals, delivery: str
) -> None:
    """A warm shutdown: its RQ scheduler process gone with it, unregistered, exit 0, no traceback."""
    with lone_worker(redis_url, tmp_path) as (worker, log_path, pids):
        connection = redis.Redis.from_url(redis_url)
        try:
            wait_for(lambda: len(Worker.all(connection=connection)) == 1, "the worker to register")
            # the scheduler registers once it has its own signal handlers
            wait_for(lambda: any(connection.scan_iter(SCHEDULER_KEY_TEMPLATE % "*")), "its RQ scheduler")
            every = descendants(worker.pid)
            pids += every
            send(worker, signum, delivery)
            assert worker.wait(60) == 0
            wait_for(lambda: all(gone(p) for p in every), "the worker's scheduler to stop", 30)
            assert Worker.all(connection=connection) == []  # it unregistered itself
        finally:
            connection.close()
    assert_worker_stopped_cleanly(log_path.read_text(errors="replace"), signum.name)


@pytest.mark.parametrize("delivery", DELIVERIES)
@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_lets_a_lone_worker_finish_the_bot_turn_it_is_playing(
    client: TestClient, redis_url: str, tmp_path: Path, signum: signal.Signals, delivery: str
) -> None:
    """An expert bot thinking ``BUDGET`` seconds when the signal comes: the move is made, then the
    worker exits 0 (the job is neither cut nor left "started" for the watchdog)."""
    first = engine.new_match("rough", seed=17).to_act
    assert first is not None
    seats = ["bot:expert" if s == first else "open" for s in range(4)]
    body = {"kind": "rough", "seed": "17", "seats": seats}  # a chosen seed: the administrator's
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    for seat in range(4):
        if seat != first:
            assert client.post(f"/v1/games/{gid}/join", json={"seat": seat}).status_code == 201
    connection = redis.Redis.from_url(redis_url)
    registry = StartedJobRegistry(queue=Queue(EXPERT_QUEUE, connection=connection, serializer=JSONSerializer))
    try:
        with lone_worker(redis_url, tmp_path) as (worker, log_path, pids):
            wait_for(
                lambda: bot_jobs.job_id(gid, 0) in registry.get_job_ids(), "the worker to start the turn"
            )
            wait_for(lambda: any(connection.scan_iter(SCHEDULER_KEY_TEMPLATE % "*")), "its RQ scheduler")
            every = descendants(worker.pid)
            pids += every
            send(worker, signum, delivery)
            assert worker.wait(60) == 0
            wait_for(lambda: all(gone(p) for p in every), "the worker's scheduler to stop", 30)
        assert client.get(f"/v1/games/{gid}").json()["version"] == 1  # the bot's move was made
        assert bot_jobs.job_id(gid, 0) not in registry.get_job_ids()
        assert Worker.all(connection=connection) == []
    finally:
        connection.close()
    log = log_path.read_text(errors="replace")
    assert_worker_stopped_cleanly(log, signum.name)
    assert_finished_after_the_signal(log, worker.pid, gid, 0)
