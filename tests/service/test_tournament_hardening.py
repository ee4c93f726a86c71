"""Tournaments hardened (issue 32): their games count against the caps on open games as any game does
(finding 1), their entrants are typed and consented to (finding 2), their event stream counts against
each client, never against the tournament (finding 4), and their target score is one the game takes.

No worker runs here: a round's games stay unfinished unless the test makes them expire (deletes their
key, what their TTL does to an abandoned game), and the tournament's check is called directly.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth, served_app
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Subprotocol

import engine
from schema.tournaments import CreateTournamentRequest
from service.api.app import create_app
from service.base.settings import Settings
from service.store.keys import bot_key, game_key, tournament_creator_key

JSON = dict[str, Any]
GAME_KEY = re.compile(r"^atout:game:\{[^}]+\}$")
ATTACK = {"kind": "rough", "format": "swiss", "rounds": 1, "deals": 6, "entrants": ["bot:expert"] * 64}
"""The issue's request: 64 expert entrants, one Swiss round, 6 duplicate deals: 384 games at once."""


@contextlib.contextmanager
def app_with(settings: Settings, **update: Any) -> Iterator[TestClient]:
    with TestClient(create_app(settings.model_copy(update=update))) as client:
        yield client


def register(client: TestClient, name: str = "organiser") -> JSON:
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.text
    body: JSON = response.json()
    return body


def games_in_store(r: redis.Redis) -> int:
    return sum(1 for key in r.scan_iter("atout:game:*", count=1000) if GAME_KEY.match(key))


def refused(response: httpx.Response, status: int, code: str) -> JSON:
    assert response.status_code == status, response.text
    body: JSON = response.json()
    assert body["code"] == code, body
    return body


# --- finding 1: tournaments count against the caps on open games -----------------------------------


def test_the_issues_768_game_attack_starts_at_most_the_creators_cap_of_games(
    client: TestClient, redis_client: redis.Redis
) -> None:
    """A free bot account: the issue's two 384-game tournaments are refused outright (a round that
    could never fit its creator's cap of 100), nothing written; smaller ones take their games from
    the same cap as the account's ordinary games, so all it starts, every way, is at most 100."""
    bot = register(client)
    key = auth(bot["api_key"])
    for _ in range(2):
        body = refused(client.post("/v1/tournaments", json=ATTACK, headers=key), 422, "invalid_tournament")
        assert "384 games at once" in body["detail"] and "at most 100" in body["detail"]
    assert games_in_store(redis_client) == 0
    assert redis_client.zcard(tournament_creator_key(bot["bot_id"])) == 0  # no tournament counted

    smaller = ATTACK | {"deals": 1}  # 64 games a round: fits the cap once, not twice
    made = client.post("/v1/tournaments", json=smaller, headers=key)
    assert made.status_code == 201, made.text
    assert len(made.json()["games"]) == 64
    again = client.post("/v1/tournaments", json=smaller, headers=key)
    body = refused(again, 429, "too_many_games")
    assert int(again.headers["Retry-After"]) > 0 and body["limit"] == 100
    assert games_in_store(redis_client) == 64  # the refused round left no game behind
    assert redis_client.zcard(tournament_creator_key(bot["bot_id"])) == 1  # nor a running tournament

    created = 0  # the same account's ordinary games: what the tournament left of its cap
    while (response := client.post("/v1/games", json={"kind": "rough"}, headers=key)).status_code == 201:
        created += 1
        assert created <= 100
    refused(response, 429, "too_many_games")
    assert created == 36
    assert games_in_store(redis_client) == 100


