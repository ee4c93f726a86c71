"""The typed contracts (schema/views/) say exactly what the server shows: every view (each seat
and a spectator), every legal action and every event of many random matches of each game, with
random rule options, validates against them with no field left undeclared. A field the engine adds
without the contract knowing fails here, before an app developer's generated types are wrong.
The contract of a view has no field for another seat's cards; whether each seat gets only what it
may see (ALL-7) is tested per seat in tests/engine/test_properties.py and tests/service/test_leaks.py."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter
from starlette.testclient import TestClient
from svc_helpers import auth, fill, seated

import engine
from schema.games import (
    ActionResponse,
    BotStreamFrame,
    GameStreamFrame,
    LegalActionsResponse,
    LogResponse,
    ViewResponse,
)
from schema.views import EventEnvelope, LegalAction, View, envelope
from service.api.app import create_app
from service.base.settings import Settings

MATCHES = int(os.environ.get("ATOUT_CONTRACT_MATCHES", "12"))
VIEW = TypeAdapter(View)
LEGAL = TypeAdapter(LegalAction)
EVENT = TypeAdapter(EventEnvelope)


def random_options(game: str, rng: random.Random) -> dict[str, Any]:
    return {name: rng.choice(option["allowed"]) for name, option in engine.games()[game]["options"].items()}


def check_state(m: engine.Match, version: int) -> None:
    for seat in [None, *range(m.players)]:
        VIEW.validate_python(engine.view(m, seat))
    if m.to_act is not None:
        for action in engine.legal_actions(m, m.to_act):
            LEGAL.validate_python(action)


def check_events(events: list[dict[str, Any]], version: int, game: str) -> set[str]:
    """The engine's events of a game of ``game``, as the service serves them (in their public form,
    in the stream's envelope), validated; their public types."""
    framed = [EVENT.validate_python(envelope(f"{version}-0", version, event, game)) for event in events]
    return {frame.event.type for frame in framed}


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_every_view_legal_action_and_event_matches_the_typed_contract(game: str) -> None:
    rng = random.Random(f"contracts-{game}")
    seen: set[str] = set()
    for n in range(MATCHES):
        options = random_options(game, rng) if n % 2 else {}
        m = engine.new_match(game, seed=rng.randrange(1 << 40), options=options, wait=True)
        check_state(m, 0)
        m = engine.start(m, [f"seed{s}" for s in range(m.players)])
        seen |= check_events(list(m.events), 0, game)
        version = 0
        while not m.over:
            check_state(m, version)
            action = rng.choice(engine.legal_actions(m, m.to_act))
            if action["type"] == "discard":
                action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
            m = engine.apply(m, m.to_act, action)
            version += 1
            seen |= check_events(list(m.events), version, game)
        check_state(m, version)
    # every kind of event of the game was met (the contract was exercised, not just parsed)
    expected = {
        "five_hundred": {"bid_made", "contract_fixed", "kitty_taken", "discard_due", "discarded"},
        "rough": {"bid_made", "contract_fixed", "kitty_taken", "discard_due", "discarded", "trump_announced"},
        "euchre5": {"upcard", "ordered_up", "partner_called", "you_are_partner"},
    }[game] | {
        "hand_started",
        "hand_commitment",
        "dealt",
        "card_played",
        "trick_won",
        f"{game}_hand_scored",
        "hand_seed",
        "game_finished",
        "match_key",
    }
    assert expected <= seen, expected - seen


@pytest.mark.parametrize(("game", "rule"), [("five_hundred", "F5-9"), ("rough", "RG-8")])
def test_a_hand_nobody_takes_matches_the_typed_contract(game: str, rule: str) -> None:
    """F5-9, RG-8: when every seat passes the hand is void and the deal moves on. Its result (the
    next hand's ``last_hand``, the ``hand_scored`` event) has no taker, contract or points, and says
    ``void``; the contract says so too (random play almost never has all four pass)."""
    m = engine.new_match(game, seed=7)
    events: list[dict[str, Any]] = []
    while m.hand_number == 1:
        check_state(m, len(events))
        m = engine.apply(m, m.to_act, {"type": "pass"})
        events += m.events
    check_state(m, 4)
    assert {"hand_void", f"{game}_hand_scored", "hand_started"} <= check_events(events, 4, game)
    assert next(e for e in events if e["type"] == "hand_void")["rule"] == rule
    scored = next(e for e in events if e["type"] == "hand_scored")
    assert scored["void"] is True and "points" not in scored and "taker" not in scored
    last = engine.view(m, 0)["last_hand"]
    assert last["void"] is True and last["hand_number"] == 1 and "points" not in last


