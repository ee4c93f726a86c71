"""A bot account's API key acts in the bot's own seats as a player's credential does in the player's
(docs/credentials.md): it joins, sees its seat, reads its legal actions, moves, leaves and takes up a
rematch, with no seat token; seat tokens are for anonymous play only. Where the bot holds no seat, or
names a seat that is not its own, the key is refused 403 (it is a good key: 401 would tell a runner
that it stopped working); a key revoked (its bot deleted) is refused 401."""

from __future__ import annotations

import random
from typing import Any

from starlette.testclient import TestClient

from tests.service.svc_helpers import admin_headers, auth, fill


def register(client: TestClient, name: str = "keyed") -> dict[str, Any]:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    registered: dict[str, Any] = response.json()
    return registered


def new_game(client: TestClient, kind: str = "rough", **options: Any) -> str:
    players = {"rough": 4, "five_hundred": 4, "euchre5": 5}[kind]
    body = {"kind": kind, "seats": ["open"] * players, "options": options}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    gid: str = response.json()["game"]["game_id"]
    return gid


def join(client: TestClient, gid: str, seat: int, credential: str | None = None) -> dict[str, Any]:
    headers = auth(credential) if credential else {}
    response = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=headers)
    assert response.status_code == 201, response.text
    joined: dict[str, Any] = response.json()
    return joined


def table_with_bot(
    client: TestClient, key: str, kind: str = "rough", **options: Any
) -> tuple[str, dict[int, str]]:
    """A started game whose seat 0 the bot holds (joined with its key); the others' seat tokens."""
    gid = new_game(client, kind, **options)
    join(client, gid, 0, key)
    players = {"rough": 4, "five_hundred": 4, "euchre5": 5}[kind]
    return gid, {seat: join(client, gid, seat)["token"] for seat in range(1, players)}


def to_act(client: TestClient, gid: str) -> int | None:
    seat: int | None = client.get(f"/v1/games/{gid}").json()["to_act"]
    return seat


def play_until(client: TestClient, gid: str, credentials: dict[int, str], stop: int | None) -> None:
    """Each seat to act plays a legal move with its credential until seat ``stop`` is to act (None: to
    the end of the match)."""
    rng = random.Random(3)
    while (seat := to_act(client, gid)) is not None and seat != stop:
        legal = client.get(f"/v1/games/{gid}/actions", headers=auth(credentials[seat])).json()
        move = {"action": fill(legal["legal_actions"][0], rng), "expected_version": legal["version"]}
        answer = client.post(f"/v1/games/{gid}/actions", json=move, headers=auth(credentials[seat]))
        assert answer.status_code == 200, answer.text


def refused(response: Any, status: int, code: str) -> None:
    assert (response.status_code, response.json()["code"]) == (status, code), response.text


def test_a_bot_key_sees_reads_and_moves_in_its_own_seat_with_no_seat_token(client: TestClient) -> None:
    key = register(client)["api_key"]
    gid, tokens = table_with_bot(client, key)
    play_until(client, gid, tokens, stop=0)
    view = client.get(f"/v1/games/{gid}/view", headers=auth(key)).json()
    assert view["seat"] == 0 and view["legal_actions"], view
    assert client.get(f"/v1/games/{gid}/view?seat=0", headers=auth(key)).json()["seat"] == 0
    legal = client.get(f"/v1/games/{gid}/actions", headers=auth(key)).json()
    assert legal["seat"] == 0 and legal["to_act"] == 0
    move = {"action": fill(legal["legal_actions"][0], random.Random(1)), "expected_version": legal["version"]}
    moved = client.post(f"/v1/games/{gid}/actions", json=move, headers=auth(key))
    assert moved.status_code == 200 and moved.json()["seat"] == 0, moved.text
    replayed = client.post(
        f"/v1/games/{gid}/actions", json=move, headers=auth(key) | {"Idempotency-Key": "k1"}
    )
    assert replayed.status_code == 409  # the version moved on: the key acts as the seat, no more


