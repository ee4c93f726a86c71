"""A whole match through GraphQL in which every turn of the player comes only from the ``myEvents``
subscription (issue 23), over a real WebSocket to uvicorn, as a browser's graphql-ws client speaks
graphql-transport-ws: each turn with the seat's view and legal actions exactly as the REST player
stream gives them, never a card the player's seat may not see (docs/rules.md ALL-7), resumed after
dropped connections without a gap or a repeat; deleting the player ends the stream. The other seats
play with seat tokens through ``submitAction``. Real Redis, real HTTP."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import redis
from gql_select import as_json, without_nulls
from svc_helpers import auth, fill
from test_graphql import GAME, LEGAL, data, error_code, submit
from test_graphql_players import (
    DELETE_ME,
    GRAPHQL_WS,
    ME,
    MY_EVENTS,
    MY_GAMES,
    create_player,
    notice_of,
    order,
    table,
)
from test_leaks import DECKS, Knowledge, cards_in, current, raw_events
from test_players import frames
from websockets.sync.client import ClientConnection, connect

from service.base.settings import Settings

SEED = "1"  # a chosen deal (the administrator's): the same match every run
SEATS = "query($id: ID!) { game(gameId: $id) { seats { name } } }"


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal action, but never the bid of 100 that stakes the match on one hand (RG-9): the
    match then runs several hands, and the stream carries many turns."""
    kept = [a for a in legal if not (a["type"] == "bid" and a.get("points") == 100)] or legal
    return fill(rng.choice(kept), rng)


class Subscription:
    """``myEvents`` on an open WebSocket, subscribed."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=20))
        return message

    def until(self, kind: str, into: list[dict[str, Any]]) -> dict[str, Any]:
        """Read notices into ``into`` until one of type ``kind`` (GraphQL's: ``YOUR_TURN``), returned."""
        for _ in range(1000):
            into.append(notice_of(self.message()))
            if into[-1]["type"] == kind:
                return into[-1]
        raise AssertionError(f"no {kind} came")


@contextmanager
def subscribed(base: str, token: str, after: str | None = None) -> Iterator[Subscription]:
    with connect(f"ws{base[4:]}/graphql", subprotocols=GRAPHQL_WS, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"}}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        subscribe = {"query": MY_EVENTS, "variables": {"after": after}}
        ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": subscribe}))
        yield Subscription(ws)


class Player:
    """The player's side: it learns its turns from ``myEvents`` alone, and checks each one."""

    def __init__(self, base: str, client: httpx.Client, redis_client: redis.Redis, seat: int) -> None:
        self.base, self.client, self.redis, self.seat = base, client, redis_client, seat
        made = create_player(client, "Zoé")
        self.token: str = made["token"]
        self.player_id: str = made["playerId"]
        self.delivered: list[dict[str, Any]] = []
        self.turns = 0
        self.knowledge, self.cursor = Knowledge(4), "-"
        self.connection = ExitStack()
        self.stream: Subscription | None = None

    def listen(self) -> Subscription:
        """The open subscription; after a drop, a new one resumed after the last notice received."""
        if self.stream is None:
            after = self.delivered[-1]["id"] if self.delivered else None
            self.connection = ExitStack()
            self.stream = self.connection.enter_context(subscribed(self.base, self.token, after))
        return self.stream

    def drop(self) -> None:
        self.connection.close()
        self.stream = None

    def turn(self, gid: str, version: int, rng: random.Random) -> dict[str, Any]:
        """Wait for the turn on the stream, check it, and play one of its legal actions."""
        notice = self.listen().until("YOUR_TURN", self.delivered)
        assert (notice["version"], notice["seat"], notice["gameId"]) == (version, self.seat, gid)
        assert notice["view"]["seat"] == self.seat  # the player's own seat's view, never another's
        for eid, raw in raw_events(self.redis, gid, self.cursor):
            self.knowledge.learn(raw, DECKS["rough"])
            self.cursor = eid
        leaked = cards_in(current(as_json(notice)), DECKS["rough"]) & self.knowledge.hidden_from(self.seat)
        assert not leaked, f"myEvents showed hidden cards {leaked}"
        previous = {"Last-Event-ID": self.delivered[-2]["id"]}  # a game_started always came first
        rest = self.client.get("/v1/me/events?follow=false", headers={**auth(self.token), **previous})
        assert as_json(notice) == without_nulls(dict(frames(rest.text))[notice["id"]])  # REST's notice
        if self.turns == 0:
            first = data(self.client, MY_GAMES, self.token)["myGames"]["nodes"][0]
            assert first["gameId"] == gid and first["yourTurn"] is True
        action = choose(as_json(notice["legalActions"]), rng)
        moved: dict[str, Any] = submit(self.client, self.token, gid, action, v=notice["version"])
        self.turns += 1
        if self.turns % 3 == 0:  # the connection drops: the next turns come while it is away
            self.drop()
        return moved


def test_a_player_plays_a_whole_match_from_my_events_only(
    live_server: str, settings: Settings, redis_client: redis.Redis, rng: random.Random
) -> None:
    with httpx.Client(base_url=live_server, timeout=30) as client:
        player = Player(live_server, client, redis_client, seat=2)
        try:
            gid, tokens = table(client, player.token, player.seat, settings.admin_token, seed=SEED)
            game = data(client, GAME, id=gid)["game"]
            version, to_act, status = game["version"], game["toAct"], game["status"]
            player.listen()
            for _ in range(5000):
                if status == "FINISHED":
                    break
                if to_act == player.seat:
                    moved = player.turn(gid, version, rng)
                else:
                    legal = data(client, LEGAL, tokens[to_act], id=gid)["legalActions"]["legalActions"]
                    moved = submit(client, tokens[to_act], gid, choose(as_json(legal), rng), v=version)
                version, to_act, status = moved["version"], moved["toAct"], moved["status"]
            assert status == "FINISHED" and player.turns > 20
            over = player.listen().until("GAME_FINISHED", player.delivered)
            assert over["winners"] == data(client, GAME, id=gid)["game"]["winners"]
            ids = [n["id"] for n in player.delivered]
            assert len(ids) == len(set(ids)), "a notice came twice"
            assert ids == sorted(ids, key=order)
            assert sum(n["type"] == "YOUR_TURN" for n in player.delivered) == player.turns  # each once
            whole: list[dict[str, Any]] = []
            with subscribed(live_server, player.token) as again:
                again.until("GAME_FINISHED", whole)
            assert {n["id"] for n in whole} <= set(ids)  # no gap across the resumes
            rest = frames(client.get("/v1/me/events?follow=false", headers=auth(player.token)).text)
            assert [as_json(n) for n in whole] == [without_nulls(n) for _, n in rest]
            # deleting the player ends its open stream, and its credential with it
            assert data(client, DELETE_ME, player.token) == {"deleteMe": {"playerId": player.player_id}}
            assert player.listen().message() == {"type": "complete", "id": "1"}
        finally:
            player.drop()
        assert error_code(client, ME, player.token) == "invalid_token"
        assert error_code(client, DELETE_ME, player.token) == "invalid_token"
        assert data(client, SEATS, id=gid)["game"]["seats"][player.seat]["name"] == ""
