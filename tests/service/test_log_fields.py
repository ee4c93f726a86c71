"""A log that says one thing once (issue 19): the replay log's match key is `key`; `seed` is only its
deprecated alias, and a log whose fields contradict each other is refused by engine.verify_log and by
``atout verify`` (docs/fairness.md, "Verifying a finished game"; ALL-3 for explicit deals). Matches are
played through REST on a real redis-server; the CLI runs as a user would run it, on a saved log.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, atout_verify, seated

import engine
from engine import fair
from schema.games import LogResponse
from service.api.rest import openapi_document

DISAGREE = "the log's seed and key disagree"


def finished_log(
    client: TestClient, rng: random.Random, game: str = "rough", **create: Any
) -> dict[str, Any]:
    """The replay log of a match played to its end by random legal moves (``create``: the creation
    body; a chosen seed or deal makes the administrator create it)."""
    table = seated(client, game, options=FAST_OPTIONS[game], **create)
    assert table.play_random(rng)["status"] == "finished"
    response = client.get(f"/v1/games/{table.game_id}/log")
    assert response.status_code == 200, response.text
    log: dict[str, Any] = response.json()
    return log


def verify_saved(log: dict[str, Any], path: Path) -> subprocess.CompletedProcess[str]:
    """``atout verify`` on ``log`` saved at ``path``."""
    path.write_text(json.dumps(log))
    return atout_verify(path)


def assert_cli_passes(log: dict[str, Any], path: Path) -> str:
    done = verify_saved(log, path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("verified: "), done.stdout
    return done.stdout


def assert_cli_refuses(log: dict[str, Any], path: Path, words: str) -> str:
    done = verify_saved(log, path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith(f"FAILED: {words}"), done.stdout
    return done.stdout


# ----- `key` is the field; `seed` a deprecated alias that must say the same ---------------------------


def test_the_log_of_a_finished_match_states_its_key_and_verifies(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    log = finished_log(client, rng)
    assert log["seed"] == log["key"] and fair.match_commitment(bytes.fromhex(log["key"])) == log["commitment"]
    assert engine.verify_log(log) == []
    assert_cli_passes(log, tmp_path / "log.json")


def test_a_seed_naming_another_key_than_key_is_refused(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    """The deals are checked against `key` alone: a `seed` that names another key would be believed by
    whoever reads it and never checked, so the log is refused, by the engine and by `atout verify`."""
    log = finished_log(client, rng)
    other = {**log, "seed": "ab" * 32}
    problems = engine.verify_log(other)
    assert len(problems) == 1 and problems[0].startswith(DISAGREE), problems
    assert "ab" * 32 in problems[0] and log["key"] in problems[0]  # both values, to compare by eye
    assert f"GET /v1/games/{log['game_id']}/log" in problems[0]  # and what to do about it
    out = assert_cli_refuses(other, tmp_path / "other.json", DISAGREE)
    assert "`seed` names `key`, the match key" in out


def test_the_seed_is_compared_as_bytes_whatever_the_case_of_its_hex(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    log = finished_log(client, rng)
    shouted = {**log, "seed": log["key"].upper()}
    assert engine.verify_log(shouted) == []
    assert_cli_passes(shouted, tmp_path / "upper.json")


def test_a_log_without_seed_verifies_on_key_alone(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    log = finished_log(client, rng)
    del log["seed"]
    assert engine.verify_log(log) == []
    assert_cli_passes(log, tmp_path / "keyonly.json")


@pytest.mark.parametrize("seed", [[1, 2], "not hex", True, 1.5, None])
def test_a_seed_that_is_neither_a_whole_number_nor_hex_is_a_malformed_log(
    client: TestClient, rng: random.Random, tmp_path: Path, seed: Any
) -> None:
    log = {**finished_log(client, rng), "seed": seed}
    problems = engine.verify_log(log)
    assert problems and problems[0].startswith("malformed log (seed must be the match key"), problems
    assert_cli_refuses(log, tmp_path / "malformed.json", "malformed log (seed")


def test_an_administrators_whole_number_seed_gives_the_key_and_another_number_is_refused(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    """docs/fairness.md, "Seeds chosen by the administrator": `seed` s stands for K = key_of_int(s)."""
    log = finished_log(client, rng, seed="12345")
    assert log["seed"] == "12345" and bytes.fromhex(log["key"]) == fair.key_of_int(12345)
    assert engine.verify_log(log) == []
    assert_cli_passes(log, tmp_path / "int.json")
    changed = {**log, "seed": "12346"}
    problems = engine.verify_log(changed)
    assert problems and problems[0].startswith(DISAGREE) and fair.key_of_int(12346).hex() in problems[0]
    assert_cli_refuses(changed, tmp_path / "changed.json", DISAGREE)
    as_hex = {**log, "seed": log["key"]}  # the same key, said in hex: no contradiction
    assert engine.verify_log(as_hex) == []


# ----- ALL-3: a hand marked unseeded is the log's explicit deal, or the log is refused ------------------


def explicit_deal(game: str) -> dict[str, Any]:
    ref = engine.new_match(game, seed=2)
    return {
        "dealer": 0,
        "hands": [engine.cards.codes_of(h) for h in ref.dealt],
        "kitty": [engine.cards.CODES[c] for c in ref.kitty_dealt],
    }


def test_all_3_an_explicit_first_deal_is_reported_and_every_contradiction_about_it_refused(
    client: TestClient, rng: random.Random, tmp_path: Path
) -> None:
    """An unseeded hand is checked against no seed, so the mark must hold: it is the log's `deal` and
    shows nothing a seeded hand would (hand 1 only: tests/engine/test_fair.py)."""
    deal = explicit_deal("euchre5")
    log = finished_log(client, rng, "euchre5", deal=deal)
    assert log["deal"] == deal and log["hands"][0]["seeded"] is False
    assert engine.verify_log(log) == ["hand 1: dealt explicitly by the administrator, not from a seed"]
    assert "(1 dealt explicitly by the administrator)" in assert_cli_passes(log, tmp_path / "deal.json")

    no_deal = {**log, "deal": None}
    assert_cli_refuses(no_deal, tmp_path / "no_deal.json", "hand 1: marked unseeded, but the log gives no")
    other = copy.deepcopy(deal)  # still the whole deck, one card of seat 0 swapped with the kitty's
    other["hands"][0][0], other["kitty"][0] = other["kitty"][0], other["hands"][0][0]
    assert_cli_refuses({**log, "deal": other}, tmp_path / "other.json", "hand 1: seat 0 was dealt")
    committed = copy.deepcopy(log)
    committed["hands"][0]["commitment"] = "ab" * 32
    assert_cli_refuses(committed, tmp_path / "committed.json", "hand 1: marked unseeded, yet it shows")


# ----- the contract says it -------------------------------------------------------------------------


def test_the_openapi_document_says_the_logs_seed_and_key_are_one_fact_said_twice() -> None:
    """v1: `seed` is required and current (the administrator's number is a fact `key` alone does not
    say), a string either way; `key` is what the deals are verified against."""
    schema = openapi_document()["components"]["schemas"]["LogResponse"]
    properties = schema["properties"]
    assert {"seed", "key"} <= set(schema["required"])
    assert "deprecated" not in properties["seed"] and "deprecated" not in properties["key"]
    assert properties["seed"]["type"] == "string" and "decimal string" in properties["seed"]["description"]
    assert "deprecated" not in LogResponse.model_json_schema()["properties"]["seed"]
