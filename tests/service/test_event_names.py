"""An event has one schema and one name (docs/glossary.md, issue 34): its ``type`` is its schema's name
in snake_case and the schema's name the ``type`` in CamelCase, no event type is also an action type,
and the names the engine and the games stored before v1 use are mapped at one place
(``schema.views.events``), so a game stored before the upgrade is served under the new names."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
import redis
from pydantic import TypeAdapter
from starlette.testclient import TestClient
from svc_helpers import auth, seated

from schema import actions
from schema.games import ActionResponse, GameStreamFrame
from schema.views import EVENT_BODIES, EventEnvelope, GameEvent, LegalAction, public_event
from schema.views.events import HAND_SCORED, STORED_FIELDS, STORED_TYPES, model_name_of, type_of
from service.store.keys import events_key, idem_key

NDJSON = {"Accept": "application/x-ndjson"}
EVENT_TYPES = {get_args(model.model_fields["type"].annotation)[0]: model for model in EVENT_BODIES}


def literal_types(union: Any) -> set[str]:
    """The ``type`` values of the members of a discriminated union of models."""
    members = get_args(get_args(union)[0])
    return {value for member in members for value in get_args(member.model_fields["type"].annotation)}


@pytest.mark.parametrize("model", EVENT_BODIES, ids=lambda model: model.__name__)
def test_an_events_type_and_its_schema_name_derive_from_one_another(model: type) -> None:
    event_type = get_args(model.model_fields["type"].annotation)[0]
    assert type_of(model) == event_type
    assert model_name_of(event_type) == model.__name__


def test_every_event_is_one_member_of_game_event_and_has_its_own_type() -> None:
    assert len(EVENT_TYPES) == len(EVENT_BODIES)
    assert literal_types(GameEvent.__value__) == set(EVENT_TYPES)


def test_no_event_type_is_also_an_action_type() -> None:
    action_types = literal_types(actions.Action) | literal_types(LegalAction)
    assert "card_played" not in action_types and "play" in action_types  # the helper reads them
    assert not set(EVENT_TYPES) & action_types


def test_every_stored_name_maps_to_a_public_event_and_none_is_public_itself() -> None:
    """A stored name is never a public type (the mapping could not tell them apart) and each maps to
    an event's type; the fields renamed on the way belong to their event's schema."""
    public = set(EVENT_TYPES)
    assert set(STORED_TYPES.values()) | set(HAND_SCORED.values()) <= public
    assert not (set(STORED_TYPES) | {"hand_scored"}) & public
    for event_type, renamed in STORED_FIELDS.items():
        fields = EVENT_TYPES[event_type].model_fields
        assert set(renamed.values()) <= set(fields) and not set(renamed) & set(fields), event_type


def test_an_event_already_public_comes_back_as_it_is() -> None:
    """The stream's hot path: an event that needs no renaming is not copied, and mapping twice is
    mapping once."""
    event = {"type": "seat_joined", "seat": 1, "name": "ann"}
    assert public_event(event, "rough") is event
    stored = {"type": "hand_seed", "hand": 3, "seed": "ab", "server_part": "cd"}
    once = public_event(stored, "rough")
    assert once == {"type": "hand_seed", "hand_number": 3, "seed": "ab", "server_part": "cd"}
    assert public_event(once, "rough") == once


DEAL = {"dealer": 0, "hands": [[], [], [], []], "kitty": [], "discards": [], "discarder": None, "tricks": []}
OLD_EVENTS: list[dict[str, Any]] = [
    {"type": "play", "seat": 1, "card": "AS"},
    {"type": "trick", "leader": 1, "cards": ["AS", "KS", "QS", "JS"], "winner": 1},
    {"type": "hand_commitment", "hand": 2, "commitment": "ab"},
    {"type": "your_turn", "seat": 0, "version": 9, "actions": [{"type": "pass"}], "visible_to": [0]},
    {
        "type": "hand_scored",
        "hand_number": 1,
        "taker": 0,
        "contract": {"tricks": 6, "suit": "S"},
        "tricks_taken": [7, 3],
        "made": True,
        "points": [40, 0],
        "scores": [40, 0],
        "deal": DEAL,
    },
    {"type": "match_over", "winners": [0, 2], "scores": [540, 0]},
]


def stream_of(client: TestClient, gid: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    text = client.get(f"/v1/games/{gid}/events?follow=false", headers={**headers, **NDJSON}).text
    return [json.loads(line) for line in text.splitlines()]


def test_a_game_stored_before_v1_is_served_under_the_new_names(
    client: TestClient, redis_client: redis.Redis
) -> None:
    """Events written with the old names (as the engine still writes them, and as every game stored
    before the upgrade holds them) come out of the stream under the new ones, in their envelope,
    each valid against the document's schema; a private one still only to its seat (ALL-7)."""
    table = seated(client, "five_hundred")
    for event in OLD_EVENTS:
        redis_client.xadd(events_key(table.game_id), {"e": json.dumps(event), "v": 9})
    mine = stream_of(client, table.game_id, auth(table.tokens[0]))[-len(OLD_EVENTS) :]
    for frame in mine:
        assert isinstance(GameStreamFrame.model_validate(frame).root, EventEnvelope), frame
    events = [frame["event"] for frame in mine]
    assert [event["type"] for event in events] == [
        "card_played",
        "trick_won",
        "hand_commitment",
        "your_turn",
        "five_hundred_hand_scored",
        "game_finished",
    ]
    assert events[2]["hand_number"] == 2 and "hand" not in events[2]
    assert events[3]["legal_actions"] == [{"type": "pass"}] and "actions" not in events[3]
    assert events[4]["tricks_won"] == [7, 3] and "tricks_taken" not in events[4]
    theirs = [frame["event"]["type"] for frame in stream_of(client, table.game_id, auth(table.tokens[1]))]
    assert "your_turn" not in theirs[-5:] and theirs[-5:][0] == "card_played"


