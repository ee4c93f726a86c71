"""REST: views, legal actions and moves; every refusal of a move; idempotency; races; replays."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, auth, create, fill, seated

import engine

PROBLEM = "application/problem+json"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    return body


def first_legal(table: Table) -> tuple[int, dict[str, Any]]:
    seat = table.game()["to_act"]
    return seat, fill(table.legal(seat)[0], random.Random(0))


def test_a_seat_view_shows_its_own_hand_and_a_spectator_sees_no_hand(client: TestClient) -> None:
    table = seated(client, "rough", seed="11")
    mine = client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[1])).json()
    assert mine["seat"] == 1 and mine["version"] == 0 and mine["status"] == "active"
    assert len(mine["view"]["hand"]) == 8
    spectator = client.get(f"/v1/games/{table.game_id}/view").json()
    assert spectator["seat"] is None
    assert not spectator["view"].get("hand")


def test_asking_for_another_seats_view_is_403_wrong_seat(client: TestClient) -> None:
    table = seated(client, "rough")
    response = client.get(f"/v1/games/{table.game_id}/view?seat=2", headers=auth(table.tokens[1]))
    problem(response, 403, "wrong_seat")


def test_asking_for_a_seats_view_without_a_token_is_401(client: TestClient) -> None:
    table = seated(client, "rough")
    problem(client.get(f"/v1/games/{table.game_id}/view?seat=2"), 401, "missing_token")


def test_legal_actions_are_empty_for_a_seat_not_to_act(client: TestClient) -> None:
    table = seated(client, "euchre5", seed="2")
    to_act = table.game()["to_act"]
    assert table.legal(to_act)
    other = (to_act + 1) % 5
    assert table.legal(other) == []


def test_legal_actions_need_a_token(client: TestClient) -> None:
    table = seated(client, "rough")
    problem(client.get(f"/v1/games/{table.game_id}/actions"), 401, "missing_token")


def test_the_admin_token_is_not_a_seat_token(client: TestClient, admin_token: str) -> None:
    table = seated(client, "rough")
    actions = client.get(f"/v1/games/{table.game_id}/actions", headers=auth(admin_token))
    problem(actions, 403, "credential_not_accepted")  # a good credential, of a kind that acts in no seat


def test_an_action_bumps_the_version_by_one_and_reports_its_events(client: TestClient) -> None:
    table = seated(client, "five_hundred", seed="4")
    seat, action = first_legal(table)
    response = table.act(seat, action, expected_version=0)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["version"] == 1 and body["seat"] == seat and body["action"] == action
    assert body["events"][-1]["type"] == "turn" and body["events"][0]["type"] == "bid_made"
    assert body["to_act"] == table.game()["to_act"] != seat


def test_posting_without_a_token_is_401_missing_token(client: TestClient) -> None:
    table = seated(client, "rough")
    response = client.post(f"/v1/games/{table.game_id}/actions", json={"action": {"type": "pass"}})
    body = problem(response, 401, "missing_token")
    assert "Bearer" in body["detail"]


def test_posting_with_a_forged_token_is_401_invalid_token(client: TestClient) -> None:
    table = seated(client, "rough")
    table.tokens[0] = "forged"
    problem(table.act(0, {"type": "pass"}), 401, "invalid_token")


def test_claiming_another_seat_is_403_wrong_seat(client: TestClient) -> None:
    table = seated(client, "rough")
    seat, action = first_legal(table)
    other = (seat + 1) % 4
    body = problem(table.act(other, action, seat=seat), 403, "wrong_seat")
    assert body["token_seat"] == other


def test_playing_out_of_turn_is_409_not_your_turn(client: TestClient) -> None:
    table = seated(client, "rough")
    seat, action = first_legal(table)
    problem(table.act((seat + 1) % 4, action), 409, "not_your_turn")


def test_an_illegal_action_is_422_with_the_rule_id_and_changes_nothing(client: TestClient) -> None:
    table = seated(client, "rough", seed="3")
    seat = table.game()["to_act"]
    hand = client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])).json()["view"][
        "hand"
    ]
    body = problem(table.act(seat, {"type": "play", "card": hand[0]}), 422, "illegal_action")
    assert body["rule"]
    assert table.game()["version"] == 0


def test_an_unknown_action_type_is_422_invalid_request(client: TestClient) -> None:
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    problem(table.act(seat, {"type": "fly"}), 422, "invalid_request")


def test_a_bad_card_code_is_422_invalid_request_as_the_document_says(client: TestClient) -> None:
    """A card code is the document's pattern (as an unknown action type is its enum); a card of
    another game's deck is the game's rule (illegal_action)."""
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    for code in ("ZZ", "ts", "1S"):
        body = problem(table.act(seat, {"type": "play", "card": code}), 422, "invalid_request")
        assert body["errors"][0]["loc"][-1] == "card", body
    problem(table.act(seat, {"type": "play", "card": "BJ"}), 422, "illegal_action")


def test_a_stale_expected_version_is_409_with_the_current_version(client: TestClient) -> None:
    table = seated(client, "rough")
    seat, action = first_legal(table)
    assert table.act(seat, action, expected_version=0).status_code == 200
    seat2, action2 = first_legal(table)
    body = problem(table.act(seat2, action2, expected_version=0), 409, "version_conflict")
    assert body["current_version"] == 1
    assert table.game()["version"] == 1


def test_acting_before_the_game_starts_is_409_game_not_started(client: TestClient) -> None:
    gid = create(client, "rough")["game"]["game_id"]
    token = client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    table = Table(client, gid, {0: token})
    problem(table.act(0, {"type": "pass"}), 409, "game_not_started")


def test_a_replayed_idempotency_key_returns_the_first_result(client: TestClient) -> None:
    table = seated(client, "rough", seed="8")
    seat, action = first_legal(table)
    first = table.act(seat, action, expected_version=0, idempotency_key="move-1")
    again = table.act(seat, action, expected_version=0, idempotency_key="move-1")
    assert first.status_code == again.status_code == 200
    # the first answer again, saying it is a replay (body and header); the first said it was not
    assert first.json()["replayed"] is False and "idempotent-replayed" not in first.headers
    assert again.json() == {**first.json(), "replayed": True}
    assert again.headers["idempotent-replayed"] == "true"
    assert table.game()["version"] == 1


def test_an_idempotency_key_reused_for_another_action_is_422(client: TestClient) -> None:
    table = seated(client, "rough", seed="8")
    seat, action = first_legal(table)
    assert table.act(seat, action, expected_version=0, idempotency_key="k").status_code == 200
    problem(table.act(seat, action, expected_version=1, idempotency_key="k"), 422, "idempotency_key_reused")
    assert table.game()["version"] == 1


def test_an_overlong_idempotency_key_is_422(client: TestClient) -> None:
    table = seated(client, "rough")
    seat, action = first_legal(table)
    problem(table.act(seat, action, idempotency_key="k" * 201), 422, "invalid_request")


def test_fifty_concurrent_submissions_on_one_version_give_one_success(client: TestClient) -> None:
    table = seated(client, "rough", seed="21")
    seat = table.game()["to_act"]
    legal = table.legal(seat)
    actions = [fill(legal[i % len(legal)], random.Random(i)) for i in range(50)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        responses = list(pool.map(lambda a: table.act(seat, a, expected_version=0), actions))
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] + [409] * 49
    assert all(r.json()["current_version"] == 1 for r in responses if r.status_code == 409)
    winner = next(r.json() for r in responses if r.status_code == 200)
    assert table.game()["version"] == 1
    events = client.get(f"/v1/games/{table.game_id}/events?follow=false").text
    assert events.count("event: turn") == 1
    assert winner["action"]["type"] in {"pass", "bid"}


def test_racing_submissions_without_expected_version_apply_each_legal_move_once(client: TestClient) -> None:
    table = seated(client, "rough", seed="22")
    seat = table.game()["to_act"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(lambda _: table.act(seat, {"type": "pass"}), range(8)))
    ok = [r for r in responses if r.status_code == 200]
    assert len(ok) == 1
    assert {r.json()["code"] for r in responses if r.status_code != 200} == {"not_your_turn"}


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_a_full_match_through_rest_by_seat_tokens(client: TestClient, game: str, rng: random.Random) -> None:
    table = seated(client, game, seed=str(rng.randrange(10**6)), options=FAST_OPTIONS[game])
    final = table.play_random(rng)
    assert final["status"] == "finished" and final["winners"]
    assert final["seed"] is not None
    # once over: no more moves, and the replay log reproduces the match exactly
    problem(table.act(final["winners"][0], {"type": "pass"}), 409, "game_finished")
    log = client.get(f"/v1/games/{table.game_id}/log").json()
    assert log["version"] == final["version"] == len(log["actions"])
    options = {name: value for name, value in log["options"].items() if name != "kind"}
    m = engine.new_match(log["kind"], seed=int(log["seed"]), options=options, deal=log["deal"])
    for entry in log["actions"]:
        m = engine.apply(m, entry["seat"], entry["action"])
    assert m.winners == final["winners"]
    for seat, token in table.tokens.items():
        view = client.get(f"/v1/games/{table.game_id}/view", headers=auth(token)).json()["view"]
        assert view == engine.view(m, seat)


def test_the_log_is_409_until_the_match_is_over_except_for_the_admin(
    client: TestClient, admin_token: str
) -> None:
    table = seated(client, "rough", seed="5")
    seat, action = first_legal(table)
    table.act(seat, action)
    problem(client.get(f"/v1/games/{table.game_id}/log"), 409, "game_not_finished")
    problem(
        client.get(f"/v1/games/{table.game_id}/log", headers=auth(table.tokens[0])), 409, "game_not_finished"
    )
    log = client.get(f"/v1/games/{table.game_id}/log", headers=auth(admin_token)).json()
    assert log["seed"] == "5" and [e["action"] for e in log["actions"]] == [action]


def test_the_event_stream_of_a_finished_game_ends_and_is_filtered_per_seat(
    client: TestClient, rng: random.Random
) -> None:
    table = seated(client, "euchre5", seed="77", options=FAST_OPTIONS["euchre5"])
    table.play_random(rng)
    frames = {}
    for seat in (None, 0, 3):
        headers = auth(table.tokens[seat]) if seat is not None else {}
        frames[seat] = parse_sse(client.get(f"/v1/games/{table.game_id}/events", headers=headers).text)
    dealt = {seat: [f for f in frames[seat] if f["type"] == "dealt"] for seat in frames}
    assert dealt[None] == []
    assert {f["seat"] for f in dealt[0]} == {0} and {f["seat"] for f in dealt[3]} == {3}
    assert frames[0][-1]["type"] == "turn" and frames[0][-1]["status"] == "finished"
    public = [f for f in frames[None]]
    assert all("visible_to" not in f for f in public)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body: each frame an envelope whose ``id`` is the SSE id and whose event's
    ``type`` the SSE event name."""
    events = []
    for block in text.split("\r\n\r\n" if "\r\n" in text else "\n\n"):
        lines = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":")
        )
        if "data" in lines:
            envelope = json.loads(lines["data"])
            assert envelope["id"] == lines["id"] and envelope["event"]["type"] == lines["event"]
            events.append(envelope["event"])
    return events
