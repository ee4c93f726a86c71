"""One request a move (issue 22): whole matches of each game, through REST and through GraphQL, where a
seat learns its turn and its legal actions only from its own move's answer (``next_turn`` when it
acts again at once) or from its own event stream (a private ``your_turn``), never from
``GET …/actions`` or ``legalActions``. Each seat's stream carries a ``your_turn`` for its own turns
only (ALL-7: legal actions tell the seat's cards); the leak property tests (test_leaks.py) check the
cards in them over many random matches."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from gql_select import as_action_input, as_json, select
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, auth, fill, seated
from test_graphql import GAME, data, seated_gql, subscribe

GAMES = ("five_hundred", "rough", "euchre5")
MOVES = 3000  # bounded: a fast match is a few hundred moves


def frames(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The (id, data) of each Server-Sent Event of ``text``."""
    found, eid = [], ""
    for line in text.splitlines():
        if line.startswith("id: "):
            eid = line[4:]
        elif line.startswith("data: "):
            found.append((eid, json.loads(line[6:])))
    return found


class SeatStream:
    """One seat's event stream, read as a client that resumes with its Last-Event-ID."""

    def __init__(self, client: TestClient, gid: str, seat: int, token: str) -> None:
        self.client, self.gid, self.seat, self.token, self.last = client, gid, seat, token, ""

    def new_events(self) -> list[dict[str, Any]]:
        """The events of the envelopes read since the last one (each envelope's ``event``)."""
        headers = {**auth(self.token), **({"Last-Event-ID": self.last} if self.last else {})}
        text = self.client.get(f"/v1/games/{self.gid}/events?follow=false", headers=headers).text
        got = frames(text)
        if got:
            self.last = got[-1][0] or self.last
        return [envelope["event"] for _, envelope in got]


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_through_rest_following_only_answers_and_streams(
    client: TestClient, game: str, rng: random.Random
) -> None:
    table = seated(client, game, options=FAST_OPTIONS[game])
    streams = {seat: SeatStream(client, table.game_id, seat, token) for seat, token in table.tokens.items()}
    seat, version = table.game()["to_act"], 0  # one public read starts the match
    legal: list[dict[str, Any]] | None = None
    moves = again = 0
    while seat is not None:
        if legal is None:  # another seat moved last: this seat's turn comes on its own stream
            offers = [e for e in streams[seat].new_events() if e["type"] == "your_turn"]
            assert offers, f"seat {seat}'s stream did not tell it its turn"
            offer = offers[-1]
            assert offer["seat"] == seat and offer["visible_to"] == [seat]
            version, legal = offer["version"], offer["legal_actions"]
        answer = table.act(seat, fill(rng.choice(legal), rng), expected_version=version)
        assert answer.status_code == 200, answer.text  # the turn was current: no 409, no 422
        moved = answer.json()
        moves += 1
        assert moved["version"] == version + 1 and moves < MOVES
        assert all(event["type"] != "your_turn" for event in moved["events"])  # the answer says next_turn
        turn = moved["next_turn"]
        if moved["to_act"] == seat:  # this seat again (it took the kitty, it leads the next trick)
            assert turn is not None and turn["seat"] == seat and turn["version"] == moved["version"], moved
            assert turn["view"]["to_act"] == seat and turn["view"]["hand"] is not None
            version, legal, again = turn["version"], turn["legal_actions"], again + 1
        else:
            assert turn is None, "another player's legal actions reached the mover"
            legal = None
        seat = moved["to_act"]
    assert moved["status"] == "finished" and again > 0
    assert len(client.get(f"/v1/games/{table.game_id}/log").json()["actions"]) == moves
    for stream in streams.values():  # no seat was ever offered another seat's turn
        stream.last = ""
        offers = [e for e in stream.new_events() if e["type"] == "your_turn"]
        assert offers and {e["seat"] for e in offers} == {stream.seat}


LEGAL = select("LegalAction")
SUBMIT = f"""mutation($id: ID!, $action: ActionInput!, $v: Int) {{
  submitAction(input: {{gameId: $id, action: $action, expectedVersion: $v}}) {{
    version toAct status events {{ __typename }} nextTurn {{ seat version legalActions {{ {LEGAL} }} }}
  }}
}}"""


def your_turn(ws: Any, seat: int) -> dict[str, Any]:
    """The next ``YourTurn`` event of a seat's ``gameEvents`` subscription (skipping other events)."""
    for _ in range(MOVES * 4):
        message = ws.receive_json()
        assert message["type"] == "next", message
        event = message["payload"]["data"]["gameEvents"]["event"]
        if event["__typename"] == "YourTurn":
            assert event["seat"] == seat and event["visibleTo"] == [seat]
            return dict(event)
    raise AssertionError(f"seat {seat} was never told its turn")


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_through_graphql_following_only_answers_and_subscriptions(
    client: TestClient, game: str, rng: random.Random
) -> None:
    gid, tokens = seated_gql(client, game, options=FAST_OPTIONS[game])
    sockets = {
        seat: client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) for seat in tokens
    }
    try:
        for seat, ws in sockets.items():
            subscribe(ws.__enter__(), gid, token=tokens[seat])
        seat = data(client, GAME, id=gid)["game"]["toAct"]  # one public read starts the match
        legal: list[dict[str, Any]] | None = None
        version = moves = 0
        told = dict.fromkeys(tokens, 0)  # your_turn events each seat read
        while seat is not None:
            if legal is None:
                while True:  # the stream may still hold this seat's earlier turns: the current one
                    offer = your_turn(sockets[seat], seat)
                    told[seat] += 1
                    if offer["version"] >= version:
                        break
                version, legal = offer["version"], as_json(offer["legalActions"])
            action = as_action_input(fill(rng.choice(legal), rng))
            moved = data(client, SUBMIT, tokens[seat], id=gid, action=action, v=version)["submitAction"]
            moves += 1
            assert moved["version"] == version + 1 and moves < MOVES
            turn = moved["nextTurn"]
            if moved["toAct"] == seat:
                assert turn is not None and turn["seat"] == seat and turn["version"] == moved["version"]
                version, legal = turn["version"], as_json(turn["legalActions"])
            else:
                assert turn is None
                legal, version = None, moved["version"]
            seat = moved["toAct"]
        assert moved["status"] == "FINISHED" and all(told.values())
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
