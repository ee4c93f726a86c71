"""The move has one path (``Play.submit``) and so one order of checks in both APIs: the same faulty
requests, alone and several at once, get the same first refusal from REST
(``POST /v1/games/{id}/actions``) and GraphQL (``submitAction``).

The order (``service/games/play.py``, ``Play.submit``): credential sent (401 missing_token) → game
exists (404) → the credential holds a seat of it (401 invalid_token) → the rate limit (429) → the
request's shape, its Idempotency-Key then its body (422 invalid_request) → the seat claimed (403
wrong_seat, REST only: GraphQL has no seat argument) → a key seen before (the stored answer, or 422
idempotency_key_reused) → the game runs (409 game_not_started, game_finished) → the version (409
version_conflict) → legality (409 not_your_turn, 422 illegal_action) → the commit.

Each case is a set of faults put together in one request; the expected answer is the first of them
in that order. An ``invalid_request`` says which part of the request it is about: ``key`` (the
Idempotency-Key, no ``errors``) or ``body`` (the body's model, with its ``errors``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from gql_select import as_action_input
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, admin_headers, auth, create, seated

from service.api.app import create_app
from service.base.settings import Settings

SUBMIT = """mutation($id: ID!, $action: ActionInput!, $v: Int, $key: String) {
  submitAction(input: {gameId: $id, action: $action, expectedVersion: $v, idempotencyKey: $key}) {
    version replayed
  }
}"""
UNKNOWN_GAME = "NoSuchGame12"  # a well-formed id (a malformed one is REST's 404 before any handler)
REUSED_KEY = "move-k"


@dataclass(frozen=True)
class Ask:
    """One move request, as either API sends it."""

    gid: str
    token: str | None
    action: dict[str, Any]
    expected_version: int | None = None
    key: str | None = None
    seat: int | None = None  # REST only


@dataclass(frozen=True)
class Scene:
    """The games a case's faults are made of: one running, where ``used`` played the first move with
    :data:`USED` and ``seat`` (holding ``hand``) is to act; one waiting for players; one over (when a
    case needs it: playing it out takes a while); another running; the administrator's token."""

    running: Table
    used: int
    seat: int
    hand: list[str]
    waiting: Table
    finished: Table | None
    other: Table
    admin: str


USED = Ask("", None, {"type": "pass"}, expected_version=0, key=REUSED_KEY)
"""The first move of the running game, with its Idempotency-Key (played by the seat then to act)."""

# Each fault turns a good request (a pass by the seat to act) into a faulty one; they are applied in
# this order, the ones choosing the game and the seat first.
Fault = Callable[[Ask, Scene], Ask]
FAULTS: dict[str, Fault] = {
    "key_replayed": lambda a, s: replace(USED, gid=a.gid, token=s.running.tokens[s.used]),
    "key_reused": lambda a, s: replace(a, token=s.running.tokens[s.used], key=REUSED_KEY),
    "not_started": lambda a, s: replace(a, gid=s.waiting.game_id, token=s.waiting.tokens[0]),
    "game_finished": lambda a, s: replace(a, gid=finished(s).game_id, token=finished(s).tokens[s.seat]),
    "not_your_turn": lambda a, s: replace(a, token=s.running.tokens[(s.seat + 1) % 4]),
    "no_token": lambda a, s: replace(a, token=None),
    "forged_token": lambda a, s: replace(a, token="forged-token-123"),
    "other_games_token": lambda a, s: replace(a, token=s.other.tokens[0]),
    "admin_token": lambda a, s: replace(a, token=s.admin),
    "unknown_game": lambda a, s: replace(a, gid=UNKNOWN_GAME),
    "empty_key": lambda a, s: replace(a, key=""),
    "long_key": lambda a, s: replace(a, key="k" * 201),
    "malformed_action": lambda a, s: replace(a, action={"type": "bid", "points": 1000}),
    "negative_version": lambda a, s: replace(a, expected_version=-1),
    "stale_version": lambda a, s: replace(a, expected_version=7),
    "illegal_action": lambda a, s: replace(a, action={"type": "play", "card": s.hand[0]}),
    # the seats whose tokens the faults send are s.seat (the game over's too), s.seat + 1 and s.used
    # (s.seat + 3): the claim is another
    "wrong_seat": lambda a, s: replace(a, seat=(s.seat + 2) % 4),
}


def finished(scene: Scene) -> Table:
    assert scene.finished is not None
    return scene.finished


