"""Open streams cannot starve the rest (issue 9, finding 4): they read through one hub per process on
a Redis pool of their own, and are capped per client and per process with a clear refusal."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from redis.crc import key_slot
from starlette.applications import Starlette
from starlette.testclient import TestClient
from svc_helpers import auth, seated, served_app

from service.api.app import create_app
from service.base.settings import Settings
from service.store.fanout import Fanout, StreamLagged
from service.store.keys import bot_turns_key, events_key

STREAM_QUERY = "subscription($id: ID!) { gameEvents(gameId: $id) { id version event { __typename } } }"


def with_request_pool(url: str, size: int) -> str:
    """The Redis URL with a request pool of ``size`` connections (redis-py reads it from the URL)."""
    return f"{url}{'&' if '?' in url else '?'}max_connections={size}"


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[tuple[str, Starlette]]:
    """The app under uvicorn on a free port in a thread (streams need a real HTTP server)."""

    app = create_app(settings.model_copy(update={"sse_block_ms": 500, "rate_limits": False}))
    with served_app(app) as base:
        try:
            yield base, app
        finally:
            deadline = time.monotonic() + 10  # let closed streams wind down before the loop closes
            while app.state.streams.open_streams and time.monotonic() < deadline:
                time.sleep(0.02)


def hub_of(app: Starlette) -> Fanout:
    hub: Fanout = app.state.streams
    return hub


def wait_until(condition: Any, what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def first_move(table: Any) -> tuple[int, dict[str, Any]]:
    game = table.game()
    seat = game["to_act"]
    return seat, table.legal(seat)[0]


async def sse_reader(response: httpx.Response, into: list[dict[str, Any]]) -> None:
    """Append each SSE event (its data) to ``into`` until the stream ends."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if not line:
            if "data" in fields:
                into.append({"event": fields.get("event"), **json.loads(fields["data"])})
            fields = {}
        elif not line.startswith(":") and ": " in line:
            key, value = line.split(": ", 1)
            fields[key] = value


def test_finding_4_streams_beyond_the_request_pool_leave_every_request_working(
    settings: Settings, redis_url: str
) -> None:
    """150 anonymous streams on a process whose request pool has 20 connections (the finding: ~100
    streams emptied the pool of 100): create, join, act and view still answer 2xx, and every stream
    gets every event of its game."""
    config = settings.model_copy(
        update={"redis_url": with_request_pool(redis_url, 20), "streams_per_client": 1000}
    )
    with served(config) as (base, app), httpx.Client(base_url=base, timeout=30) as http:
        tables = [seated(http, "rough") for _ in range(3)]  # type: ignore[arg-type]
        received: list[list[dict[str, Any]]] = [[] for _ in range(150)]

        async def scenario() -> None:
            limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
            async with (
                httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client,
                contextlib.AsyncExitStack() as stack,
            ):
                readers = []
                for i in range(150):
                    gid = tables[i % 3].game_id
                    response = await stack.enter_async_context(
                        client.stream("GET", f"/v1/games/{gid}/events")
                    )
                    assert response.status_code == 200
                    readers.append(asyncio.create_task(sse_reader(response, received[i])))
                while not all(received):  # every stream has its backlog: it is subscribed
                    await asyncio.sleep(0.05)
                assert hub_of(app).open_streams == 150 and hub_of(app).followed == 3
                await asyncio.to_thread(play_and_check_requests)
                for i in range(150):
                    target = versions[i % 3]
                    while not any(e.get("version") == target for e in received[i]):
                        await asyncio.sleep(0.05)
                for task in readers:
                    task.cancel()

        versions: dict[int, int] = {}

        def play_and_check_requests() -> None:
            created = http.post("/v1/games", json={"kind": "rough"})
            assert created.status_code == 201, created.text
            gid = created.json()["game"]["game_id"]
            for seat in range(4):
                joined = http.post(f"/v1/games/{gid}/join", json={"seat": seat, "name": f"p{seat}"})
                assert joined.status_code == 201, joined.text
            for n, table in enumerate(tables):
                seat, action = first_move(table)
                acted = http.post(
                    f"/v1/games/{table.game_id}/actions",
                    json={"action": action},
                    headers=auth(table.tokens[seat]),
                )
                assert acted.status_code == 200, acted.text
                versions[n] = acted.json()["version"]
                view = http.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat]))
                assert view.status_code == 200, view.text

        asyncio.run(asyncio.wait_for(scenario(), 120))
        for n, table in enumerate(tables):
            everything = http.get(f"/v1/games/{table.game_id}/events?follow=false").text
            ids = [
                json.loads(line[6:])["id"] for line in everything.splitlines() if line.startswith("data: ")
            ]
            for i in range(n, 150, 3):
                assert [e["id"] for e in received[i]] == ids
        wait_until(lambda: hub_of(app).open_streams == 0, "the streams to be released")


