"""The toolkit's client reads the answers of a later /v1 (docs/apps.md, "Versioning";
docs/glossary.md): a field it does not know is ignored (the models forbid undeclared fields, so that
the server's tests catch one it sends, and the client decodes with ``extra="ignore"``), an event or
notice of a type it does not know is skipped, a problem code it does not know keeps its status; a
known type that breaks its schema is still an error."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from atout.client.calls import _answer
from atout.client.errors import api_error
from atout.client.framing import decode_frame
from schema.games import GameStreamFrame, LegalActionsResponse
from schema.players import PlayerStreamFrame
from schema.views.stream import EventEnvelope

LATER = {"table_colour": "green"}  # a field a later /v1 adds
TURN = {"type": "turn", "to_act": 1, "status": "active"}


def test_an_answer_with_a_field_the_client_does_not_know_is_read() -> None:
    body = {
        "game_id": "g1",
        "version": 3,
        "seat": 1,
        "to_act": 1,
        "legal_actions": [{"type": "pass", **LATER}],
    }
    answer = httpx.Response(200, content=json.dumps({**body, **LATER}).encode())
    read = _answer(LegalActionsResponse)(answer)
    assert (read.game_id, read.version, [action.type for action in read.legal_actions]) == ("g1", 3, ["pass"])


def test_a_stream_event_with_a_new_field_is_read_and_one_of_a_new_type_skipped() -> None:
    known = decode_frame(
        GameStreamFrame, {"type": "event", "id": "1-0", "version": 3, "event": {**TURN, **LATER}, **LATER}
    )
    assert isinstance(known, EventEnvelope) and known.id == "1-0"
    assert (
        decode_frame(
            GameStreamFrame, {"type": "event", "id": "2-0", "version": 4, "event": {"type": "card_vanished"}}
        )
        is None
    )


def test_a_notice_of_a_new_type_is_skipped() -> None:
    assert decode_frame(PlayerStreamFrame, {"id": "5-0", "type": "table_on_fire", "game_id": "g1"}) is None


def test_a_known_event_that_breaks_its_schema_is_still_an_error() -> None:
    with pytest.raises(ValidationError):
        decode_frame(
            GameStreamFrame,
            {"type": "event", "id": "1-0", "version": 3, "event": {"type": "turn", "to_act": "x"}},
        )


def test_a_problem_code_the_client_does_not_know_keeps_its_status() -> None:
    problem: dict[str, Any] = {
        "type": "about:blank",
        "title": "The seat is on fire",
        "status": 409,
        "code": "seat_on_fire",
        "detail": "Wait for the fire to go out.",
        **LATER,
    }
    error = api_error(httpx.Response(409, content=json.dumps(problem).encode()))
    assert (error.status, error.code, error.detail) == (409, "seat_on_fire", "Wait for the fire to go out.")