# (faults put together, the first refusal as "status code[:part]"). One fault each, then several.
CASES: list[tuple[tuple[str, ...], str]] = [
    (("no_token",), "401 missing_token"),
    (("forged_token",), "401 invalid_token"),
    (("other_games_token",), "401 invalid_token"),
    (("admin_token",), "403 credential_not_accepted"),
    (("unknown_game",), "404 game_not_found"),
    (("empty_key",), "422 invalid_request:key"),
    (("long_key",), "422 invalid_request:key"),
    (("malformed_action",), "422 invalid_request:body"),
    (("negative_version",), "422 invalid_request:body"),
    (("key_reused",), "422 idempotency_key_reused"),
    (("key_replayed",), "200 replayed"),
    (("not_started",), "409 game_not_started"),
    (("game_finished",), "409 game_finished"),
    (("not_your_turn",), "409 not_your_turn"),
    (("stale_version",), "409 version_conflict"),
    (("illegal_action",), "422 illegal_action"),
    (("no_token", "unknown_game"), "401 missing_token"),
    (("no_token", "long_key", "malformed_action"), "401 missing_token"),
    (("forged_token", "unknown_game"), "404 game_not_found"),
    (("forged_token", "long_key", "malformed_action", "stale_version"), "401 invalid_token"),
    (("other_games_token", "empty_key"), "401 invalid_token"),
    (("admin_token", "malformed_action"), "403 credential_not_accepted"),
    (("not_started", "forged_token"), "401 invalid_token"),
    (("unknown_game", "long_key", "malformed_action"), "404 game_not_found"),
    (("long_key", "malformed_action"), "422 invalid_request:key"),
    (("empty_key", "stale_version", "illegal_action"), "422 invalid_request:key"),
    (("key_reused", "long_key"), "422 invalid_request:key"),
    (("malformed_action", "not_your_turn"), "422 invalid_request:body"),
    (("negative_version", "illegal_action"), "422 invalid_request:body"),
    (("malformed_action", "game_finished"), "422 invalid_request:body"),
    (("malformed_action", "not_started"), "422 invalid_request:body"),
    (("malformed_action", "key_reused"), "422 invalid_request:body"),
    (("key_reused", "stale_version"), "422 idempotency_key_reused"),
    (("key_reused", "illegal_action"), "422 idempotency_key_reused"),
    (("not_started", "stale_version", "illegal_action"), "409 game_not_started"),
    (("game_finished", "stale_version", "illegal_action"), "409 game_finished"),
    (("stale_version", "not_your_turn"), "409 version_conflict"),
    (("stale_version", "illegal_action"), "409 version_conflict"),
    (("not_your_turn", "illegal_action"), "409 not_your_turn"),
]
# REST's body may claim a seat (GraphQL's submitAction has no seat argument): where the claim comes.
REST_ONLY: list[tuple[tuple[str, ...], str]] = [
    (("wrong_seat",), "403 wrong_seat"),
    (("wrong_seat", "no_token"), "401 missing_token"),
    (("wrong_seat", "forged_token"), "401 invalid_token"),
    (("wrong_seat", "long_key"), "422 invalid_request:key"),
    (("wrong_seat", "malformed_action"), "422 invalid_request:body"),
    (("wrong_seat", "key_reused"), "403 wrong_seat"),
    (("wrong_seat", "game_finished"), "403 wrong_seat"),
    (("wrong_seat", "stale_version", "illegal_action"), "403 wrong_seat"),
]


def told(status: int, code: str, errors: Any) -> str:
    """An answer as the cases write it: ``"422 invalid_request:body"``."""
    part = (":body" if errors else ":key") if code == "invalid_request" else ""
    return f"{status} {code}{part}"


def rest(client: TestClient, ask: Ask) -> str:
    headers = auth(ask.token) if ask.token is not None else {}
    if ask.key is not None:
        headers["Idempotency-Key"] = ask.key
    body: dict[str, Any] = {"action": ask.action}
    if ask.expected_version is not None:
        body["expected_version"] = ask.expected_version
    if ask.seat is not None:
        body["seat"] = ask.seat
    response = client.post(f"/v1/games/{ask.gid}/actions", json=body, headers=headers)
    if response.status_code == 200:
        return "200 " + ("replayed" if response.json()["replayed"] else "applied")
    assert response.headers["content-type"] == "application/problem+json", response.text
    problem = response.json()
    assert problem["status"] == response.status_code
    return told(response.status_code, problem["code"], problem.get("errors"))