def test_a_view_field_the_contract_does_not_declare_is_refused() -> None:
    m = engine.new_match("rough", seed=3)
    shown = engine.view(m, 0)
    VIEW.validate_python(shown)
    with pytest.raises(ValueError, match="extra"):
        VIEW.validate_python({**shown, "hands": [[], [], [], []]})  # another seat's cards: never in a view


@pytest.fixture
def whole_stream_client(settings: Settings) -> Iterator[TestClient]:
    """A service keeping every event of a match in its stream: a long random match outgrows the
    default window, and a reader from the start is then (rightly) told to resync."""
    with TestClient(create_app(settings.model_copy(update={"stream_window": 1_000_000}))) as client:
        yield client


@pytest.mark.parametrize("game", ["five_hundred", "rough", "euchre5"])
def test_every_rest_answer_and_stream_event_of_a_match_matches_the_typed_contract(
    whole_stream_client: TestClient, game: str
) -> None:
    """Through the service: the view, legal actions and move answers of every seat, and each seat's
    whole event stream, parse as the OpenAPI document's typed models (the service's own events,
    ``game_created``, ``game_started`` and ``turn``, included)."""
    client = whole_stream_client
    rng = random.Random(f"rest-{game}")
    table = seated(
        client,
        game,
        options={"target_score": min(engine.games()[game]["options"]["target_score"]["allowed"])},
    )
    while True:
        views = [
            ViewResponse.model_validate_json(
                client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[s])).content
            )
            for s in table.tokens
        ]
        to_act = views[0].view.to_act
        if to_act is None:
            break
        offered = LegalActionsResponse.model_validate_json(
            client.get(f"/v1/games/{table.game_id}/actions", headers=auth(table.tokens[to_act])).content
        )
        action = fill(rng.choice(offered.legal_actions).model_dump(by_alias=True, exclude_none=True), rng)
        moved = client.post(
            f"/v1/games/{table.game_id}/actions", headers=auth(table.tokens[to_act]), json={"action": action}
        )
        assert moved.status_code == 200, moved.text
        ActionResponse.model_validate_json(moved.content)
    kinds: set[str] = set()
    for seat in table.tokens:
        stream = client.get(
            f"/v1/games/{table.game_id}/events?follow=false", headers=auth(table.tokens[seat])
        )
        for line in stream.text.splitlines():
            if line.startswith("data: "):
                frame = GameStreamFrame.model_validate_json(line[6:]).root
                assert isinstance(frame, EventEnvelope), line
                kinds.add(frame.event.type)
    assert {"game_created", "game_started", "turn", f"{game}_hand_scored", "game_finished"} <= kinds
    log = client.get(f"/v1/games/{table.game_id}/log", headers=auth(table.tokens[0]))
    LogResponse.model_validate_json(log.content)


def test_a_bot_accounts_stream_frames_match_the_typed_contract(client: TestClient) -> None:
    """A bot account holding every seat is to act at once: its stream has a ``your_turn`` notice
    with the view and legal actions, typed as the document says."""
    key = client.post("/v1/bots", json={"name": "typed"}).json()["api_key"]
    gid = client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4}).json()["game"]["game_id"]
    for seat in range(4):
        joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=auth(key))
        assert joined.status_code == 201, joined.text
    text = client.get("/v1/bots/me/stream?follow=false", headers=auth(key)).text
    frames = [
        BotStreamFrame.model_validate_json(line[6:]).root
        for line in text.splitlines()
        if line.startswith("data: ")
    ]
    turns = [frame for frame in frames if frame.type == "your_turn"]
    assert turns and turns[0].view is not None and turns[0].legal_actions, text


def test_seat_events_match_the_typed_contract(client: TestClient) -> None:
    created = client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4}).json()["game"][
        "game_id"
    ]
    first = client.post(f"/v1/games/{created}/join", json={"seat": 0, "name": "ann"}).json()["token"]
    assert client.post(f"/v1/games/{created}/leave", headers=auth(first)).status_code == 200
    tokens = [
        client.post(f"/v1/games/{created}/join", json={"seat": s, "name": f"p{s}"}).json()["token"]
        for s in range(4)
    ]
    assert client.post(f"/v1/games/{created}/leave", headers=auth(tokens[2])).status_code == 200
    stream = client.get(f"/v1/games/{created}/events?follow=false", headers=auth(tokens[0]))
    kinds = [
        EventEnvelope.model_validate_json(line[6:]).event.type
        for line in stream.text.splitlines()
        if line.startswith("data: ")
    ]
    assert {"seat_joined", "seat_left", "seat_forfeited"} <= set(kinds), stream.text
