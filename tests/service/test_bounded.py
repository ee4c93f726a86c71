"""Bounded data: caps on unfinished games (per creator and in total), TTLs on every index, bot
accounts that expire when idle and that the administrator can delete."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth

from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import OPEN_INDEX, bot_games_key, bot_key, bot_turns_key, creator_key, game_key


@pytest.fixture
def capped(settings: Settings) -> Iterator[TestClient]:
    """A server where one creator may have 2 unfinished games and the server 5."""
    tight = settings.model_copy(update={"max_open_games_per_creator": 2, "max_open_games": 5})
    with TestClient(create_app(tight)) as test_client:
        yield test_client


def refused(response: Any, code: str, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert int(response.headers["Retry-After"]) > 0
    return body


def register(client: TestClient) -> dict[str, Any]:
    response = client.post("/v1/bots", json={"name": "bounded"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def create(client: TestClient, game: str, token: str | None = None, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/games", json={"kind": game, **body}, headers=auth(token) if token else {})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def seated(client: TestClient, game: str, token: str | None = None) -> Table:
    """A started game, short to play (every seat a human with a token)."""
    created = create(client, game, token, options=FAST_OPTIONS[game])
    table = Table(client, created["game"]["game_id"])
    for seat in range(created["game"]["players"]):
        response = client.post(f"/v1/games/{table.game_id}/join", json={"seat": seat})
        assert response.status_code == 201, response.text
        table.tokens[seat] = response.json()["token"]
    return table


def finish(table: Table) -> None:
    assert table.play_random(random.Random(9))["status"] == "finished"


# --- caps on unfinished games ----------------------------------------------------------------


def test_a_creator_past_its_cap_is_refused_until_one_of_its_games_finishes(capped: TestClient) -> None:
    first = seated(capped, "rough")
    create(capped, "rough")
    body = refused(capped.post("/v1/games", json={"kind": "rough"}), "too_many_games", 429)
    assert body["limit"] == 2 and "finish one" in body["detail"]
    finish(first)
    create(capped, "rough")  # the finished game no longer counts
    refused(capped.post("/v1/games", json={"kind": "rough"}), "too_many_games", 429)


def test_a_rematch_counts_for_the_player_who_offered_it(capped: TestClient) -> None:
    table = seated(capped, "rough")
    finish(table)
    create(capped, "rough")
    offered = capped.post(f"/v1/games/{table.game_id}/rematch", json={}, headers=auth(table.tokens[0]))
    assert offered.status_code == 201, offered.text
    refused(capped.post("/v1/games", json={"kind": "rough"}), "too_many_games", 429)


def test_a_game_that_expired_no_longer_counts_for_its_creator(
    capped: TestClient, redis_client: redis.Redis
) -> None:
    gid = create(capped, "rough")["game"]["game_id"]
    create(capped, "rough")
    refused(capped.post("/v1/games", json={"kind": "rough"}), "too_many_games", 429)
    redis_client.delete(game_key(gid))  # what its TTL does to an abandoned game
    create(capped, "rough")


def test_a_bot_account_has_its_own_cap_and_a_made_up_token_does_not(capped: TestClient) -> None:
    create(capped, "rough")
    create(capped, "rough")
    refused(capped.post("/v1/games", json={"kind": "rough"}), "too_many_games", 429)
    # a bearer token that is no bot key counts for the client address, not as a fresh creator
    made_up = capped.post("/v1/games", json={"kind": "rough"}, headers=auth("atb_x_forged"))
    refused(made_up, "too_many_games", 429)
    # a token of no credential's shape is refused outright (a seat token is no credential to create with)
    anything = capped.post("/v1/games", json={"kind": "rough"}, headers=auth("anything"))
    assert (anything.status_code, anything.json()["code"]) == (401, "invalid_token"), anything.text
    bot = register(capped)
    for _ in range(2):
        create(capped, "rough", bot["api_key"])
    refused(
        capped.post("/v1/games", json={"kind": "rough"}, headers=auth(bot["api_key"])), "too_many_games", 429
    )


def test_the_administrator_is_not_capped_per_creator(capped: TestClient, admin_token: str) -> None:
    for _ in range(3):
        create(capped, "rough", admin_token)


def test_the_server_refuses_new_games_past_its_total_cap(capped: TestClient, admin_token: str) -> None:
    tables = [seated(capped, "rough", admin_token)]
    for _ in range(4):
        create(capped, "rough", admin_token)
    body = refused(capped.post("/v1/games", json={"kind": "rough"}), "server_full", 503)
    assert "unfinished games (5)" in body["detail"]
    finish(tables[0])  # a finishing game leaves the count as it finishes
    create(capped, "rough")


def test_graphql_create_gets_the_same_refusal(capped: TestClient) -> None:
    create(capped, "rough")
    create(capped, "rough")
    query = "mutation { createGame(input: {kind: ROUGH}) { game { gameId } } }"
    errors = capped.post("/graphql", json={"query": query}).json()["errors"]
    assert errors[0]["extensions"]["code"] == "too_many_games"


def test_the_bookkeeping_is_bounded(
    capped: TestClient, redis_client: redis.Redis, settings: Settings
) -> None:
    for _ in range(2):
        create(capped, "rough")
    keys = redis_client.keys("atout:creator:*")
    assert len(keys) == 1 and redis_client.zcard(keys[0]) == 2
    assert 0 < redis_client.ttl(keys[0]) <= settings.abandoned_ttl
    shards = redis_client.keys("atout:opengames:*")
    assert sum(redis_client.zcard(k) for k in shards) == 2
    assert all(redis_client.ttl(k) > 0 for k in shards)
    assert creator_key("x").startswith("atout:creator:{")


# --- TTLs on the indexes ---------------------------------------------------------------------


def test_open_index_entries_older_than_an_abandoned_game_are_pruned(
    settings: Settings, redis_client: redis.Redis
) -> None:
    short = settings.model_copy(update={"abandoned_ttl": 60})
    with TestClient(create_app(short)) as client:
        kept = create(client, "rough")["game"]["game_id"]
        assert 0 < redis_client.ttl(OPEN_INDEX) <= 60  # the index itself expires with its games
        redis_client.zadd(OPEN_INDEX, {"ghost1": time.time() - 61})
        create(client, "rough")  # pruned on write
        assert redis_client.zscore(OPEN_INDEX, "ghost1") is None
        stale = create(client, "rough")["game"]["game_id"]
        redis_client.zadd(OPEN_INDEX, {stale: time.time() - 61})  # listed longer than a game may wait
        listed = [g["game_id"] for g in client.get("/v1/games").json()["games"]]  # pruned on read
        assert kept in listed and stale not in listed
        assert redis_client.zscore(OPEN_INDEX, stale) is None


def test_a_bots_indexes_expire_with_its_games(client: TestClient, redis_client: redis.Redis) -> None:
    bot = register(client)
    gid = create(client, "rough")["game"]["game_id"]
    for seat in range(4):  # every seat the bot's: the first turn is announced to it
        joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=auth(bot["api_key"]))
        assert joined.status_code == 201
    bid = bot["bot_id"]
    assert redis_client.ttl(bot_games_key(bid)) > 0
    assert redis_client.xlen(bot_turns_key(bid)) >= 1 and redis_client.ttl(bot_turns_key(bid)) > 0


# --- bot accounts: idle expiry and the administrator's delete --------------------------------


def test_a_bot_account_expires_when_idle_and_each_use_keeps_it(
    settings: Settings, redis_client: redis.Redis
) -> None:
    with TestClient(create_app(settings.model_copy(update={"bot_idle_ttl": 300}))) as client:
        bot = register(client)
        key = bot_key(bot["bot_id"])
        assert 0 < redis_client.ttl(key) <= 300
        redis_client.expire(key, 5)  # as if it had been idle for 295 s
        assert client.get("/v1/bots/me", headers=auth(bot["api_key"])).status_code == 200
        assert redis_client.ttl(key) > 5  # the use refreshed it
        redis_client.pexpire(key, 1)  # idle to the end of its TTL
        deadline = time.monotonic() + 5
        while redis_client.exists(key) and time.monotonic() < deadline:
            time.sleep(0.01)
        response = client.get("/v1/bots/me", headers=auth(bot["api_key"]))
        assert response.status_code == 401 and response.json()["code"] == "invalid_token"


def test_only_the_administrator_deletes_a_bot_and_its_key_stops_working(
    client: TestClient, admin_token: str, redis_client: redis.Redis
) -> None:
    bot = register(client)
    gid = create(client, "rough")["game"]["game_id"]
    assert (
        client.post(f"/v1/games/{gid}/join", json={"seat": 1}, headers=auth(bot["api_key"])).status_code
        == 201
    )
    path = f"/v1/bots/{bot['bot_id']}"
    assert client.delete(path).json()["code"] == "missing_token"
    own = client.delete(path, headers=auth(bot["api_key"]))
    assert own.status_code == 403 and own.json()["code"] == "admin_required"
    missing = client.delete("/v1/bots/nobody", headers=auth(admin_token))
    assert missing.status_code == 404 and missing.json()["code"] == "bot_not_found"

    assert client.delete(path, headers=auth(admin_token)).status_code == 204
    response = client.get("/v1/bots/me", headers=auth(bot["api_key"]))
    assert response.status_code == 401 and response.json()["code"] == "invalid_token"
    assert client.delete(path, headers=auth(admin_token)).status_code == 404
    assert redis_client.keys(f"atout:bot*{{{bot['bot_id']}}}") == []
    seats = client.get(f"/v1/games/{gid}").json()["seats"]
    assert seats[1]["filled"] is False  # the deleted bot's seat is open again


def test_a_deleted_bots_running_seat_is_played_out_by_a_bot(
    client: TestClient, admin_token: str, redis_client: redis.Redis
) -> None:
    bot = register(client)
    table = seated(client, "rough")
    gid = create(client, "rough")["game"]["game_id"]
    tokens = {}
    for seat in range(4):
        headers = auth(bot["api_key"]) if seat == 2 else {}
        joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=headers).json()
        tokens[seat] = joined["token"]
    assert client.delete(f"/v1/bots/{bot['bot_id']}", headers=auth(admin_token)).status_code == 204
    game = client.get(f"/v1/games/{gid}").json()
    assert (game["seats"][2]["seat_kind"], game["seats"][2]["bot_level"]) == ("bot", "random")
    response = client.get(f"/v1/games/{gid}/actions", headers=auth(tokens[2]))
    assert response.status_code == 401  # the bot's seat token went with it
    assert table.game()["status"] == "active"  # other games are untouched
    store = client.app.state.store  # type: ignore[attr-defined]
    assert client.portal is not None
    client.portal.call(store.bots.notify_account, bot["bot_id"], {"type": "your_turn", "game_id": gid})
    assert not redis_client.exists(bot_turns_key(bot["bot_id"]))  # no stream is made for a deleted bot


def test_graphql_delete_bot(client: TestClient, admin_token: str) -> None:
    bot = register(client)
    mutation = f'mutation {{ deleteBot(input: {{botId: "{bot["bot_id"]}"}}) {{ botId }} }}'
    anonymous = client.post("/graphql", json={"query": mutation}).json()
    assert anonymous["errors"][0]["extensions"]["code"] == "missing_token"
    denied = client.post("/graphql", json={"query": mutation}, headers=auth(bot["api_key"])).json()
    assert denied["errors"][0]["extensions"]["code"] == "admin_required"
    done = client.post("/graphql", json={"query": mutation}, headers=auth(admin_token)).json()
    assert done == {"data": {"deleteBot": {"botId": bot["bot_id"]}}}
    again = client.post("/graphql", json={"query": mutation}, headers=auth(admin_token)).json()
    assert again["errors"][0]["extensions"]["code"] == "bot_not_found"
