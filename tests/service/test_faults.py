"""Redis killed under a running API: every call answers 503 store_unavailable (never a 500, a reset
connection or an internal address), and once the same redis-server is back the API just works."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from svc_helpers import served_app

from service.api.app import create_app
from service.base.settings import Settings
from service.runtime.embedded_redis import EmbeddedRedis
from service.store.faults import store_fault

ADMIN = "admin-for-fault-tests"


@dataclass
class Stack:
    redis: EmbeddedRedis
    base: str
    http: httpx.Client  # one keep-alive connection, reused across the outage


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    """Its own redis-server (not the session one: this test kills it) and the API served by uvicorn."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    settings = Settings(redis_url=server.url, admin_token=ADMIN, sse_block_ms=200)
    try:
        with served_app(create_app(settings)) as base, httpx.Client(base_url=base, timeout=20) as http:
            yield Stack(server, base, http)
    finally:
        server.stop()


def kill_redis(server: EmbeddedRedis) -> None:
    assert server.process is not None
    server.process.kill()  # by PID: Popen.kill signals this very process
    server.process.wait(30)


def seated_game(http: httpx.Client) -> tuple[str, list[str]]:
    created = http.post("/v1/games", json={"kind": "rough"})
    assert created.status_code == 201, created.text
    gid = created.json()["game"]["game_id"]
    tokens = []
    for seat in range(4):
        joined = http.post(f"/v1/games/{gid}/join", json={"seat": seat, "name": f"p{seat}"})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    return gid, tokens


def every_endpoint(gid: str, token: str, bot_key: str) -> list[tuple[str, str, dict[str, Any]]]:
    seat = {"Authorization": f"Bearer {token}"}
    bot = {"Authorization": f"Bearer {bot_key}"}
    return [
        ("GET", "/v1/games", {}),
        ("POST", "/v1/games", {"json": {"kind": "five_hundred"}}),
        ("GET", f"/v1/games/{gid}", {}),
        ("POST", f"/v1/games/{gid}/join", {"json": {"name": "late"}}),
        ("POST", f"/v1/games/{gid}/leave", {"headers": seat}),
        ("POST", f"/v1/games/{gid}/rematch", {"headers": seat}),
        ("GET", f"/v1/games/{gid}/view", {"headers": seat}),
        ("GET", f"/v1/games/{gid}/actions", {"headers": seat}),
        ("POST", f"/v1/games/{gid}/actions", {"headers": seat, "json": {"action": {"type": "pass"}}}),
        ("GET", f"/v1/games/{gid}/events?follow=false", {"headers": seat}),
        ("GET", f"/v1/games/{gid}/events", {"headers": seat}),
        ("GET", f"/v1/games/{gid}/log", {}),
        ("POST", "/v1/bots", {"json": {"name": "outage-bot"}}),
        ("GET", "/v1/bots/me", {"headers": bot}),
        ("GET", "/v1/bots/me/stream", {"headers": bot}),
        ("GET", "/readyz", {}),
    ]


def graphql_calls(gid: str) -> list[dict[str, Any]]:
    return [
        {"query": "query($id: ID!) { game(gameId: $id) { gameId version } }", "variables": {"id": gid}},
        {"query": "mutation { createGame(input: {kind: ROUGH}) { game { gameId } } }"},
    ]


def leaks_nothing(text: str, server: EmbeddedRedis) -> bool:
    return not any(s in text for s in ("127.0.0.1", str(server.port), "Error 111", server.password))


