"""Bot accounts: an API key, seats joined with it, one stream announcing "your turn" in any game."""

from __future__ import annotations

import json
import random
from typing import Any

from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create, fill


def register(client: TestClient, name: str = "deep-blue") -> dict[str, Any]:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def notices(client: TestClient, key: str, after: str | None = None) -> list[dict[str, Any]]:
    headers = auth(key) | ({"Last-Event-ID": after} if after else {})
    text = client.get("/v1/bots/me/turns?follow=false", headers=headers).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_a_bot_hears_of_its_turns_in_all_its_games(client: TestClient, rng: random.Random) -> None:
    bot = register(client)
    assert bot["api_key"].startswith(f"atb_{bot['bot_id']}_")
    tables = []
    for seed in (1, 2):
        gid = create(client, "euchre5", seed=seed, options=FAST_OPTIONS["euchre5"])["game"]["id"]
        table = Table(client, gid)
        for seat in range(5):
            headers = auth(bot["api_key"]) if seat == 2 else {}
            joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=headers).json()
            table.tokens[seat] = joined["token"]
        tables.append(table)
    status = client.get("/v1/bots/me", headers=auth(bot["api_key"])).json()
    assert status["bot_id"] == bot["bot_id"] and status["name"] == "deep-blue"
    assert sorted(s["game_id"] for s in status["seats"]) == sorted(t.game_id for t in tables)
    assert all(s["seat"] == 2 for s in status["seats"])
    for table in tables:
        for _ in range(10_000):
            game = table.game()
            if game["status"] == "finished":
                break
            seat = game["to_act"]
            assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
    heard = notices(client, bot["api_key"])
    turns = [n for n in heard if n["type"] == "your_turn"]
    assert turns and all(n["seat"] == 2 for n in turns)
    assert {n["game_id"] for n in turns} == {t.game_id for t in tables}
    assert sorted(n["game_id"] for n in heard if n["type"] == "game_over") == sorted(
        t.game_id for t in tables
    )
    for table in tables:  # each announced version is one where seat 2 acted next
        acted = {
            e["version"] - 1: e["seat"]
            for e in client.get(f"/v1/games/{table.game_id}/log").json()["actions"]
        }
        announced = [n["version"] for n in turns if n["game_id"] == table.game_id]
        assert announced and all(acted[v] == 2 for v in announced)
        assert sorted(v for v, seat in acted.items() if seat == 2) == sorted(announced)
    resumed = notices(client, bot["api_key"], after=heard[4]["id"])
    assert [n["id"] for n in resumed] == [n["id"] for n in heard[5:]]


def test_bot_account_errors(client: TestClient) -> None:
    assert client.post("/v1/bots", json={"name": ""}).status_code == 422
    assert client.get("/v1/bots/me").json()["code"] == "missing_token"
    assert client.get("/v1/bots/me", headers=auth("atb_nobody_secret")).json()["code"] == "invalid_token"
    bot = register(client)
    forged = bot["api_key"][:-3] + "xyz"
    assert client.get("/v1/bots/me", headers=auth(forged)).status_code == 401
    gid = create(client, "rough")["game"]["id"]
    response = client.post(f"/v1/games/{gid}/join", json={}, headers=auth("not-a-bot-key"))
    assert response.status_code == 401 and response.json()["code"] == "invalid_token"
    bad = client.get("/v1/bots/me/turns", headers={**auth(bot["api_key"]), "Last-Event-ID": "x"})
    assert bad.status_code == 422