def test_the_administrator_is_exempt_from_the_creator_cap_but_not_from_the_server_bounds(
    settings: Settings, redis_client: redis.Redis
) -> None:
    """Past the per-creator cap the administrator's tournament starts; past the server's running
    tournament games (503 tournaments_full) or its unfinished games (503 server_full) it does not, and
    a round larger than the tournament bound could ever admit is refused as unplayable (422)."""
    one_round = ATTACK | {"deals": 1}  # 64 games
    with app_with(settings, max_open_games_per_creator=10, tournament_max_running_games=100) as client:
        assert (
            client.post("/v1/tournaments", json=one_round, headers=admin_headers(client)).status_code == 201
        )
        second = client.post("/v1/tournaments", json=one_round, headers=admin_headers(client))
        body = refused(second, 503, "tournaments_full")
        assert int(second.headers["Retry-After"]) > 0 and body["limit"] == 100
        too_big = client.post("/v1/tournaments", json=ATTACK | {"deals": 2}, headers=admin_headers(client))
        refused(too_big, 422, "invalid_tournament")
        assert games_in_store(redis_client) == 64
        # ordinary games are not held back by the tournament bound
        assert client.post("/v1/games", json={"kind": "rough"}).status_code == 201
    redis_client.flushall()
    with app_with(settings, max_open_games=100) as client:
        assert (
            client.post("/v1/tournaments", json=one_round, headers=admin_headers(client)).status_code == 201
        )
        full = client.post("/v1/tournaments", json=one_round, headers=admin_headers(client))
        refused(full, 503, "server_full")
        assert int(full.headers["Retry-After"]) > 0
        assert games_in_store(redis_client) == 64


def test_a_later_round_that_does_not_fit_waits_and_starts_once_places_free_up(
    settings: Settings, redis_client: redis.Redis
) -> None:
    """Round 2 counts against the creator's cap like round 1: when the account's other games leave no
    room, the tournament waits (``waiting`` names the cap, ``round_finished`` is told once), then
    starts the round at the first check after a place frees up, rather than failing."""
    with app_with(settings, max_open_games_per_creator=5) as client:
        assert client.portal is not None
        games = client.app.state.games  # type: ignore[attr-defined]
        bot = register(client)
        key = auth(bot["api_key"])
        body = {"kind": "rough", "entrants": ["bot:random"] * 4, "target_score": 200}
        made = client.post("/v1/tournaments", json=body, headers=key)
        assert made.status_code == 201, made.text
        tid, first = made.json()["tournament_id"], [g["game_id"] for g in made.json()["games"]]
        assert len(first) == 4
        for gid in first:  # round 1 over: its games expired
            redis_client.delete(game_key(gid))
        own = [client.post("/v1/games", json={"kind": "rough"}, headers=key) for _ in range(2)]
        assert [r.status_code for r in own] == [201, 201]  # 2 + round 2's 4 > 5: round 2 must wait

        for _ in range(2):  # a second check finds it still waiting, and says nothing again
            assert client.portal.call(games.tournaments.advance_tournament, tid) == "waiting"
        tour = client.get(f"/v1/tournaments/{tid}").json()
        assert (tour["status"], tour["round"], tour["waiting"], len(tour["games"])) == (
            "running",
            1,
            "too_many_games",
            4,
        )
        events = client.get(f"/v1/tournaments/{tid}/events?follow=false").text
        kinds = [json.loads(line[6:])["type"] for line in events.splitlines() if line.startswith("data: ")]
        assert kinds.count("round_finished") == 1 and kinds.count("round_started") == 1

        redis_client.delete(game_key(own[0].json()["game"]["game_id"]))  # one of its games expires
        assert client.portal.call(games.tournaments.advance_tournament, tid) == "round started"
        tour = client.get(f"/v1/tournaments/{tid}").json()
        assert (tour["round"], tour["waiting"], len(tour["games"])) == (2, None, 8)
        # the round took the account's last places: its next ordinary game is refused
        refused(client.post("/v1/games", json={"kind": "rough"}, headers=key), 429, "too_many_games")


# --- finding 2: entrants typed and consented to -----------------------------------------------------

CREATE = """mutation($entrants: [String!]!) {
  createTournament(input: {kind: ROUGH, entrants: $entrants}) { tournamentId entrants { entrant name } }
}"""


def gql(client: TestClient, token: str, **variables: Any) -> JSON:
    response = client.post("/graphql", json={"query": CREATE, "variables": variables}, headers=auth(token))
    assert response.status_code == 200, response.text
    body: JSON = response.json()
    return body


