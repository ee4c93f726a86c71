"""No view, delivered event or player notice gives a seat (or a spectator) a card hidden from it
(docs/rules.md ALL-7). Seats are taken at random by players (whose /v1/me/events is checked too) or
with seat tokens.

The hidden cards are worked out from the raw event stream, independently of the engine's views:
the other seats' dealt cards, the kitty and the other seats' discards, minus what has been shown
face up (played, the euchre upcard, a called card). At the end of a hand everything is public.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis
from gql_select import as_json, select, without_nulls
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, PLAYERS, Table, admin_headers, auth, fill
from test_matchmaking import run_pass

import engine
from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import events_key, game_key

DECKS = {g: set(info["deck"]) for g, info in engine.games().items()}
REVEALS = {
    "play": ("card",),
    "upcard": ("card",),
    "upcard_turned_down": ("card",),
    "exchange": ("took",),
    "partner_called": ("card",),
    "partner_revealed": ("card",),
}
END_OF_HAND = {"hand_scored", "match_over", "hand_void"}
# Private events that offer a seat its legal actions: they may hold only cards the seat has already
# seen (its hand), so they add nothing to its knowledge, and one reaching another seat is a leak.
OFFERS = {"your_turn"}


def cards_in(value: Any, deck: set[str]) -> set[str]:
    if isinstance(value, str):
        return {value} & deck
    if isinstance(value, dict):
        return set().union(*(cards_in(v, deck) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v, deck) for v in value)) if value else set()
    return set()


class Knowledge:
    """Who has seen which card in the current hand, from the raw (unfiltered) event stream."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.reset()

    def reset(self) -> None:
        self.secret: set[str] = set()  # cards not yet shown face up
        self.seen: dict[int, set[str]] = {s: set() for s in range(self.players)}

    def learn(self, raw: dict[str, Any], deck: set[str]) -> None:
        kind = raw["type"]
        if kind == "hand_started":
            self.reset()
            self.secret = set(deck)
        for key in REVEALS.get(kind, ()):
            self.secret -= cards_in(raw.get(key), deck)
        if kind == "trick":
            self.secret -= cards_in(raw.get("cards"), deck)
        if kind in OFFERS:
            return  # what a seat may do shows only its own cards: it teaches nobody anything
        for seat in raw.get("visible_to", ()):
            self.seen[seat] |= cards_in(raw, deck)

    def hidden_from(self, seat: int | None) -> set[str]:
        return self.secret - (self.seen[seat] if seat is not None else set())


def raw_events(r: redis.Redis, gid: str, after: str = "-") -> list[tuple[str, dict[str, Any]]]:
    start = f"({after}" if after != "-" else "-"
    entries: Any = r.xrange(events_key(gid), min=start)
    return [(eid, json.loads(fields["e"])) for eid, fields in entries]