def test_past_its_cap_a_client_gets_429_too_many_streams_and_a_closed_stream_frees_its_slot(
    settings: Settings,
) -> None:
    with (
        served(settings.model_copy(update={"streams_per_client": 2})) as (base, app),
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        table = seated(http, "rough")  # type: ignore[arg-type]
        url = f"{base}/v1/games/{table.game_id}/events"
        mine = auth(table.tokens[0])
        with (
            httpx.Client(timeout=30) as one,
            httpx.Client(timeout=30) as two,
            httpx.Client(timeout=30) as three,
            one.stream("GET", url, headers=mine) as first,
            two.stream("GET", url, headers=mine) as second,
        ):
            assert first.status_code == second.status_code == 200
            refused = three.get(url, headers=mine)
            assert refused.status_code == 429
            assert refused.headers["content-type"].startswith("application/problem+json")
            assert refused.json()["code"] == "too_many_streams" and int(refused.headers["Retry-After"]) > 0
            # the cap is per token: another seat (or a spectator, counted by address) still gets one
            with three.stream("GET", url, headers=auth(table.tokens[1])) as other:
                assert other.status_code == 200
            first.close()
            one.close()
            # open: only `second` (`other` ended with its block, `first` was just closed)
            wait_until(lambda: hub_of(app).open_streams == 1, "the closed stream's slot to be freed")
            with three.stream("GET", url, headers=mine) as again:
                assert again.status_code == 200


def test_past_the_process_cap_a_stream_gets_503_server_full(settings: Settings) -> None:
    with (
        served(settings.model_copy(update={"streams_per_process": 2})) as (base, _app),
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        table = seated(http, "rough")  # type: ignore[arg-type]
        url = f"{base}/v1/games/{table.game_id}/events"
        with (
            httpx.Client(timeout=30) as one,
            httpx.Client(timeout=30) as two,
            httpx.Client(timeout=30) as three,
            one.stream("GET", url, headers=auth(table.tokens[0])) as a,
            two.stream("GET", url) as b,
        ):
            assert a.status_code == b.status_code == 200
            refused = three.get(url, headers=auth(table.tokens[2]))
            assert refused.status_code == 503
            assert refused.json()["code"] == "server_full" and int(refused.headers["Retry-After"]) > 0
            bot = three.post(f"{base}/v1/bots", json={"name": "capped"})
            assert bot.status_code == 201, bot.text  # requests are not streams: never refused
            refused_bot = three.get(f"{base}/v1/bots/me/stream", headers=auth(bot.json()["api_key"]))
            assert refused_bot.status_code == 503 and refused_bot.json()["code"] == "server_full"


def test_a_slow_subscriber_is_ended_with_its_last_id_without_holding_back_the_others(redis_url: str) -> None:
    key = "atout:events:{slow-test}"

    async def scenario() -> None:
        hub = Fanout.from_url(redis_url, 4, readers=1, queue_size=4)
        await hub.start()
        writer = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
        try:
            await writer.delete(key)
            fast_gen, slow_gen = hub.follow(key, "0-0", 30), hub.follow(key, "0-0", 30)
            slow_first = asyncio.create_task(anext(slow_gen))
            fast: list[str] = []

            async def consume() -> None:
                async for batch in fast_gen:
                    fast.extend(entry[0] for entry in batch or [])
                    if len(fast) == 12:
                        return

            fast_task = asyncio.create_task(consume())
            while hub.followed != 1 or len(next(iter(hub._followed.values())).subscribers) != 2:
                await asyncio.sleep(0.01)
            ids = []
            for n in range(12):  # one at a time: the fast one keeps up, the slow one never reads again
                ids.append(await writer.xadd(key, {"n": str(n)}))
                while len(fast) < len(ids):
                    await asyncio.sleep(0.005)
            first = await slow_first
            assert first is not None and [entry[0] for entry in first] == ids[:1]
            await asyncio.wait_for(fast_task, 30)
            assert fast == ids
            with pytest.raises(StreamLagged) as lagged:
                await anext(slow_gen)
            assert lagged.value.last_id == ids[0] and hub.dropped == 1
            resumed = [e[0] async for e in _until(hub.follow(key, lagged.value.last_id, 30), len(ids) - 1)]
            assert resumed == ids[1:]
        finally:
            await writer.delete(key)
            await writer.aclose()
            await hub.stop()

    asyncio.run(asyncio.wait_for(scenario(), 60))


async def _until(entries: Any, count: int) -> Any:
    got = 0
    async with contextlib.aclosing(entries):
        async for batch in entries:
            for entry in batch or []:
                yield entry
                got += 1
            if got >= count:
                return


def test_a_lagging_sse_stream_ends_with_a_retry_hint_and_resumes_without_a_gap(settings: Settings) -> None:
    """With room for one event, the two events of a move overflow the queue: the stream ends with a
    ``lagged`` event naming the last id it delivered and a reconnection delay."""
    with (
        served(settings.model_copy(update={"stream_queue": 1})) as (base, _app),
        httpx.Client(base_url=base, timeout=30) as players,
    ):
        table = seated(players, "rough")  # type: ignore[arg-type]
        url = f"{base}/v1/games/{table.game_id}/events"
        got: list[dict[str, Any]] = []
        with httpx.Client(timeout=30) as http, http.stream("GET", url) as response:
            lines = response.iter_lines()
            fields: dict[str, str] = {}
            backlog = len(
                [ln for ln in http.get(url + "?follow=false").text.splitlines() if ln.startswith("data: ")]
            )
            retry = None
            for line in lines:
                if line.startswith("retry: "):
                    retry = int(line[7:])
                if line:
                    key, _, value = line.partition(": ")
                    fields[key] = value
                    continue
                if "data" in fields:
                    got.append({"sse_id": fields.get("id"), **json.loads(fields["data"])})
                    if len(got) == backlog:  # subscribed and caught up: now a move overflows the queue
                        seat, action = first_move(table)
                        assert table.act(seat, action).status_code == 200
                    if got[-1].get("type") == "lagged":  # a StreamEnd (an envelope has no type)
                        break
                fields = {}
        last = got[-1]
        assert last["type"] == "lagged" and last["code"] == "stream_lagged" and last["sse_id"] is None
        assert retry is not None and retry > 0
        assert last["last_event_id"] == got[-2]["id"]
        rest = http_events(f"{url}?follow=false", last["last_event_id"])
        everything = http_events(f"{url}?follow=false", None)
        assert [e["id"] for e in got[:-1] + rest] == [e["id"] for e in everything]
        assert len(rest) >= 1


def http_events(url: str, last_id: str | None) -> list[dict[str, Any]]:
    headers = {"Last-Event-ID": last_id} if last_id else {}
    text = httpx.get(url, headers=headers, timeout=30).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def graphql_subscribe(ws: Any, gid: str, token: str | None) -> None:
    ws.send_json(
        {"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"} if token else {}}
    )
    assert ws.receive_json()["type"] == "connection_ack"
    ws.send_json(
        {"id": "1", "type": "subscribe", "payload": {"query": STREAM_QUERY, "variables": {"id": gid}}}
    )


def test_graphql_subscriptions_share_the_hub_and_the_caps(settings: Settings) -> None:
    config = settings.model_copy(
        update={"streams_per_client": 1, "streams_per_process": 2, "rate_limits": False}
    )
    with TestClient(create_app(config)) as client:
        hub = hub_of(client.app)  # type: ignore[arg-type]
        table = seated(client, "rough")
        token = table.tokens[0]
        with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
            graphql_subscribe(ws, table.game_id, token)
            first = ws.receive_json()
            assert first["type"] == "next"
            assert first["payload"]["data"]["gameEvents"]["event"]["__typename"] == "GameCreated"
            assert hub.open_streams == 1 and hub.followed == 1
            # the same token, over REST or GraphQL, is at its cap
            refused = client.get(f"/v1/games/{table.game_id}/events", headers=auth(token))
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_streams"
            with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as again:
                graphql_subscribe(again, table.game_id, token)
                message = again.receive_json()  # refused before it starts: graphql-transport-ws `error`
                assert message["type"] == "error"
                error = message["payload"][0]["extensions"]
                assert error["code"] == "too_many_streams" and error["retry_after"] > 0
            with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as other:
                graphql_subscribe(other, table.game_id, table.tokens[1])
                assert other.receive_json()["type"] == "next"
                assert hub.open_streams == 2
                with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as full:
                    graphql_subscribe(full, table.game_id, table.tokens[2])
                    message = full.receive_json()
                    assert message["type"] == "error"
                    assert message["payload"][0]["extensions"]["code"] == "server_full"
        wait_until(lambda: hub.open_streams == 0, "the subscriptions to be released")
        assert hub.followed == 0


def test_on_a_cluster_each_xread_names_keys_of_one_hash_slot(redis_url: str) -> None:
    """Redis Cluster refuses an XREAD naming keys of two slots: the reads are grouped by slot there,
    and one read names every followed key on a single Redis."""
    streams = {events_key(g): "0-0" for g in ("g1", "g2", "g3")} | {bot_turns_key("g1"): "5-0"}
    client = redis.asyncio.Redis.from_url(redis_url)
    calls = Fanout(client, cluster=True).calls(streams)
    assert all(len({key_slot(key.encode()) for key in call}) == 1 for call in calls)
    assert sorted(key for call in calls for key in call) == sorted(streams)
    assert next(call for call in calls if events_key("g1") in call)[bot_turns_key("g1")] == "5-0"
    assert Fanout(client).calls(streams) == [streams]
    asyncio.run(client.aclose())


def test_a_burst_of_requests_beyond_the_request_pool_waits_for_a_connection(
    settings: Settings, redis_url: str
) -> None:
    """The request pool blocks (``ATOUT_REDIS_POOL``): 60 requests at once on a pool of 4 connections
    all answer 200, where a pool that fails at once answered 503 "every connection is busy"."""
    with served(settings.model_copy(update={"redis_url": with_request_pool(redis_url, 4)})) as (base, _app):
        with httpx.Client(base_url=base, timeout=30) as http:
            table = seated(http, "rough")  # type: ignore[arg-type]

        async def burst() -> list[int]:
            limits = httpx.Limits(max_connections=60, max_keepalive_connections=0)
            async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
                responses = await asyncio.gather(
                    *(
                        client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[i % 4]))
                        for i in range(60)
                    )
                )
            return [r.status_code for r in responses]

        assert asyncio.run(burst()) == [200] * 60