def test_a_bad_entrant_is_refused_with_a_stable_code_on_rest_and_graphql(client: TestClient) -> None:
    """An unknown level, free text (3,000 characters with control and bidi characters) and another
    bot account entered without its consent are each refused at creation, on both APIs, with a code
    and a message saying what is allowed (never echoing the text refused)."""
    bot, other = register(client), register(client, "someone-else")
    key = bot["api_key"]
    junk = ("x\u202e\x07" * 1000)[:3000]
    for bad in ("bot:nosuchlevel", junk, "account:", "bot:expert " * 2, "bot:expert\n"):
        entrants = ["bot:random", bad]
        body = refused(client.post("/v1/tournaments", json={"kind": "rough", "entrants": entrants},
                                   headers=auth(key)), 422, "invalid_request")  # fmt: skip
        issue = body["errors"][0]
        assert issue["type"] == "invalid_entrant" and issue["loc"] == ["entrants", "1"]
        assert "bot:expert" in body["detail"] and "account:<bot_id>" in body["detail"]
        assert "\u202e" not in json.dumps(body, ensure_ascii=False)
        error = gql(client, key, entrants=entrants)["errors"][0]
        assert error["extensions"]["code"] == "invalid_request"
        assert "\u202e" not in json.dumps(error, ensure_ascii=False)

    theirs = ["bot:random", f"account:{other['bot_id']}"]
    body = refused(client.post("/v1/tournaments", json={"kind": "rough", "entrants": theirs},
                               headers=auth(key)), 403, "entrant_not_allowed")  # fmt: skip
    assert other["bot_id"] in body["detail"] and "administrator" in body["detail"]
    both_teams = [f"account:{other['bot_id']}"] * 2
    twice = client.post("/v1/tournaments", json={"kind": "rough", "entrants": both_teams}, headers=auth(key))
    refused(twice, 403, "entrant_not_allowed")  # on both teams: still not without its consent
    assert gql(client, key, entrants=theirs)["errors"][0]["extensions"]["code"] == "entrant_not_allowed"

    name = refused(client.post("/v1/tournaments", json={"kind": "rough", "entrants": ["bot:random"] * 2,
                                                         "name": "a\u202eb"}, headers=auth(key)),
                   422, "invalid_request")  # fmt: skip
    assert name["errors"][0]["type"] == "unsafe_character"

    own = gql(client, key, entrants=["bot:random", f"account:{bot['bot_id']}"])  # itself: its consent
    assert "errors" not in own, own
    assert own["data"]["createTournament"]["entrants"][1] == {
        "entrant": f"account:{bot['bot_id']}",
        "name": "organiser",
    }
    admin = client.post(
        "/v1/tournaments", json={"kind": "rough", "entrants": theirs}, headers=admin_headers(client)
    )
    assert admin.status_code == 201, admin.text  # the administrator arranges the consent


def test_a_bot_accounts_name_becomes_a_seat_name_only_under_the_display_rule(
    client: TestClient, redis_client: redis.Redis
) -> None:
    """An account whose stored name breaks the rule (registered before it) is seated under its id."""
    bot = register(client, "old-bot")
    redis_client.hset(bot_key(bot["bot_id"]), "name", "\u202e" + "n" * 3000)
    body = {"kind": "rough", "entrants": [f"account:{bot['bot_id']}", "bot:random"]}
    made = client.post("/v1/tournaments", json=body, headers=admin_headers(client))
    assert made.status_code == 201, made.text
    assert made.json()["entrants"][0]["name"] == bot["bot_id"]
    summary = client.get(f"/v1/games/{made.json()['games'][0]['game_id']}").json()
    names = {seat["name"] for seat in summary["seats"]}
    assert bot["bot_id"] in names and all(len(n) <= 40 and "\u202e" not in n for n in names)


