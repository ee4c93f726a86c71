"""Redis Cluster: a game's keys share one slot, a move is acknowledged only once a replica has it
(WAIT), and a master killed mid-game loses no acknowledged move (the replica takes over, the API
answers 503 store_unavailable meanwhile, and the game goes on)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from typing import Any

import pytest
from embedded_cluster import EmbeddedCluster
from redis.cluster import RedisCluster
from redis.crc import key_slot
from starlette.testclient import TestClient
from svc_helpers import Table, fill, seated

from service.base.settings import Settings
from service.store import Store
from service.store.keys import game_key

RETRY_SECONDS = 30  # bounded: a failover takes ~3.5 s here (node timeout 2 s)


def act_until_acknowledged(table: Table, seat: int, action: dict[str, Any], version: int, key: str) -> Any:
    """POST the move until the API acknowledges it (or says it was already applied), retrying on
    503 with the same Idempotency-Key, as a client must while the store fails over."""
    deadline = time.monotonic() + RETRY_SECONDS
    refusals = 0
    while True:
        response = table.act(seat, action, expected_version=version, idempotency_key=key)
        if response.status_code != 503:
            return response, refusals
        assert response.json()["code"] == "store_unavailable", response.text
        assert "Retry-After" in response.headers
        refusals += 1
        assert time.monotonic() < deadline, "the store did not come back"
        time.sleep(0.2)


def read_until_ok(table: Table) -> dict[str, Any]:
    deadline = time.monotonic() + RETRY_SECONDS
    while True:
        response = table.client.get(f"/v1/games/{table.game_id}")
        if response.status_code == 200:
            body: dict[str, Any] = response.json()
            return body
        assert response.status_code == 503, response.text
        assert time.monotonic() < deadline, "the store did not come back"
        time.sleep(0.2)


def test_every_key_of_a_game_lives_in_one_slot(
    client: TestClient, redis_client: RedisCluster, rng: random.Random
) -> None:
    """No command may name two slots: a game's hash, stream, log and idempotency keys share its tag."""
    table = seated(client, "euchre5")
    for n in range(6):
        game = table.game()
        seat = game["to_act"]
        action = fill(rng.choice(table.legal(seat)), rng)
        response = table.act(seat, action, expected_version=game["version"], idempotency_key=f"k{n}")
        assert response.status_code == 200, response.text
    keys = [
        k for k in redis_client.scan_iter(match=f"*{{{table.game_id}}}*", target_nodes=RedisCluster.PRIMARIES)
    ]
    kinds = {k.split(":")[1] for k in keys}
    assert {"game", "events", "log", "idem"} <= kinds
    assert {key_slot(k.encode()) for k in keys} == {key_slot(game_key(table.game_id).encode())}


def test_a_move_is_acknowledged_only_once_a_replica_has_it(
    client: TestClient, redis_cluster: EmbeddedCluster, rng: random.Random
) -> None:
    """With its master's replica frozen (SIGSTOP), a move is not acknowledged: 503 store_unavailable
    after ATOUT_REDIS_WAIT_MS; once the replica is back, the retry with the same Idempotency-Key
    answers the move (applied once), and the replica holds it."""
    table = seated(client, "rough")
    master = redis_cluster.master_of(game_key(table.game_id))
    replica = redis_cluster.replica_of(master)
    game = table.game()
    seat = game["to_act"]
    action = fill(rng.choice(table.legal(seat)), rng)
    os.kill(replica.pid, signal.SIGSTOP)
    try:
        refused = table.act(seat, action, expected_version=game["version"], idempotency_key="frozen")
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "store_unavailable"
    finally:
        os.kill(replica.pid, signal.SIGCONT)
    retried = table.act(seat, action, expected_version=game["version"], idempotency_key="frozen")
    assert retried.status_code == 200, retried.text
    assert retried.json()["version"] == game["version"] + 1
    assert table.game()["version"] == game["version"] + 1
    assert redis_cluster.read_on(replica, game_key(table.game_id), "version") == str(game["version"] + 1)