def test_a_stopping_server_ends_every_stream_with_server_closing_and_a_retry(settings: Settings) -> None:
    """What SIGTERM triggers (through sse-starlette's shutdown event), driven here directly: each
    open stream ends with `server_closing`, its last event id and `retry: 1000`, not a cut
    connection; a stream opened afterwards ends the same way at once."""
    with served(settings) as (base, app), httpx.Client(base_url=base, timeout=30) as http:
        table = seated(http, "rough")  # type: ignore[arg-type]
        url = f"{base}/v1/games/{table.game_id}/events"
        with (
            httpx.Client(timeout=30) as reader,
            reader.stream("GET", url, headers=auth(table.tokens[0])) as sse,
        ):
            lines = sse.iter_lines()
            assert next(line for line in lines if line.startswith("id: "))  # following the game
            wait_until(lambda: hub_of(app).open_streams == 1, "the stream to be followed")
            hub = hub_of(app)
            server_loop = hub._tasks[0].get_loop()  # the hub lives on uvicorn's loop, in its thread
            server_loop.call_soon_threadsafe(hub.server_closing)
            rest = list(lines)
        assert "event: server_closing" in rest and "retry: 1000" in rest, rest[-8:]
        data = next(line for line in rest if line.startswith("data: ") and "server_closing" in line)
        notice = json.loads(data.removeprefix("data: "))
        assert notice["code"] == "server_closing" and notice["last_event_id"]
        again = http.get(url, headers=auth(table.tokens[1]))
        assert "event: server_closing" in again.text