# --- the target score --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "target", "status", "code"),
    [
        ("rough", 150, 422, "invalid_request"),  # below any game's
        ("rough", 275, 422, "invalid_options"),  # in range, not one Le Rough takes
        ("rough", 1000, 422, "invalid_options"),  # Le 500's, not Le Rough's (200-500)
        ("rough", 10_000, 422, "invalid_request"),
        ("five_hundred", 250, 422, "invalid_options"),  # Le Rough's, not Le 500's
        ("rough", 500, 201, None),
        ("five_hundred", 2000, 201, None),
    ],
)
def test_a_target_score_is_one_the_tournaments_game_takes(
    client: TestClient, game: str, target: int, status: int, code: str | None
) -> None:
    """F5-14 and RG-15: a tournament's games take only their game's target scores (Le Rough 200-500,
    Le 500 300-2000); another is refused at creation, never a tournament whose games cannot start."""
    body = {"kind": game, "entrants": ["bot:random", "bot:heuristic"], "target_score": target}
    response = client.post("/v1/tournaments", json=body, headers=admin_headers(client))
    assert response.status_code == status, response.text
    if code is not None:
        assert response.json()["code"] == code


def test_the_target_score_documents_each_games_values_from_the_engine() -> None:
    description = CreateTournamentRequest.model_json_schema()["properties"]["target_score"]["description"]
    for game in ("five_hundred", "rough"):
        allowed = engine.game(game).option_specs["target_score"].allowed
        assert f"{game}): {', '.join(str(v) for v in allowed)}" in description


# --- finding 4: a tournament's event stream counts per client ----------------------------------------


@contextlib.contextmanager
def subscription(base: str, tid: str, token: str | None = None) -> Iterator[ClientConnection]:
    payload = {"Authorization": f"Bearer {token}"} if token else {}
    with connect(
        f"ws{base[4:]}/graphql", subprotocols=[Subprotocol("graphql-transport-ws")], open_timeout=10
    ) as ws:
        ws.send(json.dumps({"type": "connection_init", "payload": payload}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        query = "subscription($id: ID!) { tournamentEvents(tournamentId: $id) { id type } }"
        ws.send(
            json.dumps(
                {"id": "1", "type": "subscribe", "payload": {"query": query, "variables": {"id": tid}}}
            )
        )
        yield ws


def test_32_anonymous_streams_of_a_tournament_lock_out_only_their_own_address(settings: Settings) -> None:
    """The issue's lock: 32 anonymous streams of one tournament from one address. That address is at
    its cap (a made-up token does not lift it), but a 33rd client, from another address or with its
    own credential, opens the same tournament's stream, over REST and GraphQL alike."""
    app = create_app(settings.model_copy(update={"sse_block_ms": 500}))
    with served_app(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        tid = http.post(
            "/v1/tournaments",
            json={"kind": "rough", "entrants": ["bot:random", "bot:heuristic"]},
            headers=auth(settings.admin_token or ""),
        ).json()["tournament_id"]
        bot = http.post("/v1/bots", json={"name": "spectator"}).json()
        url = f"{base}/v1/tournaments/{tid}/events"
        cap = settings.streams_per_client
        with contextlib.ExitStack() as held:
            for _ in range(cap):
                stream = held.enter_context(held.enter_context(httpx.Client(timeout=30)).stream("GET", url))
                assert stream.status_code == 200
            assert app.state.streams.open_streams == cap
            refused(http.get(url), 429, "too_many_streams")
            refused(http.get(url, headers=auth("made-up")), 429, "too_many_streams")
            elsewhere = httpx.Client(timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
            with elsewhere, elsewhere.stream("GET", url) as other:
                assert other.status_code == 200
            with (
                httpx.Client(timeout=30) as own,
                own.stream("GET", url, headers=auth(bot["api_key"])) as mine,
            ):
                assert mine.status_code == 200
            with subscription(base, tid) as ws:  # anonymous, from the full address: refused
                message = json.loads(ws.recv(timeout=10))
                assert message["type"] == "error"
                assert message["payload"][0]["extensions"]["code"] == "too_many_streams"
            with subscription(base, tid, bot["api_key"]) as ws:  # its own credential: it opens
                message = json.loads(ws.recv(timeout=10))
                assert message["type"] == "next"
                assert message["payload"]["data"]["tournamentEvents"]["type"] == "TOURNAMENT_CREATED"
