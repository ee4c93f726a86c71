"""docs/fairness.md, implemented a second time from the page alone: hashlib and hmac only, nothing of
the engine's deal code. Matches are played through the service (REST, real redis-server); every
deal of their replay logs is re-derived here, card for card (ALL-2 dealers, ALL-3 deals, F5-3, RG-5,
E5-3 packets).

If this test and engine/fair.py disagree, one of them does not follow the documentation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from typing import Any

import pytest
from starlette.testclient import TestClient

# ----- the specification, transcribed ------------------------------------------------------------

DECKS = {  # "Canonical deck order"
    "five_hundred": "AS KS QS JS TS 9S 8S 7S 6S 5S 4S AC KC QC JC TC 9C 8C 7C 6C 5C 4C AD KD QD "
    "JD TD 9D 8D 7D 6D 5D 4D AH KH QH JH TH 9H 8H 7H 6H 5H 4H BJ RJ",
    "rough": "AS KS QS JS TS 9S 8S 7S 5S AC KC QC JC TC 9C 8C 7C 5C AD KD QD "
    "JD TD 9D 8D 7D 5D AH KH QH JH TH 9H 8H 7H 5H",
    "euchre5": "AS KS QS JS TS 9S 8S AC KC QC JC TC 9C 8C AD KD QD JD TD 9D 8D AH KH QH JH TH 9H 8H",
}
PACKETS = {  # "Dealing the packets"
    "five_hundred": [("each", 3), ("kitty", 3), ("each", 2), ("each", 3), ("kitty", 3), ("each", 2)],
    "rough": [("each", 4), ("kitty", 4), ("each", 4)],
    "euchre5": [("each", 2), ("each", 3), ("kitty", 3)],
}
PLAYERS = {"five_hundred": 4, "rough": 4, "euchre5": 5}
SHORT = {
    "five_hundred": {"target_score": 300},
    "rough": {"target_score": 200},
    "euchre5": {"target_score": 5},
}


def u32be(x: int) -> bytes:
    return x.to_bytes(4, "big")


def canonical_seeds(seeds: list[str]) -> bytes:
    """'[' "s0" ',' "s1" … ']', no spaces, only \\" and \\\\ escaped (printable ASCII seeds)."""
    quoted = ['"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in seeds]
    return ("[" + ",".join(quoted) + "]").encode("ascii")


def server_part(key: bytes, n: int) -> bytes:
    return hmac.new(key, b"atout-hand/v1" + u32be(n), hashlib.sha256).digest()


def hand_seed(part: bytes, seeds: list[str]) -> bytes:
    return hashlib.sha256(b"atout-deal/v1" + part + canonical_seeds(seeds)).digest()


class Stream:
    """block_i = HMAC-SHA256(seed, label || u64be(i)); bytes consumed in order, never reused."""

    def __init__(self, seed: bytes, label: bytes) -> None:
        self.seed, self.label, self.i, self.buf = seed, label, 0, b""

    def take4(self) -> int:
        while len(self.buf) < 4:
            self.buf += hmac.new(self.seed, self.label + self.i.to_bytes(8, "big"), hashlib.sha256).digest()
            self.i += 1
        word, self.buf = self.buf[:4], self.buf[4:]
        return int.from_bytes(word, "big")

    def randbelow(self, k: int) -> int:
        limit = 2**32 - (2**32 % k)
        for _ in range(1000):  # a rejection has probability < 1/2: 1,000 in a row does not happen
            u = self.take4()
            if u < limit:
                return u % k
        raise AssertionError("randbelow rejected 1,000 words in a row")


def first_dealer(seed1: bytes, players: int) -> int:
    return Stream(seed1, b"atout-dealer/v1").randbelow(players)


def deal(game: str, seed: bytes, dealer: int) -> tuple[list[set[str]], list[str]]:
    d = DECKS[game].split()
    stream = Stream(seed, b"atout-drbg/v1")
    for i in range(len(d) - 1, 0, -1):
        j = stream.randbelow(i + 1)
        d[i], d[j] = d[j], d[i]
    players = PLAYERS[game]
    hands: list[set[str]] = [set() for _ in range(players)]
    kitty: list[str] = []
    top = iter(d)
    for target, k in PACKETS[game]:
        if target == "kitty":
            kitty += [next(top) for _ in range(k)]
            continue
        for step in range(1, players + 1):  # the dealer's left first, the dealer last
            hands[(dealer + step) % players] |= {next(top) for _ in range(k)}
    assert next(top, None) is None, "every card dealt"
    return hands, kitty


# ----- a match through the service --------------------------------------------------------------------


def play_match(client: TestClient, game: str, seeds: list[str], rng: random.Random) -> dict[str, Any]:
    """Create, join with client seeds, play random legal actions to the end; the replay log."""
    created = client.post("/v1/games", json={"kind": game, "options": SHORT[game]})
    assert created.status_code == 201, created.text
    gid = created.json()["game"]["game_id"]
    commitment = created.json()["game"]["commitment"]
    tokens = {}
    for seat, seed in enumerate(seeds):
        joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat, "client_seed": seed})
        assert joined.status_code == 201, joined.text
        tokens[seat] = joined.json()["token"]
    for _ in range(20_000):
        game_now = client.get(f"/v1/games/{gid}").json()
        if game_now["status"] == "finished":
            break
        seat = game_now["to_act"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        action = dict(
            rng.choice(client.get(f"/v1/games/{gid}/actions", headers=headers).json()["legal_actions"])
        )
        if action["type"] == "discard" and "choices" in action:
            action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
        body = {"action": action, "expected_version": game_now["version"]}
        assert client.post(f"/v1/games/{gid}/actions", json=body, headers=headers).status_code == 200
    log: dict[str, Any] = client.get(f"/v1/games/{gid}/log").json()
    assert log["commitment"] == commitment, "the log's commitment is the one published at creation"
    return log


@pytest.mark.parametrize("game", sorted(DECKS))
def test_every_deal_of_a_served_match_is_re_derived_from_the_docs_alone(
    client: TestClient, game: str
) -> None:
    rng = random.Random(f"spec-{game}")
    seeds = [f"player {n}" if n % 2 else "" for n in range(PLAYERS[game])]
    seeds[0] = 'with "quotes" and \\'
    log = play_match(client, game, seeds, rng)
    key = bytes.fromhex(log["key"])  # "Read the match key from `key`"
    assert log["seed"] == log["key"], "the deprecated `seed` is an alias of `key`, never another key"
    assert hashlib.sha256(key).hexdigest() == log["commitment"]
    assert log["client_seeds"] == seeds
    assert json.loads(canonical_seeds(seeds)) == seeds
    hands = log["hands"]
    assert [h["hand"] for h in hands] == list(range(1, len(hands) + 1)) and hands
    dealer = first_dealer(hand_seed(server_part(key, 1), seeds), PLAYERS[game])
    for record in hands:
        n = record["hand"]
        part = server_part(key, n)
        seed = hand_seed(part, seeds)
        assert record["server_part"] == part.hex() and record["seed"] == seed.hex()
        assert record["commitment"] == hashlib.sha256(seed).hexdigest()
        assert record["dealer"] == (dealer + n - 1) % PLAYERS[game]  # ALL-2
        want_hands, want_kitty = deal(game, seed, record["dealer"])
        assert [set(h) for h in record["hands"]] == want_hands, f"hand {n}"
        assert record["kitty"] == want_kitty, f"hand {n}"


def test_the_worked_example_of_the_docs() -> None:
    key = bytes(range(32))
    seeds = ["alice", "", "bob", ""]
    assert (
        hashlib.sha256(key).hexdigest() == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    seed = hand_seed(server_part(key, 1), seeds)
    assert (
        hashlib.sha256(seed).hexdigest() == "bd2a2f00480f12b258a836c1c6aa47247b9aeb182c2fb4e8868646e1efae1527"
    )
    assert first_dealer(seed, 4) == 2
    hands, kitty = deal("rough", seed, 2)
    assert hands[0] == {"5S", "KS", "AS", "5C", "AC", "JD", "8H", "9H"}
    assert hands[3] == {"7S", "9S", "7C", "9C", "TC", "QC", "TD", "5H"}
    assert kitty == ["7H", "QH", "8S", "JC"]
