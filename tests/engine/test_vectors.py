"""The golden hands of tests/data/vectors/: explicit deal + actions -> trick winners and scores.

Each vector names the rules it exercises implicitly (deal ALL-3, play ALL-4/ALL-5, the
game's bidding and scoring). A mismatch is a bug in the engine or a disagreement with
docs/rules.md worth raising.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine

# The golden hands live in the repository: a clone has everything its tests read.
VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"


def load(game: str) -> list[dict[str, Any]]:
    path = VECTORS / f"{game}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


CASES = [(game, i, v) for game in ("five_hundred", "rough", "euchre5") for i, v in enumerate(load(game))]


def test_every_game_has_golden_hands() -> None:
    assert {game for game, _, _ in CASES} == {"five_hundred", "rough", "euchre5"}
    assert len(CASES) >= 180


@pytest.mark.parametrize(("game", "index", "vector"), CASES, ids=[f"{g}-{i}" for g, i, _ in CASES])
def test_golden_hand(game: str, index: int, vector: dict[str, Any]) -> None:
    m = engine.new_match(game, seed=0, deal=vector["deal"])
    first_hand = m.hand_number
    winners = []
    for seat, action in vector["actions"]:
        assert action in engine.legal_actions(m, seat) or action["type"] == "discard"
        m = engine.apply(m, seat, action)
        winners += [e["winner"] for e in m.events if e["type"] == "trick"]
    assert winners == vector["trick_winners"]
    assert m.scores == vector["scores_after"]
    assert m.over is vector["match_over"]
    assert m.winners == vector["winners"]
    if not m.over:
        # ALL-2: the hand is over and the deal has passed one seat left.
        assert m.hand_number == first_hand + 1
        assert m.dealer == (vector["deal"]["dealer"] + 1) % len(vector["deal"]["hands"])
    # ALL-7: once scored, the hand's full deal record is public and matches the deal.
    assert m.last_hand is not None
    assert m.last_hand["deal"]["hands"] == [sorted(h, key=_card_order) for h in vector["deal"]["hands"]]
    assert m.last_hand["deal"]["kitty"] == vector["deal"]["kitty"]


def _card_order(code: str) -> int:
    from engine.cards import CARD_OF

    return CARD_OF[code]
