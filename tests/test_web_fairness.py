"""ALL-2, ALL-3: the web table's deal check (service/static/play/fair.js) is a second implementation of the
fairness scheme, in JavaScript with WebCrypto: run under Node (the one `make test` installs), it
must reproduce docs/fairness.md's worked example byte for byte, accept that hand as dealt and
refuse it with one card moved, a wrong client seed or a wrong match key."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import engine

ROOT = Path(__file__).resolve().parent.parent
FAIR = ROOT / "service" / "static" / "play" / "fair.js"
DOC = (ROOT / "docs" / "fairness.md").read_text()
KEY = bytes(range(32)).hex()
SEEDS = ["alice", "", "bob", ""]


def worked_example() -> dict[str, Any]:
    """The figures of docs/fairness.md's worked example (Le Rough, K = 00 01 … 1f)."""

    def field(name: str) -> str:
        found = re.search(rf"{name}\s*=\s*`?([0-9a-f]{{64}})", DOC)
        assert found, name
        return found.group(1)

    hands = {int(s): cards.split() for s, cards in re.findall(r"seat (\d): ((?:[2-9TJQKA][SCDH] ?){8})", DOC)}
    kitty = re.search(r"kitty : ((?:[2-9TJQKA][SCDH] ?){4})", DOC)
    assert len(hands) == 4 and kitty
    return {
        "server_part": field("server_part_1"),
        "seed": field("hand_seed_1"),
        "commitment": field("commitment_1"),
        "hands": [hands[seat] for seat in range(4)],
        "kitty": kitty.group(1).split(),
        "dealer": 2,  # "seat 2 deals, seat 3 receives first"
    }


def run_node(script: str) -> Any:
    node = shutil.which("node")
    assert node, "Node is missing: `make test` installs it"
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def check(proof: dict[str, Any], key: str = KEY, parts: dict[int, str] | None = None) -> dict[str, bool]:
    deck = engine.games()["rough"]["deck"]
    script = f"""
import {{ verifyHand, verifyKey, dealOf, fromHex }} from {json.dumps(FAIR.as_uri())};
const proof = {json.dumps({**proof, "clientSeeds": SEEDS, "serverPart": proof["server_part"], "hand": 1})};
const deck = {json.dumps(deck)};
const dealt = await dealOf("rough", deck, 4, proof.dealer, fromHex(proof.seed));
const given = {json.dumps(parts or {1: proof["server_part"]})};
const parts = new Map(Object.entries(given).map(([h, p]) => [Number(h), p]));
console.log(JSON.stringify({{
  hand: await verifyHand("rough", deck, proof),
  key: await verifyKey({json.dumps(key)}, parts),
  dealt,
}}));
"""
    result: dict[str, Any] = run_node(script)
    return result


def test_the_page_reproduces_the_worked_example_and_accepts_its_deal() -> None:
    example = worked_example()
    result = check(example)
    assert result["dealt"]["kitty"] == example["kitty"]  # in dealt order (ALL-3)
    assert [sorted(hand) for hand in result["dealt"]["hands"]] == [sorted(hand) for hand in example["hands"]]
    assert result["hand"] is True and result["key"] is True


def test_the_page_refuses_a_deal_with_one_card_moved() -> None:
    example = worked_example()
    hands = [list(hand) for hand in example["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert check({**example, "hands": hands})["hand"] is False


def test_the_page_refuses_a_seed_its_commitment_does_not_match() -> None:
    example = worked_example()
    assert check({**example, "commitment": "0" * 64})["hand"] is False


def test_the_page_refuses_a_server_part_the_match_key_does_not_give() -> None:
    example = worked_example()
    assert check(example, key="ff" * 32)["key"] is False
    # and a seed that does not derive from the server part and the client seeds
    assert check({**example, "server_part": "ab" * 32})["hand"] is False