def test_a_moves_answer_and_the_stream_give_the_same_event_object(client: TestClient) -> None:
    """One schema per event: the events of a move's answer are, field for field, the ``event`` of the
    envelopes the seat's stream gives for that version."""
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    answer = table.act(seat, table.legal(seat)[0])
    assert answer.status_code == 200, answer.text
    moved = answer.json()
    framed = stream_of(client, table.game_id, auth(table.tokens[seat]))
    at_version = [f["event"] for f in framed if f["version"] == moved["version"]]
    assert moved["events"] == [event for event in at_version if event["type"] != "your_turn"]
    assert moved["events"][0]["type"] == "bid_made"
    TypeAdapter(list[GameEvent]).validate_python(moved["events"])


def test_a_moves_answer_stored_before_v1_is_replayed_in_v1_words(
    client: TestClient, redis_client: redis.Redis
) -> None:
    """A move's answer is kept a day for its Idempotency-Key: one stored by the pre-v1 release (old
    event names, a view's `game`, a discard's `from`) and retried after the upgrade is answered in
    v1's words, valid against the document's schema."""
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    headers = {**auth(table.tokens[seat]), "Idempotency-Key": "before-the-upgrade"}
    body = {"action": table.legal(seat)[0], "expected_version": table.game()["version"]}
    first = client.post(f"/v1/games/{table.game_id}/actions", json=body, headers=headers).json()
    key = idem_key(table.game_id, str(seat), "before-the-upgrade")
    stored = json.loads(redis_client.get(key))
    old_names = {public: stored_name for stored_name, public in STORED_TYPES.items()}
    view = client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])).json()["view"]
    stored["response"]["events"] = [
        {**event, "type": old_names.get(event["type"], event["type"])} for event in first["events"]
    ]
    stored["response"]["next_turn"] = {  # as the pre-v1 release wrote one
        "seat": seat,
        "version": first["version"],
        "view": {("game" if name == "kind" else name): value for name, value in view.items()},
        "legal_actions": [{"type": "discard", "count": 1, "from": view["hand"][:2]}],
    }
    assert stored["response"]["events"][0]["type"] == "bid"
    redis_client.set(key, json.dumps(stored), keepttl=True)
    again = client.post(f"/v1/games/{table.game_id}/actions", json=body, headers=headers)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.text
    replayed = again.json()
    assert replayed["events"] == first["events"] and replayed["replayed"] is True
    assert replayed["next_turn"]["view"]["kind"] == "rough" and "game" not in replayed["next_turn"]["view"]
    assert replayed["next_turn"]["legal_actions"] == [
        {"type": "discard", "count": 1, "choices": view["hand"][:2]}
    ]
    ActionResponse.model_validate(replayed)
