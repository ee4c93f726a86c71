"""A player's events reach the app's backend (issue 23): played games send ``your_turn`` (each turn of a
player's seat, once), ``game_finished`` and ``reminder``, and an invitation sends ``invitation``, each
delivered by a real webhook worker to a real receiver that verifies the Standard Webhooks signature.
No message carries a card (ALL-7): the leak check runs over every message of whole random matches."""

from __future__ import annotations

import json
import random
import time
from datetime import datetime
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import auth, create, fill
from test_leaks import DECKS, cards_in
from test_matchmaking import queue, run_pass
from test_players import guest, table_with
from test_webhooks import Receiver, Worker, receiver, settings, subscribed, wait_for, webhook_worker

from service.api.app import create_app
from service.base.settings import Settings

__all__ = ["receiver", "settings", "webhook_worker"]  # the fixtures, shared with test_webhooks

EVENTS = ("your_turn", "invitation", "game_finished", "reminder")


def messages(receiver: Receiver, event_type: str) -> list[dict[str, Any]]:
    with receiver.lock:
        return [p for p in receiver.applied.values() if p["type"] == event_type]


@pytest.mark.parametrize("game", ["rough", "euchre5"])
def test_a_players_turns_and_the_end_reach_the_backend_without_a_card(
    client: TestClient, receiver: Receiver, webhook_worker: Worker, game: str, rng: random.Random
) -> None:
    subscribed(client, receiver, *EVENTS)
    webhook_worker()
    token = guest(client)["token"]
    player_id = client.get("/v1/me", headers=auth(token)).json()["player_id"]
    table = table_with(client, game, token, player_seat=1)
    turns: list[int] = []
    for _ in range(3000):
        state = table.game()
        if state["status"] == "finished":
            break
        seat = state["to_act"]
        if seat == 1:
            turns.append(state["version"])
        legal = client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])).json()
        moved = table.act(
            seat, fill(rng.choice(legal["legal_actions"]), rng), expected_version=state["version"]
        )
        assert moved.status_code == 200, moved.text
    finished = wait_for(lambda: messages(receiver, "game_finished"), "game_finished")
    assert finished[0]["data"]["game_id"] == table.game_id
    assert finished[0]["data"]["player_ids"][1] == player_id and finished[0]["data"]["winners"]

    def every_turn() -> list[dict[str, Any]]:
        sent = messages(receiver, "your_turn")
        return sent if len(sent) >= len(turns) else []

    mine = wait_for(every_turn, "every your_turn")
    assert sorted(m["data"]["version"] for m in mine) == turns  # each turn of the player's once
    assert {(m["data"]["seat"], m["data"]["player_id"]) for m in mine} == {(1, player_id)}
    assert not receiver.forged
    for payload in receiver.applied.values():  # never a card, whatever the moment
        assert not cards_in(payload, DECKS[game]), payload
        assert set(payload["data"]) <= {
            "game_id", "kind", "seat", "version", "player_id", "deadline_at", "winners", "player_ids",
        }  # fmt: skip


@pytest.fixture
def loopback_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `atout worker` of ``rq_worker`` (every queue, webhooks too) may deliver to the loopback."""
    monkeypatch.setenv("ATOUT_WEBHOOK_ALLOW_PRIVATE", "true")


def test_an_invitation_and_a_reminder_reach_the_backend(
    settings: Settings, receiver: Receiver, loopback_hooks: None, rq_worker: str
) -> None:
    settings = settings.model_copy(update={"reminder_min_turn_seconds": 6})
    with TestClient(create_app(settings)) as client:
        subscribed(client, receiver, *EVENTS)
        host, friend = guest(client, "Host"), guest(client, "Friend")
        gid = create(client, "rough")["game"]["game_id"]
        assert client.post(f"/v1/games/{gid}/join", json={}, headers=auth(host["token"])).status_code == 201
        sent = client.post(
            f"/v1/games/{gid}/invitations",
            json={"player_id": friend["player_id"]},
            headers=auth(host["token"]),
        ).json()
        invited = wait_for(lambda: messages(receiver, "invitation"), "the invitation")[0]["data"]
        assert (
            invited["invitation_id"] == sent["invitation_id"] and invited["player_id"] == friend["player_id"]
        )
        assert invited["from_player_id"] == host["player_id"] and "Host" not in json.dumps(invited)
        table = table_with(client, "rough", friend["token"], player_seat=0, turn_seconds=8)
        while (state := table.game())["to_act"] != 0:
            seat = state["to_act"]
            action = fill(random.Random(3).choice(table.legal(seat)), random.Random(3))
            assert table.act(seat, action, expected_version=state["version"]).status_code == 200
        version = state["version"]
        reminder = wait_for(lambda: messages(receiver, "reminder"), "the reminder")[0]["data"]
        assert (reminder["game_id"], reminder["seat"], reminder["version"]) == (table.game_id, 0, version)
        assert reminder["player_id"] == friend["player_id"] and reminder["deadline_at"]
        assert time.time() < datetime.fromisoformat(reminder["deadline_at"]).timestamp() + 60


def test_a_match_found_reaches_the_backend_once_per_player_with_its_seat_and_no_card(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    subscribed(client, receiver, "match_found")
    webhook_worker()
    players = [guest(client, f"P{i}") for i in range(4)]
    tickets = {queue(client, p["token"])["ticket_id"]: p["player_id"] for p in players}
    run_pass(client)
    run_pass(client)  # a second pass finds nothing to open, and tells no one again
    wait_for(lambda: len(messages(receiver, "match_found")) >= 4, "4 match_found")
    time.sleep(1.0)  # a duplicate would have come by now
    sent = messages(receiver, "match_found")
    assert sorted(m["data"]["player_id"] for m in sent) == sorted(tickets.values())
    assert {tickets[m["data"]["ticket_id"]] for m in sent} == set(tickets.values())
    (game_id,) = {m["data"]["game_id"] for m in sent}
    seats = client.get(f"/v1/games/{game_id}").json()["seats"]
    names = {p["player_id"]: p["name"] for p in players}
    for message in sent:
        data = message["data"]
        assert seats[data["seat"]]["name"] == names[data["player_id"]]
        assert not cards_in(message, DECKS["rough"]), message
        assert set(data) == {"ticket_id", "game_id", "kind", "seat", "version", "player_id"}
