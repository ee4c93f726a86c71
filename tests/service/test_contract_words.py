"""The v1 contract's words (docs/glossary.md, issue 34): every moment an RFC 3339 string in UTC, the
seed one type, a notice one schema per type with exactly its fields, and what the store kept before v1
(notices, dead letters: numbers and old names) said in the v1 words when it is read."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from schema.games import CreateGameRequest, GameFinishedNotice, GameSummary
from schema.moments import Moment
from schema.players import InvitationNotice, PlayerStreamFrame, ReminderNotice
from schema.webhooks import WebhookPayload, YourTurnData
from service.games.bot_accounts import contract_notice

MOMENT: TypeAdapter[Any] = TypeAdapter(Moment)


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        (1_765_012_915, "2025-12-06T09:21:55Z"),  # POSIX seconds, as the game code holds them
        ("1765012915.25", "2025-12-06T09:21:55.250Z"),  # the text of a Redis hash
        ("2025-12-06T10:21:55+01:00", "2025-12-06T09:21:55Z"),  # another offset: said in UTC
    ],
)
def test_a_moment_is_an_rfc_3339_string_in_utc(stored: object, said: str) -> None:
    assert MOMENT.dump_json(MOMENT.validate_python(stored)).decode() == f'"{said}"'


def test_every_moment_of_the_contract_is_a_date_time_named_at() -> None:
    schema = GameSummary.model_json_schema()
    assert schema["properties"]["created_at"]["format"] == "date-time"
    reminder = ReminderNotice.model_json_schema()["properties"]
    assert "deadline" not in reminder and reminder["deadline_at"]["format"] == "date-time"


def test_the_admins_seed_is_one_type_a_decimal_string() -> None:
    request = CreateGameRequest.model_validate({"kind": "rough", "seed": "42"}).root
    assert request.seed == "42" and request.seed_number() == 42


@pytest.mark.parametrize("seed", [42, 42.0, str(2**53 + 1), "-1", "0x2a", "", True])
def test_a_seed_that_is_not_a_whole_number_up_to_2_53_is_refused(seed: object) -> None:
    with pytest.raises(ValidationError):
        CreateGameRequest.model_validate({"kind": "rough", "seed": seed})


def test_a_game_is_created_by_kind_not_by_game() -> None:
    with pytest.raises(ValidationError) as refused:
        CreateGameRequest.model_validate({"game": "rough"})
    assert [error["loc"] for error in refused.value.errors()] == [("kind",)]


def test_each_notice_type_has_its_own_schema_with_exactly_its_fields() -> None:
    frame = PlayerStreamFrame.model_validate(
        {"id": "1-0", "type": "game_finished", "game_id": "g", "version": 9, "winners": [0, 2]}
    )
    assert isinstance(frame.root, GameFinishedNotice)
    with pytest.raises(ValidationError):  # a your_turn always has its view and legal actions
        PlayerStreamFrame.model_validate({"id": "1-0", "type": "your_turn", "game_id": "g", "version": 3})
    with pytest.raises(ValidationError):  # and a notice refuses another type's field
        PlayerStreamFrame.model_validate(
            {"id": "1-0", "type": "game_finished", "game_id": "g", "version": 9, "winners": [], "seat": 1}
        )


def test_a_notice_stored_before_v1_is_delivered_in_the_v1_words() -> None:
    over = contract_notice({"type": "game_over", "game_id": "g", "version": 9, "winners": [1, 3]})
    assert GameFinishedNotice.model_validate({"id": "1-0", **over}).type == "game_finished"
    invited = contract_notice(
        {
            "type": "invitation",
            "game_id": "g",
            "game": "rough",
            "invitation_id": "i",
            "from_player": "p",
            "expires_at": 1_765_012_915,
        }
    )
    notice = InvitationNotice.model_validate({"id": "2-0", "from_name": "Ann", **invited})
    assert (notice.kind, notice.from_player_id) == ("rough", "p")
    assert invited["expires_at"] == "2025-12-06T09:21:55Z"
    reminder = contract_notice(
        {"type": "reminder", "game_id": "g", "version": 4, "seat": 0, "deadline": 1_765_012_915.5}
    )
    assert reminder["deadline_at"] == "2025-12-06T09:21:55.500Z" and "deadline" not in reminder


def test_a_dead_letter_sent_before_v1_is_read_with_the_v1_names() -> None:
    sent = {
        "type": "your_turn",
        "timestamp": "2025-12-06T09:21:55.123Z",
        "data": {"game_id": "g", "game": "rough", "seat": 2, "version": 7, "deadline": None},
    }
    message = TypeAdapter(WebhookPayload).validate_python(sent)
    assert isinstance(message.data, YourTurnData) and message.data.kind == "rough"
