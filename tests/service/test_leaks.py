"""No view or delivered event gives a seat (or a spectator) a card hidden from it (docs/rules.md ALL-7).

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
from svc_helpers import FAST_OPTIONS, PLAYERS, Table, auth, fill, seated

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
        for seat in raw.get("visible_to", ()):
            self.seen[seat] |= cards_in(raw, deck)

    def hidden_from(self, seat: int | None) -> set[str]:
        return self.secret - (self.seen[seat] if seat is not None else set())


def raw_events(r: redis.Redis, gid: str, after: str = "-") -> list[tuple[str, dict[str, Any]]]:
    start = f"({after}" if after != "-" else "-"
    entries: Any = r.xrange(events_key(gid), min=start)
    return [(eid, json.loads(fields["e"])) for eid, fields in entries]


def check_views(
    client: TestClient, table: Table, knowledge: Knowledge, deck: set[str], graphql: bool
) -> None:
    for seat in [None, *range(knowledge.players)]:
        headers = auth(table.tokens[seat]) if seat is not None else {}
        view = client.get(f"/v1/games/{table.game_id}/view", headers=headers).json()["view"]
        current = {k: v for k, v in view.items() if k != "last_hand"}
        leaked = cards_in(current, deck) & knowledge.hidden_from(seat)
        assert not leaked, f"seat {seat} sees hidden {leaked} in its view"
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


def check_events(client: TestClient, table: Table, r: redis.Redis, game: str) -> None:
    deck = DECKS[game]
    stream = raw_events(r, table.game_id)
    for seat in [None, *range(PLAYERS[game])]:
        headers = auth(table.tokens[seat]) if seat is not None else {}
        text = client.get(f"/v1/games/{table.game_id}/events?follow=false", headers=headers).text
        delivered = {line[4:]: None for line in text.splitlines() if line.startswith("id: ")}
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
            leaked = cards_in(raw, deck) & knowledge.hidden_from(seat)
            assert not leaked, f"seat {seat} got hidden {leaked} in {raw}"


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_no_view_or_event_leaks_a_hidden_card(
    settings: Settings, redis_client: redis.Redis, game: str, rng: random.Random
) -> None:
    # every event from the first one on: a stream window past any match (none is trimmed)
    with TestClient(create_app(settings.model_copy(update={"stream_window": 100_000}))) as client:
        check_matches(client, redis_client, game, rng)


def check_matches(client: TestClient, redis_client: redis.Redis, game: str, rng: random.Random) -> None:
    deck = DECKS[game]
    for n in range(3):
        table = seated(client, game, seed=rng.randrange(10**9), options=FAST_OPTIONS[game])
        knowledge = Knowledge(PLAYERS[game])
        cursor = "-"
        for step in range(400):
            for eid, raw in raw_events(redis_client, table.game_id, cursor):
                knowledge.learn(raw, deck)
                cursor = eid
            check_views(client, table, knowledge, deck, graphql=step % 7 == n % 7)
            status = redis_client.hget(game_key(table.game_id), "status")
            if status == "finished":
                break
            seat = table.game()["to_act"]
            assert table.act(seat, fill(rng.choice(table.legal(seat)), rng)).status_code == 200
        check_events(client, table, redis_client, game)