def graphql(client: TestClient, ask: Ask) -> str:
    assert ask.seat is None, "submitAction has no seat argument"
    variables = {"id": ask.gid, "action": as_action_input(ask.action), "v": ask.expected_version}
    if ask.key is not None:
        variables["key"] = ask.key
    response = client.post(
        "/graphql",
        json={"query": SUBMIT, "variables": variables},
        headers=auth(ask.token) if ask.token is not None else {},
    )
    body = response.json()
    if not body.get("errors"):
        return "200 " + ("replayed" if body["data"]["submitAction"]["replayed"] else "applied")
    extensions = body["errors"][0]["extensions"]
    return told(extensions["status"], extensions["code"], extensions.get("errors"))


Send = Callable[[TestClient, Ask], str]
SENDERS: dict[str, Send] = {"rest": rest, "graphql": graphql}


def scene(client: TestClient, send: Send, finish: bool = False) -> Scene:
    """A fresh scene, its first move played through ``send`` (the API under test)."""
    running = seated(client, "rough", seed="3")
    used = running.game()["to_act"]
    assert send(client, replace(USED, gid=running.game_id, token=running.tokens[used])) == "200 applied"
    seat = running.game()["to_act"]
    # wrong_seat claims seat + 2: a seat whose token no case sends
    assert (seat + 2) % 4 not in (used, (seat + 1) % 4)
    view = client.get(f"/v1/games/{running.game_id}/view", headers=auth(running.tokens[seat])).json()
    gid = create(client, "rough")["game"]["game_id"]
    waiting = Table(client, gid, {0: client.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]})
    over = None
    if finish:
        over = seated(client, "rough", seed="5", options=FAST_OPTIONS["rough"])
        assert over.play_random(random.Random(5))["status"] == "finished"
    return Scene(
        running=running,
        used=used,
        seat=seat,
        hand=view["view"]["hand"],
        waiting=waiting,
        finished=over,
        other=seated(client, "rough"),
        admin=admin_headers(client)["Authorization"].split()[1],
    )


def faulty(scene: Scene, faults: tuple[str, ...]) -> Ask:
    """The good request with ``faults``, applied in :data:`FAULTS`' order."""
    ask = Ask(scene.running.game_id, scene.running.tokens[scene.seat], {"type": "pass"})
    for name, fault in FAULTS.items():
        if name in faults:
            ask = fault(ask, scene)
    return ask


def case_id(case: tuple[tuple[str, ...], str]) -> str:
    return "+".join(case[0])


@pytest.mark.parametrize(("faults", "first"), CASES, ids=[case_id(c) for c in CASES])
def test_the_same_faults_get_the_same_first_refusal_in_both_apis(
    client: TestClient, faults: tuple[str, ...], first: str
) -> None:
    answers = {}
    for api, send in SENDERS.items():
        made = scene(client, send, finish="game_finished" in faults)
        answers[api] = send(client, faulty(made, faults))
        if not first.startswith("200"):  # a refusal changes nothing
            assert made.running.game()["version"] == 1
    assert answers == {"rest": first, "graphql": first}


@pytest.mark.parametrize(("faults", "first"), REST_ONLY, ids=[case_id(c) for c in REST_ONLY])
def test_the_seat_a_rest_body_claims_is_checked_after_the_body_and_before_the_game(
    client: TestClient, faults: tuple[str, ...], first: str
) -> None:
    made = scene(client, rest, finish="game_finished" in faults)
    assert rest(client, faulty(made, faults)) == first


def test_the_good_request_of_every_scene_is_played_in_both_apis(client: TestClient) -> None:
    """The cases' baseline: without a fault, the move is played (so each refusal is its faults')."""
    for send in SENDERS.values():
        made = scene(client, send)
        assert send(client, faulty(made, ())) == "200 applied"
        assert made.running.game()["version"] == 2


@pytest.mark.parametrize("api", SENDERS)
def test_the_rate_limit_comes_after_the_credential_and_before_the_body(settings: Settings, api: str) -> None:
    """The act limit counts a request once its credential is judged: a seat over its limit hears 429
    whatever its body, a stranger still hears 401 (a made-up token is counted by address only)."""
    rates = {"rate_act": "2/hour", "rate_act_per_address": "100000/minute"}
    with TestClient(create_app(settings.model_copy(update=rates))) as client:
        send = SENDERS[api]
        made = scene(client, send)  # the first move: one request of the seat that played it
        ask = faulty(made, ("key_reused",))
        assert send(client, ask) == "422 idempotency_key_reused"  # its second
        for faults in (("key_reused", "malformed_action"), ("key_reused", "long_key"), ("key_reused",)):
            assert send(client, faulty(made, faults)) == "429 rate_limited", faults
        for faults, first in ((("forged_token",), "401 invalid_token"), (("no_token",), "401 missing_token")):
            assert send(client, faulty(made, faults)) == first
        assert send(client, faulty(made, ())) == "200 applied"  # the seat to act has its own count