def test_the_store_waits_for_a_replica_only_where_one_is_connected(settings: Settings) -> None:
    """A master without a connected replica (none configured, or just promoted) is not waited for:
    nobody could confirm, and refusing every write would stop the games for nothing."""

    async def check() -> None:
        store = Store.from_url(
            settings.redis_url or "", 60, 60, 60, cluster=True, wait_replicas=1, wait_ms=200
        )
        try:
            node, replicas = await store.connection._master_of(game_key("some-game"))
            assert replicas == 1
            store.connection._replicas_seen[node.name] = (time.monotonic(), 0)
            node, replicas = await store.connection._master_of(game_key("some-game"))
            assert replicas == 0
        finally:
            await store.close()

    asyncio.run(check())


def test_a_master_killed_mid_game_loses_no_acknowledged_move(
    client: TestClient, redis_cluster: EmbeddedCluster, rng: random.Random
) -> None:
    """Kill (SIGKILL, by PID) the master that holds a running game: its replica takes over; meanwhile
    a request either waits inside the client's retries or gets 503 store_unavailable and is sent
    again with the same Idempotency-Key; the game goes on, and every move the API acknowledged is
    in the game's log afterwards, in order."""
    table = seated(client, "rough")
    acknowledged: dict[int, dict[str, Any]] = {}  # version -> the move acknowledged at it
    killed = None
    refusals = 0
    moves = 0
    try:
        while moves < 40:
            game = read_until_ok(table)
            if game["status"] == "finished":
                break
            seat = game["to_act"]
            action = fill(rng.choice(table.legal(seat)), rng)
            response, refused = act_until_acknowledged(
                table, seat, action, game["version"], f"m{game['version']}"
            )
            refusals += refused
            assert response.status_code == 200, response.text
            acknowledged[response.json()["version"]] = response.json()["action"]
            moves += 1
            if moves == 10:  # mid-game: the master of the game's slot dies
                killed = redis_cluster.master_of(game_key(table.game_id))
                redis_cluster.kill(killed)
        assert killed is not None and moves >= 20, f"the game ended after {moves} moves"
        new_master = redis_cluster.master_of(game_key(table.game_id))
        assert new_master.port != killed.port
        log = table.client.get(
            f"/v1/games/{table.game_id}/log",
            headers={"Authorization": f"Bearer {client.app.state.settings.admin_token}"},  # type: ignore[attr-defined]
        ).json()
        logged = {entry["version"]: entry["action"] for entry in log["actions"]}
        missing = [v for v, action in acknowledged.items() if logged.get(v) != action]
        print(
            f"acknowledged={len(acknowledged)} found={len(acknowledged) - len(missing)} refusals={refusals}"
        )
        assert not missing, f"acknowledged moves lost in the failover: {missing}"
        assert sorted(logged) == list(range(1, max(logged) + 1))
    finally:
        if killed is not None:
            redis_cluster.restart(killed)  # it rejoins as a replica: the next tests get a whole cluster
            redis_cluster.wait_healthy(60)


def test_a_cluster_without_a_queue_redis_is_refused_at_startup(cluster_url: str) -> None:
    """RQ does not speak Cluster: ATOUT_REDIS_CLUSTER without ATOUT_QUEUE_URL is a settings error
    that names the missing variable, never a worker that silently reads no queue."""
    with pytest.raises(ValueError, match="ATOUT_QUEUE_URL"):
        Settings(redis_url=cluster_url, redis_cluster=True)
    assert Settings(redis_url=cluster_url).queue_redis_url == cluster_url


def test_metrics_and_readiness_read_the_cluster_and_the_queue_redis(client: TestClient) -> None:
    """The scrape counts unfinished games over the 16 shards (one slot each) on the cluster, and the
    queues on their own Redis; readiness pings the cluster."""
    seated(client, "rough")
    assert client.get("/readyz").status_code == 200
    scraped = client.get("/metrics")
    assert scraped.status_code == 200
    lines = scraped.text.splitlines()
    assert "atout_active_games 1.0" in lines
    assert "atout_store_up 1.0" in lines
    assert any(line.startswith('atout_queue_depth{queue="atout-bots"}') for line in lines)
