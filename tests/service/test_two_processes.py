"""Two API processes on one Redis: each may hold a stale copy of a game, and must never act on it.

Each app below is a separate service instance (its own caches), as two uvicorn workers are.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from svc_helpers import Table, auth, create, fill, seated

from service.api.app import create_app
from service.base.settings import Settings


@pytest.fixture
def other(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as second:
        yield second


def turn(table: Table) -> tuple[int, int]:
    game = table.game()
    return game["to_act"], game["version"]


def test_moves_alternate_between_processes_with_stale_copies(
    client: TestClient, other: TestClient, rng: random.Random
) -> None:
    table = seated(client, "euchre5", seed="12", options={"target_score": 5})
    mirror = Table(other, table.game_id, table.tokens)
    for n in range(60):
        here = table if n % 3 else mirror
        seat, version = turn(here)
        if seat is None:
            break
        response = here.act(seat, fill(rng.choice(here.legal(seat)), rng))
        assert response.status_code == 200, response.text
        assert response.json()["version"] == version + 1


def test_a_stale_copy_does_not_refuse_the_seat_now_to_act(client: TestClient, other: TestClient) -> None:
    table = seated(client, "rough", seed="13")
    mirror = Table(other, table.game_id, table.tokens)
    seat, _ = turn(table)
    assert table.act(seat, {"type": "pass"}).status_code == 200  # client's copy: version 1
    nxt, _ = turn(mirror)
    assert mirror.act(nxt, {"type": "pass"}).status_code == 200  # version 2, client's copy is stale
    third, version = turn(mirror)
    response = table.act(third, {"type": "pass"}, expected_version=version)
    assert response.status_code == 200, response.text
    assert response.json()["version"] == version + 1


def test_a_stale_copy_still_reports_the_true_current_version(client: TestClient, other: TestClient) -> None:
    table = seated(client, "rough", seed="14")
    mirror = Table(other, table.game_id, table.tokens)
    seat, _ = turn(table)
    table.act(seat, {"type": "pass"})
    nxt, _ = turn(mirror)
    mirror.act(nxt, {"type": "pass"})
    third, _ = turn(mirror)
    response = table.act(third, {"type": "pass"}, expected_version=1)
    assert response.status_code == 409
    assert response.json()["current_version"] == 2


def test_a_seat_joined_through_another_process_is_recognised(client: TestClient, other: TestClient) -> None:
    gid = create(client, "rough", seats=["open", "bot:random", "bot:random", "bot:random"])["game"]["game_id"]
    client.get(f"/v1/games/{gid}")  # the first process now holds a copy with seat 0 open
    token = other.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    table = Table(client, gid, {0: token})
    seat, _ = turn(table)
    response = table.act(0, {"type": "pass"})
    assert response.status_code in {200, 409}, response.text
    if seat != 0:
        assert response.json()["code"] == "not_your_turn"
    assert client.get(f"/v1/games/{gid}/actions", headers=auth(token)).status_code == 200
