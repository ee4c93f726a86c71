"""What an operator sees: every metric that pages someone moves after the event it reports, with the
labels the dashboard reads, and one request id ties a response, its problem and its log lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from rq.utils import utcformat
from starlette.testclient import TestClient
from svc_helpers import auth, seated, served_app

from service.api.app import create_app
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.runtime.embedded_redis import EmbeddedRedis, free_port
from workers.jobs import queue as bot_jobs
from workers.jobs import turns as bot_turns

ROOT = Path(__file__).resolve().parents[2]
ACTIONS_ROUTE = "/v1/games/{game_id}/actions"
GENERATED_ID = re.compile(r"[0-9a-f]{24}")


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample ``name`` whose labels include ``labels``; None when there is none."""
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return None


def value(text: str, name: str, **labels: str) -> float:
    found = sample(text, name, **labels)
    return 0.0 if found is None else found


def scrape(client: TestClient) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    return response.text


# --- metrics ----------------------------------------------------------------------------------


def test_an_action_is_timed_under_its_route_and_counted(client: TestClient) -> None:
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    assert table.act(seat, {"type": "pass"}).status_code == 200
    text = scrape(client)
    timed = sample(text, "atout_http_request_duration_seconds_count", route=ACTIONS_ROUTE, method="POST")
    assert timed == 1.0
    assert sample(text, "atout_http_requests_total", route=ACTIONS_ROUTE, method="POST", status="200") == 1
    assert sample(text, "atout_actions_total", game="rough", outcome="applied") == 1


def test_a_refused_request_is_counted_by_its_code_on_rest_and_graphql(client: TestClient) -> None:
    before = scrape(client)
    assert client.get("/v1/games/nope").json()["code"] == "game_not_found"
    answer = client.post("/graphql", json={"query": '{ game(gameId: "nope") { gameId } }'})
    assert answer.json()["errors"][0]["extensions"]["code"] == "game_not_found"
    after = scrape(client)
    for api in ("rest", "graphql"):
        counted = value(after, "atout_errors_total", api=api, code="game_not_found")
        assert counted - value(before, "atout_errors_total", api=api, code="game_not_found") == 1


def test_active_games_are_read_from_the_index_of_unfinished_games(client: TestClient) -> None:
    assert value(scrape(client), "atout_store_up") == 1
    assert sample(scrape(client), "atout_active_games") == 0
    seated(client, "rough")
    client.post("/v1/games", json={"kind": "five_hundred"})  # waiting for players: unfinished too
    assert sample(scrape(client), "atout_active_games") == 2


def test_queue_depth_and_the_age_of_the_oldest_job(client: TestClient, settings: Settings) -> None:
    connection = bot_jobs.connect(settings.redis_url or "")
    try:
        text = scrape(client)
        assert sample(text, "atout_queue_depth", queue=settings.bot_queue) == 0
        assert sample(text, "atout_queue_oldest_job_age_seconds", queue=settings.bot_queue) == 0
        bot_jobs.enqueue(connection, settings.bot_queue, "nogame", 1, "random")  # no worker runs here
        bot_jobs.enqueue(connection, settings.bot_queue, "nogame", 2, "random")
        past = datetime.now(UTC) - timedelta(seconds=90)
        connection.hset(f"rq:job:{bot_jobs.job_id('nogame', 1)}", "enqueued_at", utcformat(past))
        text = scrape(client)
    finally:
        connection.close()
    assert sample(text, "atout_queue_depth", queue=settings.bot_queue) == 2
    age = sample(text, "atout_queue_oldest_job_age_seconds", queue=settings.bot_queue)
    assert age is not None and 89 < age < 600, age
    expert = f"{settings.bot_queue}-expert"
    assert sample(text, "atout_queue_depth", queue=expert) == 0
    assert sample(text, "atout_queue_oldest_job_age_seconds", queue=expert) == 0


