"""Bot accounts: an API key, seats joined with it, one stream announcing "your turn" in any game."""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create, fill

from service.store.keys import game_key


def register(client: TestClient, name: str = "deep-blue") -> dict[str, Any]:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def notices(client: TestClient, key: str, after: str | None = None) -> list[dict[str, Any]]:
    headers = auth(key) | ({"Last-Event-ID": after} if after else {})
    text = client.get("/v1/bots/me/stream?follow=false", headers=headers).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def play_until(table: Table, seat: int, rng: random.Random) -> dict[str, Any]:
    """Random moves by the other seats until ``seat`` is to act (or the match is over)."""
    while True:
        game = table.game()
        if game["status"] == "finished" or game["to_act"] == seat:
            return game
        who = game["to_act"]
        assert table.act(who, fill(rng.choice(table.legal(who)), rng)).status_code == 200


def test_one_stream_announces_the_bots_turns_in_two_games(client: TestClient, rng: random.Random) -> None:
    bot = register(client)
    assert bot["api_key"].startswith(f"atb_{bot['bot_id']}_")
    tables = []
    for seed in (1, 2):
        gid = create(client, "euchre5", seed=str(seed), options=FAST_OPTIONS["euchre5"])["game"]["game_id"]
        table = Table(client, gid)
        for seat in range(5):
            headers = auth(bot["api_key"]) if seat == 2 else {}
            joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=headers).json()
            table.tokens[seat] = joined["token"]
        tables.append(table)
    status = client.get("/v1/bots/me", headers=auth(bot["api_key"])).json()
    assert status["bot_id"] == bot["bot_id"] and status["name"] == "deep-blue"
    assert sorted(s["game_id"] for s in status["seats"]) == sorted(t.game_id for t in tables)

    for table in tables:
        assert play_until(table, 2, rng)["to_act"] == 2
    turns = [n for n in notices(client, bot["api_key"]) if n["type"] == "your_turn"]
    assert sorted(n["game_id"] for n in turns) == sorted(t.game_id for t in tables)
    for notice in turns:
        table = next(t for t in tables if t.game_id == notice["game_id"])
        assert notice["seat"] == 2 and notice["version"] == table.game()["version"]
        assert notice["legal_actions"] == table.legal(2)
        assert notice["view"]["seat"] == 2 and len(notice["view"]["hand"]) == 5
        # exactly the seat's own view, which the leak test checks never holds a hidden card
        own = client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[2])).json()
        assert notice["view"] == own["view"]
    assert all(
        s["your_turn"] for s in client.get("/v1/bots/me", headers=auth(bot["api_key"])).json()["seats"]
    )

    first = tables[0]
    assert first.act(2, fill(rng.choice(first.legal(2)), rng)).status_code == 200
    current = [n for n in notices(client, bot["api_key"]) if n["type"] == "your_turn"]
    assert [n["game_id"] for n in current] == [tables[1].game_id]  # the answered turn is no longer offered

    ndjson = client.get(
        "/v1/bots/me/stream?follow=false",
        headers={**auth(bot["api_key"]), "Accept": "application/x-ndjson"},
    )
    assert ndjson.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in ndjson.text.splitlines()]
    assert [n["id"] for n in lines] == [n["id"] for n in notices(client, bot["api_key"])]

    for table in tables:
        while play_until(table, 2, rng)["status"] != "finished":
            assert table.act(2, fill(rng.choice(table.legal(2)), rng)).status_code == 200
    heard = notices(client, bot["api_key"])
    assert sorted(n["game_id"] for n in heard if n["type"] == "game_finished") == sorted(
        t.game_id for t in tables
    )
    assert [n for n in heard if n["type"] == "your_turn"] == []
    resumed = notices(client, bot["api_key"], after=heard[0]["id"])
    assert [n["id"] for n in resumed] == [n["id"] for n in heard[1:]]


def test_bot_account_errors(client: TestClient) -> None:
    assert client.post("/v1/bots", json={"name": ""}).status_code == 422
    assert client.post("/v1/bots", json={"name": "x", "contact": "a@b.c"}).status_code == 201
    assert client.get("/v1/bots/me").json()["code"] == "missing_token"
    assert client.get("/v1/bots/me", headers=auth("atb_nobody_secret")).json()["code"] == "invalid_token"
    bot = register(client)
    forged = bot["api_key"][:-3] + "xyz"
    assert client.get("/v1/bots/me", headers=auth(forged)).status_code == 401
    gid = create(client, "rough")["game"]["game_id"]
    response = client.post(f"/v1/games/{gid}/join", json={}, headers=auth("not-a-bot-key"))
    assert response.status_code == 401 and response.json()["code"] == "invalid_token"
    bad = client.get("/v1/bots/me/stream", headers={**auth(bot["api_key"]), "Last-Event-ID": "x"})
    assert bad.status_code == 422


def test_expired_games_drop_out_of_the_bots_list(client: TestClient, redis_client: Any) -> None:
    bot = register(client)
    gid = create(client, "rough")["game"]["game_id"]
    client.post(f"/v1/games/{gid}/join", json={"seat": 0}, headers=auth(bot["api_key"]))
    assert len(client.get("/v1/bots/me", headers=auth(bot["api_key"])).json()["seats"]) == 1
    redis_client.delete(game_key(gid))
    assert client.get("/v1/bots/me", headers=auth(bot["api_key"])).json()["seats"] == []
    assert redis_client.smembers(f"atout:botgames:{{{bot['bot_id']}}}") == set()