def test_a_bot_key_leaves_its_seat_and_then_holds_none(client: TestClient) -> None:
    key = register(client)["api_key"]
    gid = new_game(client)
    join(client, gid, 2, key)
    left = client.post(f"/v1/games/{gid}/leave", headers=auth(key))
    assert left.status_code == 200 and left.json()["seat"] == 2, left.text
    refused(client.get(f"/v1/games/{gid}/actions", headers=auth(key)), 403, "seat_not_held")
    assert client.get(f"/v1/games/{gid}/view", headers=auth(key)).json()["seat"] is None  # a spectator


def test_a_bot_key_is_refused_403_in_a_seat_that_is_not_its_bots(client: TestClient) -> None:
    key = register(client)["api_key"]
    gid, _tokens = table_with_bot(client, key)
    move = {"action": {"type": "pass"}, "seat": 1}
    refused(client.post(f"/v1/games/{gid}/actions", json=move, headers=auth(key)), 403, "wrong_seat")
    refused(client.get(f"/v1/games/{gid}/view?seat=1", headers=auth(key)), 403, "wrong_seat")
    elsewhere = new_game(client)
    join(client, elsewhere, 0)
    for response in (
        client.post(f"/v1/games/{elsewhere}/actions", json={"action": {"type": "pass"}}, headers=auth(key)),
        client.get(f"/v1/games/{elsewhere}/actions", headers=auth(key)),
        client.post(f"/v1/games/{elsewhere}/leave", headers=auth(key)),
        client.get(f"/v1/games/{elsewhere}/view?seat=0", headers=auth(key)),
    ):
        refused(response, 403, "seat_not_held")


def test_a_revoked_bot_key_is_refused_401_in_the_seats_it_held(client: TestClient) -> None:
    bot = register(client)
    gid = new_game(client)
    join(client, gid, 0, bot["api_key"])
    deleted = client.delete(f"/v1/bots/{bot['bot_id']}", headers=admin_headers(client))
    assert deleted.status_code == 204, deleted.text
    for response in (
        client.get(f"/v1/games/{gid}/view", headers=auth(bot["api_key"])),
        client.get(f"/v1/games/{gid}/actions", headers=auth(bot["api_key"])),
        client.post(f"/v1/games/{gid}/leave", headers=auth(bot["api_key"])),
    ):
        refused(response, 401, "invalid_token")


def test_a_bot_key_takes_up_the_rematch_in_its_seat(client: TestClient) -> None:
    key = register(client)["api_key"]
    gid, tokens = table_with_bot(client, key, "euchre5", target_score=5)
    play_until(client, gid, {0: key, **tokens}, stop=None)
    rematch = client.post(f"/v1/games/{gid}/rematch", json={}, headers=auth(key))
    assert rematch.status_code == 201 and rematch.json()["seat"] == 0, rematch.text
    rid = rematch.json()["game"]["game_id"]
    assert client.get(f"/v1/games/{rid}/view", headers=auth(key)).json()["seat"] == 0  # its seat there too


def test_a_bot_holding_both_seats_of_a_team_names_the_one_it_acts_in(client: TestClient) -> None:
    bot = register(client, "teams")
    body = {"kind": "rough", "entrants": ["bot:random", f"account:{bot['bot_id']}"], "name": "pair"}
    created = client.post("/v1/tournaments", json=body, headers=admin_headers(client))
    assert created.status_code == 201, created.text
    gid = created.json()["games"][0]["game_id"]
    key = bot["api_key"]
    summary = client.get(f"/v1/games/{gid}").json()
    mine = [s["seat"] for s in summary["seats"] if s["name"] == "teams"]
    theirs = next(s["seat"] for s in summary["seats"] if s["seat"] not in mine)
    assert len(mine) == 2
    for seat in mine:  # each of its seats, seen with the one key (no seat token)
        assert client.get(f"/v1/games/{gid}/view?seat={seat}", headers=auth(key)).json()["seat"] == seat
    refused(client.get(f"/v1/games/{gid}/view?seat={theirs}", headers=auth(key)), 403, "wrong_seat")
    idle = next(seat for seat in mine if seat != summary["to_act"])
    move = {"action": {"type": "pass"}, "seat": idle}
    refused(client.post(f"/v1/games/{gid}/actions", json=move, headers=auth(key)), 409, "not_your_turn")
