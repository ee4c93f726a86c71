"""Giving up a seat, and the rematch with the same seats."""

from __future__ import annotations

import random

from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create, fill, seated, wait_for_human

from service.api.app import create_app
from service.base.settings import Settings


def problem(response: object, status: int, code: str) -> None:
    assert getattr(response, "status_code") == status, getattr(response, "text")  # noqa: B009
    assert getattr(response, "json")()["code"] == code  # noqa: B009


def test_leaving_before_the_start_opens_the_seat_again(client: TestClient) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 1}).json()["token"]
    assert client.get("/v1/games").json()["games"][0]["seats"][1]["filled"] is True
    response = client.post(f"/v1/games/{gid}/leave", headers=auth(token))
    assert response.status_code == 200
    assert response.json() == {"game_id": gid, "seat": 1, "outcome": "left"}
    assert client.get(f"/v1/games/{gid}").json()["seats"][1] == {
        "seat": 1,
        "seat_kind": "open",
        "bot_level": None,
        "name": "",
        "filled": False,
    }
    problem(client.get(f"/v1/games/{gid}/actions", headers=auth(token)), 401, "invalid_token")
    assert client.post(f"/v1/games/{gid}/join", json={"seat": 1}).status_code == 201


def test_leaving_a_running_game_hands_the_seat_to_a_bot_and_revokes_the_token(client: TestClient) -> None:
    table = seated(client, "rough", seed="3")
    seat = table.game()["to_act"]
    response = client.post(f"/v1/games/{table.game_id}/leave", headers=auth(table.tokens[seat]))
    assert response.json()["outcome"] == "replaced"
    game = table.game()
    assert (game["seats"][seat]["seat_kind"], game["seats"][seat]["bot_level"]) == ("bot", "random")
    assert game["status"] == "active"
    problem(table.act(seat, {"type": "pass"}), 401, "invalid_token")
    events = client.get(f"/v1/games/{table.game_id}/events?follow=false").text
    assert "seat_forfeited" in events


def test_a_revoked_token_cannot_move_even_through_a_stale_copy(
    client: TestClient, settings: Settings
) -> None:
    table = seated(client, "rough", seed="4")
    seat = table.game()["to_act"]
    with TestClient(create_app(settings)) as other:
        other.post(f"/v1/games/{table.game_id}/leave", headers=auth(table.tokens[seat]))
    # `client` still holds its copy from before the seat was given up
    problem(table.act(seat, {"type": "pass"}), 401, "invalid_token")
    assert table.game()["version"] == 0


def test_leave_errors(client: TestClient, rng: random.Random) -> None:
    table = seated(client, "euchre5", seed="5", options=FAST_OPTIONS["euchre5"])
    problem(client.post(f"/v1/games/{table.game_id}/leave"), 401, "missing_token")
    problem(client.post(f"/v1/games/{table.game_id}/leave", headers=auth("nope")), 401, "invalid_token")
    problem(client.post("/v1/games/missing/leave", headers=auth("nope")), 404, "game_not_found")
    table.play_random(rng)
    problem(
        client.post(f"/v1/games/{table.game_id}/leave", headers=auth(table.tokens[0])), 409, "game_finished"
    )


def test_a_forfeited_seat_is_played_out_by_a_bot(
    client: TestClient, rq_worker: str, rng: random.Random
) -> None:
    table = seated(client, "euchre5", seed="8", options=FAST_OPTIONS["euchre5"])
    client.post(f"/v1/games/{table.game_id}/leave", headers=auth(table.tokens[4]))
    del table.tokens[4]
    for _ in range(5000):
        game = wait_for_human(table, {0, 1, 2, 3})
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
    assert game["status"] == "finished"


def test_a_rematch_keeps_the_game_options_and_seats_with_a_new_seed(
    client: TestClient, rq_worker: str, settings: Settings, rng: random.Random
) -> None:
    created = create(
        client, "rough", seed="9", options=FAST_OPTIONS["rough"], seats=["open", "open", "open", "bot:random"]
    )
    gid = created["game"]["game_id"]
    tokens = {s: client.post(f"/v1/games/{gid}/join", json={"seat": s}).json()["token"] for s in range(3)}
    table = Table(client, gid, tokens)
    problem(client.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[0])), 409, "game_not_finished")
    problem(client.post(f"/v1/games/{gid}/rematch"), 401, "missing_token")
    for _ in range(5000):
        game = wait_for_human(table, {0, 1, 2})
        if game["status"] == "finished":
            break
        seat = game["to_act"]
        assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
    assert game["status"] == "finished"

    first = client.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[1]))
    assert first.status_code == 201, first.text
    body = first.json()
    rid = body["game"]["game_id"]
    assert body["seat"] == 1 and body["started"] is False and rid != gid
    kinds = [(s["seat_kind"], s["bot_level"]) for s in body["game"]["seats"]]
    assert kinds == [("reserved", None), ("human", None), ("reserved", None), ("bot", "random")]
    assert body["game"]["options"] == game["options"]
    assert client.get(f"/v1/games/{gid}").json()["rematch_id"] == rid
    assert client.get("/v1/games").json()["games"] == []
    problem(client.post(f"/v1/games/{rid}/join", json={"seat": 0}), 409, "seat_taken")
    problem(client.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[1])), 409, "seat_taken")
    assert client.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[0])).json()["started"] is False
    last = client.post(f"/v1/games/{gid}/rematch", headers=auth(tokens[2])).json()
    assert last["started"] is True and last["game"]["game_id"] == rid
    rematch = client.get(f"/v1/games/{rid}", headers=auth(admin_token_of(settings))).json()
    assert rematch["status"] == "active" and rematch["seed"] != game["seed"]


def admin_token_of(settings: Settings) -> str:
    assert settings.admin_token
    return settings.admin_token