def test_open_streams_are_counted_while_they_are_open(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"sse_block_ms": 200}))
    with served_app(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        created = http.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
        token = http.post(f"/v1/games/{created}/join", json={"seat": 0}).json()["token"]
        assert value(http.get("/metrics").text, "atout_open_streams") == 0
        with httpx.stream("GET", f"{base}/v1/games/{created}/events", headers=auth(token), timeout=30) as r:
            assert r.status_code == 200
            assert value(http.get("/metrics").text, "atout_open_streams") == 1
        deadline = time.monotonic() + 30
        while value(http.get("/metrics").text, "atout_open_streams") != 0:
            assert time.monotonic() < deadline, "the closed stream is still counted"
            time.sleep(0.05)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A redis-server of this test's own (it is killed), not the session's."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


def test_a_redis_outage_is_counted_and_scrapes_still_answer(
    own_redis: EmbeddedRedis, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(redis_url=own_redis.url, sse_block_ms=200)
    with served_app(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as http:
        before = http.get("/metrics").text
        assert value(before, "atout_store_up") == 1
        assert own_redis.process is not None
        own_redis.process.kill()  # by PID
        own_redis.process.wait(30)
        refused = http.get("/v1/games/somegame", headers={"X-Request-ID": "outage-1"})
        assert refused.status_code == 503 and refused.json()["code"] == "store_unavailable"
        assert refused.json()["instance"] == "urn:atout:request:outage-1"
        after = http.get("/metrics")
    assert after.status_code == 200
    labels = {"operation": "request", "error": "ConnectionError"}
    grown = value(after.text, "atout_redis_errors_total", **labels)
    assert grown - value(before, "atout_redis_errors_total", **labels) >= 1
    stored = value(after.text, "atout_errors_total", api="rest", code="store_unavailable")
    assert stored - value(before, "atout_errors_total", api="rest", code="store_unavailable") == 1
    assert value(after.text, "atout_store_up") == 0
    assert value(after.text, "atout_redis_errors_total", operation="metrics") >= 1
    assert "atout_active_games" not in after.text  # not a stale figure: left out
    # the warning logged inside the route and the access line both carry the request's id
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "outage-1" in line]
    assert {line["event"] for line in lines} >= {"store_fault", "request"}
    assert all(line["request_id"] == "outage-1" for line in lines)


def test_a_redis_fault_in_a_worker_job_is_counted_and_raised_again() -> None:
    from service.base.counters import PROCESS

    def count() -> float:
        text = generate_latest(PROCESS).decode()
        return value(text, "atout_redis_errors_total", operation="worker", error="ConnectionError")

    def lost() -> str:
        raise redis.ConnectionError("Error 111 connecting to 10.0.0.7:6379")

    def refused() -> str:
        raise ProblemError("game_not_found", "no such game")

    before = count()
    with pytest.raises(redis.ConnectionError):
        bot_turns._counting_faults(lost)
    with pytest.raises(ProblemError):
        bot_turns._counting_faults(refused)  # not a Redis fault: not counted
    assert count() - before == 1


def worker_env(redis_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(REDIS_URL=redis_url, ATOUT_BOT_BUDGET="0.01", PYTHONPATH=str(ROOT), **extra)
    return env


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_a_standalone_worker_serves_its_bot_decision_time(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    port = free_port()
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "worker", "--metrics-port", str(port)],
        env=worker_env(settings.redis_url or ""),
        stdout=log,
        stderr=log,
    )
    try:
        game = client.post("/v1/games", json={"kind": "rough", "seats": ["bot:random"] * 4}).json()["game"]
        assert game["status"] == "active"
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "worker.log").read_text()
            try:
                text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
            except httpx.TransportError:
                text = ""
            timed = value(text, "atout_bot_decision_seconds_count", game="rough", level="random")
            if timed >= 1:
                break
            assert time.monotonic() < deadline, "no bot decision was timed"
            time.sleep(0.1)
        assert sample(text, "atout_bot_decision_seconds_bucket", game="rough", level="random", le="+Inf")
        assert client.get(f"/v1/games/{game['game_id']}").json()["version"] >= 1  # it really moved
    finally:
        stop(proc)
        log.close()


def test_under_atout_serve_worker_metrics_reach_the_shared_directory(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    """``atout serve`` gives its workers ``PROMETHEUS_MULTIPROC_DIR``: what a worker observes lands in
    files there, which the API's /metrics adds up (read here as that endpoint reads them)."""
    shared = tmp_path / "metrics"
    shared.mkdir()
    body = {"kind": "euchre5", "options": {"target_score": 5}, "seats": ["bot:heuristic"] * 5}
    game = client.post("/v1/games", json=body).json()["game"]
    done = subprocess.run(
        [sys.executable, "-m", "service.runtime.cli", "worker", "--burst", "--metrics-port", "0"],
        env=worker_env(settings.redis_url or "", PROMETHEUS_MULTIPROC_DIR=str(shared)),
        capture_output=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    moves = client.get(f"/v1/games/{game['game_id']}").json()["version"]
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(shared))  # type: ignore[no-untyped-call]
    text = generate_latest(registry).decode()
    timed = value(text, "atout_bot_decision_seconds_count", game="euchre5", level="heuristic")
    assert moves >= 1 and timed >= 1


def test_metric_names_the_dashboard_reads_are_all_exposed(client: TestClient) -> None:
    seated(client, "rough")
    client.get("/v1/games/nope")
    text = scrape(client)
    families = {f.name for f in text_string_to_metric_families(text)}
    expected = {
        "atout_http_requests",
        "atout_http_request_duration_seconds",
        "atout_errors",
        "atout_redis_errors",
        "atout_open_streams",
        "atout_active_games",
        "atout_queue_depth",
        "atout_queue_oldest_job_age_seconds",
        "atout_bot_decision_seconds",
        "atout_store_up",
        "atout_games_created",
        "atout_actions",
        "atout_version_conflicts",
    }
    assert expected <= families, expected - families


# --- request id -------------------------------------------------------------------------------


def test_a_sane_request_id_is_echoed(client: TestClient) -> None:
    for rid in ("abc-123", "3f9c2a7e-1b4d-4c6a-8e5f-9b21aa001122", "lb01:trace/42+x=="):
        assert client.get("/healthz", headers={"X-Request-ID": rid}).headers["x-request-id"] == rid


def test_a_request_id_is_generated_when_absent_and_differs_per_request(client: TestClient) -> None:
    first = client.get("/healthz").headers["x-request-id"]
    second = client.get("/healthz").headers["x-request-id"]
    assert GENERATED_ID.fullmatch(first) and GENERATED_ID.fullmatch(second) and first != second


@pytest.mark.parametrize("bad", ["x" * 129, "has space", 'quo"te', "semi;colon", "tab\there", "é"])
def test_an_unsafe_request_id_is_replaced(client: TestClient, bad: str) -> None:
    response = client.get("/healthz", headers={"X-Request-ID": bad.encode("utf-8")})  # type: ignore[dict-item]
    echoed = response.headers["x-request-id"]
    assert echoed != bad and GENERATED_ID.fullmatch(echoed)


def test_a_problem_names_its_request_in_instance(client: TestClient) -> None:
    refused = client.get("/v1/games/nope", headers={"X-Request-ID": "trace-7"})
    assert refused.json()["instance"] == "urn:atout:request:trace-7"
    anonymous = client.get("/v1/games/nope")
    assert anonymous.json()["instance"] == f"urn:atout:request:{anonymous.headers['x-request-id']}"
    too_large = client.post("/v1/games", content=b"{}" * 70_000, headers={"Content-Type": "application/json"})
    assert too_large.status_code == 413
    assert too_large.json()["instance"] == f"urn:atout:request:{too_large.headers['x-request-id']}"


def test_a_graphql_error_names_its_request_in_extensions(client: TestClient) -> None:
    answer = client.post(
        "/graphql", json={"query": '{ game(gameId: "nope") { gameId } }'}, headers={"X-Request-ID": "gql-1"}
    )
    assert answer.headers["x-request-id"] == "gql-1"
    assert answer.json()["errors"][0]["extensions"]["instance"] == "urn:atout:request:gql-1"


def test_the_log_lines_of_a_request_carry_its_id(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    client.get("/v1/games/nope", headers={"X-Request-ID": "logged-1"})
    client.get("/v1/rules", headers={"X-Request-ID": "logged-2"})
    lines: list[dict[str, Any]] = [
        json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")
    ]
    ours = [line for line in lines if line.get("request_id") == "logged-1"]
    assert [line["event"] for line in ours] == ["request"] and ours[0]["status"] == 404
    assert [line["request_id"] for line in lines if line["event"] == "request"] == ["logged-1", "logged-2"]


def test_the_browser_may_send_and_read_the_request_id(client: TestClient) -> None:
    preflight = client.options(
        "/v1/games",
        headers={
            "Origin": "https://cards.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-request-id",
        },
    )
    assert preflight.status_code == 200
    response = client.get("/v1/rules", headers={"Origin": "https://cards.example"})
    assert "x-request-id" in response.headers["access-control-expose-headers"].lower()


def test_request_ids_in_metrics_are_never_labels(client: TestClient) -> None:
    """An id per request as a label would grow the series without bound."""
    client.get("/healthz", headers={"X-Request-ID": "never-a-label"})
    assert "never-a-label" not in scrape(client)


def test_the_live_gauges_of_a_dead_process_are_dropped_at_scrape(tmp_path: Path) -> None:
    """A uvicorn worker killed with streams open must not leave them counted for ever."""
    from service.api.metrics import forget_dead_processes

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(30)  # reaped: its pid names no process now
    dead = tmp_path / f"gauge_livesum_{gone.pid}.db"
    alive = tmp_path / f"gauge_livesum_{os.getpid()}.db"
    counter = tmp_path / f"counter_{gone.pid}.db"  # a dead process's counts still add up
    for path in (dead, alive, counter):
        path.write_bytes(b"")
    forget_dead_processes(str(tmp_path))
    assert not dead.exists() and alive.exists() and counter.exists()