def test_with_redis_killed_every_call_is_a_503_and_with_it_back_everything_works(stack: Stack) -> None:
    http, server = stack.http, stack.redis
    gid, tokens = seated_game(http)
    bot = http.post("/v1/bots", json={"name": "before-outage"})
    assert bot.status_code == 201, bot.text
    bot_key = bot.json()["api_key"]
    calls = every_endpoint(gid, tokens[0], bot_key)

    kill_redis(server)
    for method, path, options in calls:
        response = http.request(method, path, **options)  # the same keep-alive connection every time
        assert response.status_code == 503, (method, path, response.status_code, response.text)
        assert response.headers["content-type"] == "application/problem+json", path
        assert response.json()["code"] == "store_unavailable", (path, response.text)
        assert int(response.headers["Retry-After"]) > 0, path
        assert leaks_nothing(response.text, server), (path, response.text)
    for body in graphql_calls(gid):
        response = http.post("/graphql", json=body)
        assert response.status_code in (200, 503), response.text
        errors = response.json()["errors"]
        assert [e["extensions"]["code"] for e in errors] == ["store_unavailable"], response.text
        assert errors[0]["extensions"]["retry_after"] > 0, response.text
        assert int(response.headers["Retry-After"]) > 0, response.text  # as a REST problem says it
        assert leaks_nothing(response.text, server), response.text
    assert http.get("/healthz").status_code == 200  # liveness does not depend on Redis

    server.restart()  # same port, password and AOF: the API was not told anything
    game = http.get(f"/v1/games/{gid}")
    assert game.status_code == 200, game.text
    assert game.json()["status"] == "active"
    view = http.get(f"/v1/games/{gid}/view", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert view.status_code == 200, view.text
    assert http.post("/v1/games", json={"kind": "rough"}).status_code == 201
    assert http.get("/readyz").json()["store"] == "ok"
    response = http.post("/graphql", json=graphql_calls(gid)[0])
    assert response.json()["data"]["game"]["gameId"] == gid, response.text


def test_a_full_store_refuses_writes_with_503_server_full_and_keeps_every_game(stack: Stack) -> None:
    """maxmemory with noeviction: writes are refused, nothing is evicted, reads still work."""
    http, server = stack.http, stack.redis
    gid, _ = seated_game(http)
    admin = redis.Redis.from_url(server.url)
    try:
        admin.config_set("maxmemory", 1)  # one byte: full now, whatever is stored
        response = http.post("/v1/games", json={"kind": "rough"})
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "server_full" and response.headers["Retry-After"]
        assert leaks_nothing(response.text, server)
        assert "OOM" not in response.text
        assert http.get(f"/v1/games/{gid}").status_code == 200
        gql = http.post("/graphql", json=graphql_calls(gid)[1]).json()
        assert [e["extensions"]["code"] for e in gql["errors"]] == ["server_full"], json.dumps(gql)
    finally:
        admin.config_set("maxmemory", "512mb")
        admin.close()
    assert http.post("/v1/games", json={"kind": "rough"}).status_code == 201


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (
            redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused."),
            "store_unavailable",
        ),
        (redis.exceptions.TimeoutError("Timeout reading from 10.0.0.7:6379"), "store_unavailable"),
        (redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"), "store_unavailable"),
        (redis.exceptions.ReadOnlyError("You can't write against a read only replica."), "store_unavailable"),
        (redis.exceptions.ResponseError("MASTERDOWN Link with MASTER is down"), "store_unavailable"),
        (redis.exceptions.ResponseError("BUSY Redis is busy running a script."), "store_unavailable"),
        (
            redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."),
            "server_full",
        ),
        (
            redis.exceptions.ResponseError(
                "Error running script (call to f_1): @user_script:5: -OOM command not allowed when used"
            ),
            "server_full",
        ),
        (redis.exceptions.MaxConnectionsError("Too many connections"), "server_full"),
    ],
)
def test_each_kind_of_redis_fault_is_a_503_that_names_no_internal_detail(error: Exception, code: str) -> None:
    problem = store_fault(error)
    assert problem is not None and problem.code == code and problem.status == 503
    assert int(problem.headers["Retry-After"]) > 0
    assert str(error) not in problem.detail and "6379" not in problem.detail and "OOM" not in problem.detail


def test_a_redis_error_that_is_our_bug_is_not_disguised_as_an_outage() -> None:
    assert store_fault(redis.exceptions.ResponseError("WRONGTYPE Operation against a key")) is None
    assert store_fault(ValueError("not redis")) is None


def test_a_redis_fault_outside_the_routes_is_a_503_too() -> None:
    """A middleware that counts in Redis (a rate limiter) fails before any route: same answer."""
    from starlette.testclient import TestClient
    from starlette.types import Receive, Scope, Send

    from service.api.edge import EdgeMiddleware

    async def counting_in_redis(scope: Scope, receive: Receive, send: Send) -> None:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    response = TestClient(EdgeMiddleware(counting_in_redis)).get("/v1/games")  # no lifespan
    assert response.status_code == 503 and response.json()["code"] == "store_unavailable"
    assert "127.0.0.1" not in response.text and response.headers["Retry-After"]


def test_a_hung_redis_is_a_503_after_a_bounded_wait_and_then_the_api_recovers(stack: Stack) -> None:
    """SIGSTOP: connections stay open but nothing answers; the wait is bounded by the socket timeout
    (the SSE block time + 5 s), not the minute it was, and the request is not retried on a timeout."""
    import os
    import signal

    http, server = stack.http, stack.redis
    gid, _ = seated_game(http)
    assert server.pid is not None
    os.kill(server.pid, signal.SIGSTOP)
    try:
        response = http.get(f"/v1/games/{gid}", timeout=30)
        assert response.status_code == 503, response.text
        assert response.json()["code"] == "store_unavailable" and leaks_nothing(response.text, server)
    finally:
        os.kill(server.pid, signal.SIGCONT)
    assert http.get(f"/v1/games/{gid}").status_code == 200


def test_a_stream_open_when_redis_dies_ends_with_a_lagged_notice_not_a_cut(stack: Stack) -> None:
    """An SSE answer has started before Redis fails under it, so it cannot become a 503: it ends
    with `event: lagged` naming the last event delivered (reconnect with it), never a reset."""
    http, server = stack.http, stack.redis
    gid, tokens = seated_game(http)
    with (
        httpx.Client(timeout=30) as reader,
        reader.stream(
            "GET", f"{stack.base}/v1/games/{gid}/events", headers={"Authorization": f"Bearer {tokens[0]}"}
        ) as sse,
    ):
        lines = sse.iter_lines()
        first_id = next(line for line in lines if line.startswith("id: ")).removeprefix("id: ")
        kill_redis(server)  # the stream's idle check (every 200 ms here) then meets the dead store
        rest = list(lines)
    assert "event: lagged" in rest, rest[-6:]
    notice = json.loads(next(line for line in rest if line.startswith("data: ") and '"lagged"' in line)[6:])
    assert notice["last_event_id"] >= first_id
    assert leaks_nothing("\n".join(rest), server)
