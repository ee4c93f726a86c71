"""Tournaments on the service: a round robin of the three built-in bots and a bot account the test runs
through its stream, played to the end by a real RQ worker; every game's deal verified from the key.

Short games (Le Rough to 200) and a one-second turn clock keep it well under a minute.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from gql_select import as_json
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Subprotocol

import engine
from schema import graphql_bodies as gt
from schema import tournaments as st
from workers import bots
from workers import tournament as t

JSON = dict[str, Any]


def register(client: TestClient, name: str) -> JSON:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    body: JSON = response.json()
    return body


def notices(client: TestClient, key: str, after: str | None) -> list[JSON]:
    headers = auth(key) | ({"Last-Event-ID": after} if after else {})
    text = client.get("/v1/bots/me/stream?follow=false", headers=headers).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


class StreamBot:
    """A bot account as its author would write it: seat tokens from ``tournament_game``, moves on
    ``your_turn`` (the heuristic strategy), everything read from its one stream."""

    def __init__(self, client: TestClient, key: str) -> None:
        self.client, self.key = client, key
        self.tokens: dict[tuple[str, int], str] = {}
        self.after: str | None = None
        self.moves = 0
        self.rng = random.Random(7)

    def step(self) -> None:
        for notice in notices(self.client, self.key, self.after):
            self.after = notice["id"]
            if notice["type"] == "tournament_game":
                assert len(notice["seats"]) == len(notice["tokens"]) == 2
                for seat, token in zip(notice["seats"], notice["tokens"], strict=True):
                    self.tokens[(notice["game_id"], seat)] = token
            elif notice["type"] == "your_turn":
                token = self.tokens[(notice["game_id"], notice["seat"])]  # told before its first turn
                action = bots.choose("heuristic", notice["view"], notice["legal_actions"], self.rng, 0.01)
                body = {"action": action, "expected_version": notice["version"]}
                response = self.client.post(
                    f"/v1/games/{notice['game_id']}/actions", json=body, headers=auth(token)
                )
                assert response.status_code in (200, 409), response.text  # 409: the clock played it
                self.moves += response.status_code == 200


def test_a_round_robin_of_four_entrants_plays_to_the_end_and_every_deal_is_verifiable(
    client: TestClient, rq_worker: str
) -> None:
    bot = register(client, "stream-bot")
    entrants = ["bot:random", "bot:heuristic", "bot:expert", f"account:{bot['bot_id']}"]
    body = {"kind": "rough", "entrants": entrants, "target_score": 200, "move_seconds": 2, "name": "test"}
    created = client.post("/v1/tournaments", json=body, headers=admin_headers(client))
    assert created.status_code == 201, created.text
    tour = created.json()
    assert tour["status"] == "running" and tour["key"] is None and tour["rounds"] == 3
    assert [e["name"] for e in tour["entrants"]] == [*entrants[:3], "stream-bot"]
    assert len(tour["games"]) == 4  # round 1: two tables, one duplicate deal, two seatings
    tid, commitment = tour["tournament_id"], tour["commitment"]

    player = StreamBot(client, bot["api_key"])
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        player.step()
        tour = client.get(f"/v1/tournaments/{tid}").json()
        if tour["status"] != "running":
            break
        time.sleep(0.05)
    assert tour["status"] == "finished", tour
    assert player.moves > 0

    games = tour["games"]
    assert len(games) == 3 * 2 * 2 and all(g["status"] == "finished" for g in games)
    pairs = {frozenset((g["a"], g["b"])) for g in games}
    assert len(pairs) == 6  # everyone met everyone
    by_name = {s["entrant"]: s for s in tour["standings"]}
    assert all(s["games"] == 6 and s["deals"] == 3 for s in tour["standings"])
    rnd, heu, exp = by_name[0], by_name[1], by_name[2]
    # The order of strength, as far as three deals each can tell: random clearly last; the expert
    # (10 ms a move on the test worker) ahead of the heuristic or, when its deals went the other
    # way, not below it beyond its interval (with this budget the expert's mean was ahead on 16
    # keys of 25 in workers.arena.run_tournament: about 2 in 3).
    assert rnd["points_per_deal"] < min(heu["points_per_deal"], exp["points_per_deal"]), tour["standings"]
    assert exp["ci95_high"] >= heu["points_per_deal"], tour["standings"]
    for s in tour["standings"]:
        assert s["ci95_low"] <= s["points_per_deal"] <= s["ci95_high"]
    assert len(tour["head_to_head"]) == 12

    # Fair play: the key revealed matches the commitment published at creation, and every game's
    # match key (hence every hand) follows from it; each game's log verifies on its own.
    key = bytes.fromhex(tour["key"])
    assert hashlib.sha256(key).hexdigest() == commitment
    for g in games:
        summary = client.get(f"/v1/games/{g['game_id']}").json()
        assert t.verify(key, commitment, g["round"], g["table"], g["deal"], summary["commitment"])
        log = client.get(g["replay"]).json()
        assert log["key"] == t.game_key(key, g["round"], g["table"], g["deal"]).hex()
        assert engine.verify_log(log) == []
    # The event stream, read after the end: every step once or more, in order, the key at the end.
    text = client.get(f"/v1/tournaments/{tid}/events?follow=false").text
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "tournament_created" and kinds[-1] == "tournament_finished"
    assert kinds.count("round_started") == 3 and kinds.count("round_finished") >= 3
    finished = [st.TournamentGame.model_validate(e["game"]) for e in events if e["type"] == "game_finished"]
    assert all(g.replay == f"/v1/games/{g.game_id}/log" for g in finished)  # the contract's game, whole
    assert {e["game"]["game_id"] for e in events if e["type"] == "game_finished"} == {
        g["game_id"] for g in games
    }
    assert events[-1]["key"] == tour["key"] and events[-1]["standings"] == tour["standings"]
    ndjson = client.get(
        f"/v1/tournaments/{tid}/events?follow=false", headers={"Accept": "application/x-ndjson"}
    )
    assert [json.loads(line)["type"] for line in ndjson.text.splitlines()] == kinds
    gone = client.get("/v1/tournaments/nope/events?follow=false")
    assert (gone.status_code, gone.json()["code"]) == (404, "tournament_not_found")
    twins = {}
    for g in games:
        twins.setdefault((g["round"], g["table"], g["deal"]), []).append(g["game_id"])
    for first, second in twins.values():  # the duplicate: the same hands, the teams swapped
        a, b = (client.get(f"/v1/games/{gid}/log").json() for gid in (first, second))
        assert a["hands"][0]["hands"] == b["hands"][0]["hands"]


def test_a_tournament_that_is_not_duplicate_deals_each_game_its_own_cards_and_they_verify(
    client: TestClient, rq_worker: str
) -> None:
    """``duplicate: false`` (strangers' bots): no entrant holds the same cards twice, so remembering a
    game tells nothing of another; each game's key follows from the tournament key and its seating."""
    body = {
        "kind": "rough",
        "entrants": ["bot:random", "bot:heuristic"],
        "target_score": 200,
        "deals": 2,
        "duplicate": False,
    }
    created = client.post("/v1/tournaments", json=body, headers=admin_headers(client))
    assert created.status_code == 201, created.text
    tour = created.json()
    assert tour["duplicate"] is False and len(tour["games"]) == 4
    deadline = time.monotonic() + 90
    while tour["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
        tour = client.get(f"/v1/tournaments/{tour['tournament_id']}").json()
    assert tour["status"] == "finished", tour
    key, commitment = bytes.fromhex(tour["key"]), tour["commitment"]
    first_hands = set()
    for g in tour["games"]:
        summary = client.get(f"/v1/games/{g['game_id']}").json()
        where = (g["round"], g["table"], g["deal"])
        assert t.verify(key, commitment, *where, summary["commitment"], seating=g["seating"])
        assert not t.verify(key, commitment, *where, summary["commitment"])
        log = client.get(g["replay"]).json()
        assert engine.verify_log(log) == []
        first_hands.add(json.dumps(log["hands"][0]["hands"]))
    assert len(first_hands) == 4  # four games, four different deals: no seating's cards seen twice


def test_who_may_create_a_tournament_and_what_is_refused(client: TestClient) -> None:
    body = {"kind": "rough", "entrants": ["bot:random", "bot:heuristic"]}
    assert client.post("/v1/tournaments", json=body).json()["code"] == "missing_token"
    refused = client.post("/v1/tournaments", json=body, headers=auth("not-a-key"))
    assert (refused.status_code, refused.json()["code"]) == (401, "invalid_token")  # no credential at all
    player = client.post("/v1/players", json={}).json()["token"]
    refused = client.post("/v1/tournaments", json=body, headers=auth(player))  # a player's: not this kind
    assert (refused.status_code, refused.json()["code"]) == (403, "credential_not_accepted")
    bot = register(client, "organiser")
    euchre = client.post("/v1/tournaments", json=body | {"kind": "euchre5"}, headers=auth(bot["api_key"]))
    assert (euchre.status_code, euchre.json()["code"]) == (422, "invalid_request")
    swiss = client.post("/v1/tournaments", json=body | {"format": "swiss"}, headers=auth(bot["api_key"]))
    assert (swiss.status_code, swiss.json()["code"]) == (422, "invalid_tournament")
    twice = body | {"entrants": [f"account:{bot['bot_id']}"] * 2}
    again = client.post("/v1/tournaments", json=twice, headers=auth(bot["api_key"]))
    assert (again.status_code, again.json()["code"]) == (422, "invalid_tournament")
    ghost = client.post(
        "/v1/tournaments",
        json=body | {"entrants": ["bot:random", "account:nobody"]},
        headers=admin_headers(client),
    )
    assert (ghost.status_code, ghost.json()["code"]) == (404, "bot_not_found")
    theirs = client.post(  # another account, entered by a bot account: not without its consent
        "/v1/tournaments",
        json=body | {"entrants": ["bot:random", "account:nobody"]},
        headers=auth(bot["api_key"]),
    )
    assert (theirs.status_code, theirs.json()["code"]) == (403, "entrant_not_allowed")
    big = body | {"entrants": ["bot:random"] * 64, "deals": 16}
    too_many = client.post("/v1/tournaments", json=big, headers=admin_headers(client))
    assert (too_many.status_code, too_many.json()["code"]) == (422, "invalid_tournament")
    odd = client.post("/v1/tournaments", json=body | {"target_score": 275}, headers=admin_headers(client))
    assert (odd.status_code, odd.json()["code"]) == (422, "invalid_options")
    low = client.post("/v1/tournaments", json=body | {"target_score": 123}, headers=admin_headers(client))
    assert (low.status_code, low.json()["code"]) == (422, "invalid_request")
    missing = client.get("/v1/tournaments/nope")
    assert (missing.status_code, missing.json()["code"]) == (404, "tournament_not_found")
    made = client.post("/v1/tournaments", json=body, headers=auth(bot["api_key"]))
    assert made.status_code == 201, made.text
    assert client.post("/v1/tournaments", json=body, headers=auth(bot["api_key"])).status_code == 201
    third = client.post("/v1/tournaments", json=body, headers=auth(bot["api_key"]))  # two running at most
    assert (third.status_code, third.json()["code"]) == (429, "too_many_tournaments")
    assert third.headers["Retry-After"] == "60" and third.json()["limit"] == 2
    assert client.post("/v1/tournaments", json=body, headers=admin_headers(client)).status_code == 201
    big_for_a_bot = body | {"entrants": ["bot:random"] * 8, "deals": 16}  # 7 x 4 x 32 = 896 > 400
    bot_cap = client.post(
        "/v1/tournaments", json=big_for_a_bot, headers=auth(register(client, "b2")["api_key"])
    )
    assert (bot_cap.status_code, bot_cap.json()["code"]) == (422, "invalid_tournament")
    read = client.get(f"/v1/tournaments/{made.json()['tournament_id']}").json()
    assert read["commitment"] == made.json()["commitment"] and read["key"] is None


def gql(client: TestClient, query: str, token: str | None = None, **variables: Any) -> JSON:
    headers = auth(token) if token else {}
    response = client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    body: JSON = response.json()
    return body


CREATE = """mutation($entrants: [String!]!, $game: GameKind!, $target: Int) {
  createTournament(input: {kind: $game, entrants: $entrants, targetScore: $target, moveSeconds: 5}) {
    tournamentId status rounds commitment key targetScore entrants { index entrant name }
    games { gameId round table deal seating a b status replay }
    standings { rank entrant games deals pointsPerDeal ci95Low ci95High wins flaggedGames }
  }
}"""


def test_graphql_creates_and_reads_a_tournament_as_rest_does(client: TestClient) -> None:
    bot = register(client, "gql-organiser")
    entrants = ["bot:random", f"account:{bot['bot_id']}", "bot:heuristic"]
    made = gql(client, CREATE, bot["api_key"], entrants=entrants, game="FIVE_HUNDRED", target=300)
    assert "errors" not in made, made
    tour = made["data"]["createTournament"]
    assert tour["status"] == "RUNNING" and tour["rounds"] == 3 and tour["key"] is None
    assert tour["targetScore"] == 300 and len(tour["games"]) == 2  # three entrants: one sits out
    rest = client.get(f"/v1/tournaments/{tour['tournamentId']}").json()
    assert rest["commitment"] == tour["commitment"]
    assert [g["game_id"] for g in rest["games"]] == [g["gameId"] for g in tour["games"]]
    read = gql(
        client,
        "query($id: ID!) { tournament(tournamentId: $id) { tournamentId commitment round } }",
        id=tour["tournamentId"],
    )
    expected = {"tournamentId": tour["tournamentId"], "commitment": tour["commitment"], "round": 1}
    assert read["data"]["tournament"] == expected
    # The bot account's stream: its seats and tokens first, as botTurns gives them too.
    told = [n for n in notices(client, bot["api_key"], None) if n["type"] == "tournament_game"]
    assert {n["game_id"] for n in told} == {g["gameId"] for g in tour["games"]}

    refused = gql(client, CREATE, None, entrants=entrants, game="EUCHRE5")
    assert refused["errors"][0]["extensions"]["code"] == "invalid_request"
    forbidden = gql(client, CREATE, "nope", entrants=entrants, game="ROUGH")
    assert forbidden["errors"][0]["extensions"]["code"] == "tournament_forbidden"
    missing = gql(client, '{ tournament(tournamentId: "nope") { tournamentId } }')
    assert missing["errors"][0]["extensions"]["code"] == "tournament_not_found"


def test_the_graphql_types_have_the_rest_models_fields() -> None:
    pairs = [
        (gt.TournamentEntrant, st.TournamentEntrant),
        (gt.TournamentGame, st.TournamentGame),
        (gt.TournamentStanding, st.TournamentStanding),
        (gt.HeadToHeadRecord, st.HeadToHeadRecord),
    ]
    for graphql_type, model in pairs:
        assert set(graphql_type.__annotations__) == set(model.model_fields), graphql_type
    tournament = set(gt.Tournament.__annotations__)
    assert tournament == set(st.Tournament.model_fields) - {"options"} | {"target_score"}


EVENTS = """subscription($id: ID!, $after: String) {
  tournamentEvents(tournamentId: $id, after: $after) {
    __typename id type tournamentId
    ... on TournamentCreated { commitment rounds }
    ... on RoundStarted { round gameIds }
    ... on TournamentFinished { commitment key status }
  }
}"""


@contextmanager
def subscribe(base: str, tid: str) -> Iterator[ClientConnection]:
    with connect(
        f"ws{base[4:]}/graphql", subprotocols=[Subprotocol("graphql-transport-ws")], open_timeout=10
    ) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        payload = {"query": EVENTS, "variables": {"id": tid}}
        ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        yield ws


def test_the_tournament_events_subscription_gives_what_the_rest_stream_gives(
    live_server: str, admin_token: str
) -> None:
    with httpx.Client(base_url=live_server, timeout=30) as http:
        body = {"kind": "rough", "entrants": ["bot:random", "bot:heuristic"], "target_score": 200}
        tour = http.post("/v1/tournaments", json=body, headers=auth(admin_token)).json()
        rest = http.get(f"/v1/tournaments/{tour['tournament_id']}/events?follow=false").text
    frames = [json.loads(line[6:]) for line in rest.splitlines() if line.startswith("data: ")]
    assert [f["type"] for f in frames] == ["tournament_created", "round_started"]  # no worker: round 1 waits
    with subscribe(live_server, tour["tournament_id"]) as ws:
        got = [json.loads(ws.recv(timeout=10))["payload"]["data"]["tournamentEvents"] for _ in range(2)]
    assert [(g["id"], as_json(g)["type"]) for g in got] == [(f["id"], f["type"]) for f in frames]
    assert got[0]["__typename"] == "TournamentCreated" and got[1]["__typename"] == "RoundStarted"
    assert got[0]["commitment"] == tour["commitment"] and got[0]["rounds"] == 1 and "key" not in got[0]
    assert got[1]["gameIds"] == [g["game_id"] for g in tour["games"]]
    with subscribe(live_server, "nope") as ws:
        refused = json.loads(ws.recv(timeout=10))
    assert (
        refused["type"] == "error" and refused["payload"][0]["extensions"]["code"] == "tournament_not_found"
    )