def current(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without the views' ``last_hand`` (a finished hand, public: END_OF_HAND) and without
    the partner calls among its legal actions: a call names a card the seat does not hold (E5-7), any
    of them, which tells nothing of where it is."""
    kept: dict[str, Any] = {}
    for key, value in answer.items():
        if key == "last_hand":
            continue
        if key in ("legal_actions", "actions") and isinstance(value, list):  # a view's, your_turn's
            value = [action for action in value if action["type"] != "call_partner"]
        kept[key] = current(value) if isinstance(value, dict) else value
    return kept


def check_views(
    client: TestClient, table: Table, knowledge: Knowledge, deck: set[str], graphql: bool
) -> None:
    for seat in [None, *range(knowledge.players)]:
        headers = auth(table.tokens[seat]) if seat is not None else {}
        answer = client.get(f"/v1/games/{table.game_id}/view", headers=headers).json()
        view = answer["view"]
        leaked = cards_in(current(answer), deck) & knowledge.hidden_from(seat)
        assert not leaked, f"seat {seat} sees hidden {leaked} in its view or legal actions"
        if seat is None:
            assert answer["legal_actions"] is None, "a spectator is offered actions"
        if graphql:
            body = client.post(
                "/graphql",
                json={
                    "query": f"query($id: ID!) {{ view(gameId: $id) {{ view {{ {select('GameView')} }} }} }}",
                    "variables": {"id": table.game_id},
                },
                headers=headers,
            ).json()
            assert as_json(body["data"]["view"]["view"]) == without_nulls(view)  # the same, typed


def delivered_events(text: str) -> dict[str, dict[str, Any]]:
    """The events of an SSE body by stream id: each frame's envelope ``event``, as the seat got it."""
    events: dict[str, dict[str, Any]] = {}
    eid: str | None = None
    for line in text.splitlines():
        if line.startswith("id: "):
            eid = line[4:]
        elif line.startswith("data: ") and eid is not None:
            envelope = json.loads(line[6:])
            assert envelope["id"] == eid
            events[eid], eid = envelope["event"], None
    return events


def check_events(client: TestClient, table: Table, r: redis.Redis, game: str) -> None:
    """Each seat's (and a spectator's) stream holds every event it may see and none other (ALL-7),
    and no delivered event, in its public form, shows a card hidden from that seat."""
    deck = DECKS[game]
    stream = raw_events(r, table.game_id)
    for seat in [None, *range(PLAYERS[game])]:
        headers = auth(table.tokens[seat]) if seat is not None else {}
        text = client.get(f"/v1/games/{table.game_id}/events?follow=false", headers=headers).text
        delivered = delivered_events(text)
        knowledge = Knowledge(PLAYERS[game])
        for eid, raw in stream:
            knowledge.learn(raw, deck)
            visible = raw.get("visible_to")
            if visible is not None and seat not in visible:
                assert eid not in delivered, f"seat {seat} got private event {raw}"
                continue
            assert eid in delivered, f"seat {seat} missed event {raw}"
            if raw["type"] in END_OF_HAND:
                continue
            leaked = cards_in(current(delivered[eid]), deck) & knowledge.hidden_from(seat)
            assert not leaked, f"seat {seat} got hidden {leaked} in {delivered[eid]}"


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_no_view_or_event_leaks_a_hidden_card(
    settings: Settings, redis_client: redis.Redis, game: str, rng: random.Random
) -> None:
    # every event from the first one on: a stream window past any match (none is trimmed)
    with TestClient(create_app(settings.model_copy(update={"stream_window": 100_000}))) as client:
        check_matches(client, redis_client, game, rng)


def seated_with_players(client: TestClient, game: str, rng: random.Random) -> tuple[Table, dict[int, str]]:
    """A started game whose seats are joined at random by players (their token holds the seat and
    follows /v1/me/events) or with seat tokens; the players' streams by seat."""
    created = client.post(
        "/v1/games",
        json={"kind": game, "seed": str(rng.randrange(10**9)), "options": FAST_OPTIONS[game]},
        headers=admin_headers(client),
    ).json()
    table = Table(client, created["game"]["game_id"])
    players: dict[int, str] = {}
    for seat in range(created["game"]["players"]):
        player = rng.random() < 0.5
        token = client.post("/v1/players", json={}).json()["token"] if player else None
        joined = client.post(
            f"/v1/games/{table.game_id}/join", json={"seat": seat}, headers=auth(token) if token else {}
        )
        assert joined.status_code == 201, joined.text
        table.tokens[seat] = token or joined.json()["token"]
        if token:
            players[seat] = token
    return table, players


def seated_by_matchmaking(client: TestClient, game: str, rng: random.Random) -> tuple[Table, dict[int, str]]:
    """A game opened by Play now (issue 35): a table's worth of players queue tickets for ``game`` and
    the matcher seats them, each playing with its own credential. A ticket reads for its owner only."""
    tokens = [client.post("/v1/players", json={}).json()["token"] for _ in range(PLAYERS[game])]
    body = {"kind": game, "options": FAST_OPTIONS[game]}
    tickets = {}
    for token in rng.sample(tokens, len(tokens)):
        answer = client.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
        assert answer.status_code == 201, answer.text
        tickets[answer.json()["ticket_id"]] = token
    run_pass(client)
    players: dict[int, str] = {}
    games: set[str] = set()
    table = Table(client, "")
    for tid, token in tickets.items():
        mine = client.get(f"/v1/matchmaking/tickets/{tid}", headers=auth(token)).json()
        assert mine["status"] == "matched", mine
        table.game_id = mine["game_id"]
        games.add(table.game_id)
        table.tokens[mine["seat"]], players[mine["seat"]] = token, token
        for other in set(tickets.values()) - {token}:  # another player: not found, not forbidden
            assert client.get(f"/v1/matchmaking/tickets/{tid}", headers=auth(other)).status_code == 404
    assert len(games) == 1 and sorted(players) == list(range(PLAYERS[game]))
    return table, players


class PlayerStreams:
    """Each player's /v1/me/events, read as a client that resumes with its Last-Event-ID."""

    def __init__(self, client: TestClient, players: dict[int, str]) -> None:
        self.client, self.players = client, players
        self.last = dict.fromkeys(players, "")

    def check(self, knowledge: Knowledge, deck: set[str]) -> None:
        """Every notice new to a player concerns its own seat, and a your_turn shows it only cards it
        may see now (ALL-7): its own hand and what was shown face up."""
        for seat, token in self.players.items():
            headers = {**auth(token), **({"Last-Event-ID": self.last[seat]} if self.last[seat] else {})}
            text = self.client.get("/v1/me/events?follow=false", headers=headers).text
            for line in text.splitlines():
                if line.startswith("id: "):
                    self.last[seat] = line[4:]
                if not line.startswith("data: "):
                    continue
                notice = json.loads(line[6:])
                if notice["type"] == "your_turn":
                    assert notice["seat"] == seat, f"player of seat {seat} told another seat's turn"
                leaked = cards_in(current(notice), deck) & knowledge.hidden_from(seat)
                assert not leaked, f"player of seat {seat} got hidden {leaked} in {notice['type']}"


def check_matches(client: TestClient, redis_client: redis.Redis, game: str, rng: random.Random) -> None:
    deck = DECKS[game]
    for n in range(3):
        seated = seated_by_matchmaking if n == 2 else seated_with_players
        table, players = seated(client, game, rng)
        streams = PlayerStreams(client, players)
        knowledge = Knowledge(PLAYERS[game])
        cursor = "-"
        for step in range(400):
            for eid, raw in raw_events(redis_client, table.game_id, cursor):
                knowledge.learn(raw, deck)
                cursor = eid
            check_views(client, table, knowledge, deck, graphql=step % 7 == n % 7)
            streams.check(knowledge, deck)
            status = redis_client.hget(game_key(table.game_id), "status")
            if status == "finished":
                break
            seat = table.game()["to_act"]
            answer = table.act(seat, fill(rng.choice(table.legal(seat)), rng))
            assert answer.status_code == 200
            for eid, raw in raw_events(redis_client, table.game_id, cursor):
                knowledge.learn(raw, deck)
                cursor = eid
            # the seat's next turn in its move's answer (when it acts again) shows it only what it may
            # see; the answer's events are the stream's, filtered alike (check_events)
            next_turn = answer.json()["next_turn"]
            leaked = cards_in(current(next_turn or {}), deck) & knowledge.hidden_from(seat)
            assert not leaked, f"seat {seat} got hidden {leaked} in its next turn"
        check_events(client, table, redis_client, game)
