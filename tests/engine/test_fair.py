"""Provably fair deals (engine.fair, docs/fairness.md): the seed material, the DRBG, the shuffle,
the commit-reveal events, and verify_log on honest and tampered logs.

The known answers pin the byte layouts: a change to any label, length or order breaks them, as it
would break every client that re-derives deals from the documentation.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import fair

GAMES = ["five_hundred", "rough", "euchre5"]
KEY = bytes(range(32))  # the fixed key of the worked example in docs/fairness.md
SEEDS = ["alice", "", "bob", ""]


def play_out(m: engine.Match, rng: random.Random, max_steps: int = 20_000) -> tuple[engine.Match, list[Any]]:
    """Random legal moves to the end of the match; every event on the way (bounded in steps)."""
    events = list(m.events)
    for _ in range(max_steps):
        if m.over:
            break
        assert m.to_act is not None
        m = engine.apply(m, m.to_act, engine.random_move(m, rng))
        events += m.events
    assert m.over, "the match ended within the step bound"
    return m, events


def log_of(m: engine.Match, events: list[Any]) -> dict[str, Any]:
    """A replay log as the service publishes it (the fields verify_log reads)."""
    return {
        "game": m.game,
        "key": engine.revealed_key(m),
        "commitment": engine.match_commitment(m),
        "client_seeds": list(m.client_seeds),
        "hands": engine.hand_records(events),
    }


@pytest.fixture(scope="module")
def played() -> dict[str, dict[str, Any]]:
    out = {}
    for i, game in enumerate(GAMES):
        seeds = [f"seat{s}" for s in range(engine.game(game).players)]
        m, events = play_out(
            engine.new_match(game, seed=KEY, client_seeds=seeds, options=_short(game)), random.Random(i)
        )
        out[game] = log_of(m, events)
    return out


def _short(game: str) -> dict[str, Any]:
    """Options for a match of a few hands (the smallest target each game allows)."""
    specs = engine.games()[game]["options"]
    return {"target_score": min(specs["target_score"]["allowed"])} if "target_score" in specs else {}


# ----- known answers -----------------------------------------------------------------------------


def test_drbg_known_answer() -> None:
    """HMAC-SHA256(seed, "atout-drbg/v1" || i as 8 bytes), i = 0, 1, … as one byte stream."""
    assert fair.Drbg(bytes(32)).read(8).hex() == "d5fc28dc38bdf85a"
    block0 = fair.hmac.new(bytes(32), b"atout-drbg/v1" + (0).to_bytes(8, "big"), hashlib.sha256).digest()
    block1 = fair.hmac.new(bytes(32), b"atout-drbg/v1" + (1).to_bytes(8, "big"), hashlib.sha256).digest()
    drbg = fair.Drbg(bytes(32))
    assert drbg.read(5) + drbg.read(40) == (block0 + block1)[:45], "reads continue one stream"


def test_randbelow_takes_four_bytes_and_rejects_the_top_sliver() -> None:
    seed = hashlib.sha256(b"reject").digest()
    words = fair.Drbg(seed).words()
    drbg = fair.Drbg(seed)
    for k in (1, 2, 3, 7, 36, 46, 2**31 + 1, 2**32):
        limit = 2**32 - (2**32 % k)
        u = next(words)
        while u >= limit:
            u = next(words)
        assert drbg.randbelow(k) == u % k
    with pytest.raises(ValueError):
        drbg.randbelow(0)


def test_shuffle_draws_exactly_what_the_drbg_gives_word_by_word() -> None:
    """The shuffle cuts the DRBG's blocks into words up front (speed); it must be the plain
    Fisher-Yates over ``Drbg.randbelow`` for every deck size, as docs/fairness.md specifies."""

    def reference(items: list[int], seed: bytes) -> list[int]:
        out, drbg = list(items), fair.Drbg(seed)
        for i in range(len(out) - 1, 0, -1):
            j = drbg.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    for n in range(0, 47):
        for s in range(40):
            seed = hashlib.sha256(f"{n}/{s}".encode()).digest()
            assert fair.shuffle(list(range(n)), seed) == reference(list(range(n)), seed), (n, s)


def test_the_shuffles_hmac_is_hmac_sha256_for_every_key_length() -> None:
    """RFC 2104 with a key shorter than, equal to and longer than SHA-256's 64-byte block."""
    for n in (0, 1, 16, 32, 63, 64, 65, 200):
        key = bytes(range(256))[:n] if n <= 256 else b""
        for message in (b"", b"atout-drbg/v1" + (7).to_bytes(8, "big"), b"x" * 300):
            assert fair._HmacSha256(key).digest(message) == hmac.digest(key, message, "sha256"), n


def test_shuffle_known_answer_fisher_yates_from_the_end() -> None:
    assert fair.shuffle(list(range(10)), hashlib.sha256(b"atout").digest()) == [9, 8, 1, 7, 6, 5, 3, 0, 4, 2]


def test_worked_example_of_the_docs() -> None:
    """The hex values of docs/fairness.md's worked example (key 00 01 … 1f, Le Rough)."""
    assert fair.match_commitment(KEY) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    part = fair.server_part(KEY, 1)
    assert part.hex() == "0d66fb2c729ddcc365a4c27d95ae0a32bbd12d06ee6f0bcb83da638633f2de2b"
    assert fair.canonical_client_seeds(SEEDS) == b'["alice","","bob",""]'
    seed = fair.hand_seed(part, SEEDS)
    assert seed.hex() == "776b446e6f4456875a2d1a5fcc21898b2a11f6247e867ff4c729f1a6768df52c"
    assert fair.hand_commitment(seed) == "bd2a2f00480f12b258a836c1c6aa47247b9aeb182c2fb4e8868646e1efae1527"
    m = engine.new_match("rough", seed=KEY, client_seeds=SEEDS)
    assert m.dealer == fair.first_dealer(seed, 4) == 2  # ALL-2: drawn from hand 1's seed
    assert engine.view(m, 3)["hand"] and m.last_hand is None
    assert engine.deal_from_seed("rough", seed, 2) == {
        "hands": [
            ["5S", "KS", "AS", "5C", "AC", "JD", "8H", "9H"],
            ["TS", "JS", "QS", "5D", "7D", "9D", "KD", "TH"],
            ["8C", "KC", "8D", "QD", "AD", "JH", "KH", "AH"],
            ["7S", "9S", "7C", "9C", "TC", "QC", "TD", "5H"],
        ],
        "kitty": ["7H", "QH", "8S", "JC"],
    }


def test_a_whole_number_seed_is_a_public_key() -> None:
    """Tests, benches and the arena keep their int seeds: K = "atout-int-seed:" + decimal."""
    assert fair.key_of_int(12345) == b"atout-int-seed:12345"
    a = engine.new_match("rough", seed=12345)
    b = engine.new_match("rough", seed=fair.key_of_int(12345))
    assert engine.to_json(a) == engine.to_json(b)


def test_canonical_client_seeds_are_compact_utf8_json() -> None:
    assert fair.canonical_client_seeds(['a"b', "c\\d", "é"]) == '["a\\"b","c\\\\d","é"]'.encode()


# ----- the deal is the specified one (ALL-3) ------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_all_3_every_deal_is_the_seeded_shuffle_in_the_games_packets(game: str) -> None:
    """ALL-3 (and F5-3, RG-5, E5-3): the deck in its canonical order, shuffled by the hand seed,
    given out top first in the game's packets from the dealer's left."""
    g = engine.game(game)
    for n in range(20):
        key = hashlib.sha256(f"{game}{n}".encode()).digest()
        m = engine.new_match(game, seed=key)
        seed = fair.hand_seed_of(key, 1, [""] * g.players)
        order = fair.shuffle(g.deck, seed)
        hands, kitty = fair.deal_packets(order, g.deal_targets(m.dealer), g.players)
        assert m.dealt == [engine.cards.mask_of(h) for h in hands]
        assert list(m.kitty_dealt) == kitty


def test_client_seeds_change_the_deal() -> None:
    plain = engine.new_match("five_hundred", seed=KEY)
    mixed = engine.new_match("five_hundred", seed=KEY, client_seeds=["", "", "", "x"])
    assert plain.dealt != mixed.dealt


def test_shuffle_is_uniform_enough() -> None:
    """Bounded sanity: 6,000 shuffles of 3 cards hit each of the 6 orders about 1,000 times (the bound
    is 7 standard deviations), and each card of a 36-card deck lands in the top packet about as often."""
    counts = Counter(tuple(fair.shuffle("abc", i.to_bytes(4, "big"))) for i in range(6000))
    assert len(counts) == 6 and all(800 < c < 1200 for c in counts.values())
    deck = list(range(36))
    top = Counter(c for i in range(3600) for c in fair.shuffle(deck, b"u" + i.to_bytes(4, "big"))[:4])
    assert len(top) == 36 and all(250 < c < 550 for c in top.values())  # mean 400, sd about 19


# ----- commit and reveal ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_each_hand_is_committed_before_its_deal_and_revealed_after_its_score(game: str) -> None:
    m, events = play_out(engine.new_match(game, seed=7, options=_short(game)), random.Random(3))
    kinds = [e["type"] for e in events]
    hands = kinds.count("hand_started")
    assert hands >= 1 and kinds.count("hand_commitment") == hands and kinds.count("hand_seed") == hands
    commitments = {}
    for i, e in enumerate(events):
        if e["type"] == "hand_commitment":
            assert events[i + 1]["type"] == "hand_started", "the commitment comes before the deal"
            commitments[e["hand"]] = e["commitment"]
        if e["type"] == "hand_seed":
            assert events[i - 1]["type"] == "hand_scored"
            assert hashlib.sha256(bytes.fromhex(e["seed"])).hexdigest() == commitments[e["hand"]]
    assert events[-1] == {"type": "match_key", "key": m.key.hex(), "commitment": engine.match_commitment(m)}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("match", range(6))
def test_all_7_nothing_shows_the_key_or_the_seed_of_a_hand_not_yet_over(game: str, match: int) -> None:
    """ALL-7: a hand's deal becomes public when the hand is over, so its seed (which re-derives every
    card of it) may be revealed then and not a moment before; the key (every hand) only at the end.
    From the deal of random matches and after each action, neither any view nor the events that
    action caused may hold the key, or the server share or seed of the hand in progress or the next."""
    key = hashlib.sha256(f"{game}:{match}".encode()).digest()
    players = int(engine.games()[game]["players"])
    m = engine.new_match(game, seed=key, options=_short(game), client_seeds=[f"c{i}" for i in range(players)])
    rng = random.Random(match)
    revealed = 0

    def check(m: engine.Match) -> None:
        secret = [key.hex()] + [
            s
            for n in (m.hand_number, m.hand_number + 1)
            for s in (fair.server_part(key, n).hex(), fair.hand_seed_of(key, n, m.client_seeds).hex())
        ]
        shown = [json.dumps(m.events)] + [
            json.dumps(engine.view(m, seat)) for seat in [None, *range(players)]
        ]
        assert not any(s in text for s in secret for text in shown), f"hand {m.hand_number}"

    check(m)
    for _ in range(2000):
        if m.over:
            break
        assert m.to_act is not None
        m = engine.apply(m, m.to_act, engine.random_move(m, rng))
        for e in m.events:  # what is revealed is what the check forbids before its time
            if e["type"] == "hand_seed":
                revealed += 1
                assert e["seed"] == fair.hand_seed_of(key, e["hand"], m.client_seeds).hex()
        if not m.over:  # once over, the last hand's seed and the key are public
            check(m)
    assert m.over and revealed >= 1


# ----- verify_log --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_played_match_verifies(game: str, played: dict[str, dict[str, Any]]) -> None:
    assert engine.verify_log(played[game]) == []


def test_a_card_moved_between_hands_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["rough"])
    hand = log["hands"][0]["hands"]
    hand[1].append(hand[0].pop())
    problems = engine.verify_log(log)
    assert problems and "hand 1: seat 0 was dealt" in problems[0]


def test_a_kitty_card_swapped_with_a_hand_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["euchre5"])
    rec = log["hands"][-1]
    rec["hands"][2][0], rec["kitty"][0] = rec["kitty"][0], rec["hands"][2][0]
    assert engine.verify_log(log)


def test_a_changed_seed_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["five_hundred"])
    rec = log["hands"][-1]
    rec["seed"] = hashlib.sha256(b"another seed").hexdigest()
    assert "the seed is not SHA-256" in engine.verify_log(log)[0]


def test_a_changed_hand_commitment_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["rough"])
    log["hands"][0]["commitment"] = "00" * 32
    assert "commitment is not SHA-256 of the revealed seed" in engine.verify_log(log)[0]


def test_a_changed_match_key_or_commitment_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["rough"])
    log["commitment"] = "11" * 32
    assert engine.verify_log(log) == ["the match commitment is not SHA-256 of the revealed key"]
    log = copy.deepcopy(played["rough"])
    log["key"] = "22" * 32
    log["commitment"] = hashlib.sha256(bytes.fromhex(log["key"])).hexdigest()
    assert "server part" in engine.verify_log(log)[0]


def test_a_changed_client_seed_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["rough"])
    log["client_seeds"][2] = "someone else"
    assert engine.verify_log(log)


def test_all_2_a_dealer_out_of_turn_fails(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["five_hundred"])
    rec = log["hands"][0]
    rec["dealer"] = (rec["dealer"] + 1) % 4
    assert engine.verify_log(log)


def test_verify_deal_checks_one_hand(played: dict[str, dict[str, Any]]) -> None:
    log = played["rough"]
    rec = log["hands"][0]
    assert engine.verify_deal("rough", rec, log["client_seeds"], log["key"]) == []
    assert engine.verify_deal("rough", {**rec, "kitty": rec["kitty"][::-1]}, log["client_seeds"])


# ----- explicit deals and the waiting match ----------------------------------------------------------


def test_an_explicit_deal_is_not_seeded() -> None:
    """ALL-3: an explicit deal (administrator only) has no commitment; verify_log says so."""
    ref = engine.new_match("euchre5", seed=2)
    explicit = {
        "dealer": 0,
        "hands": [engine.cards.codes_of(h) for h in ref.dealt],
        "kitty": [engine.cards.CODES[c] for c in ref.kitty_dealt],
    }
    m = engine.new_match("euchre5", seed=KEY, deal=explicit, options=_short("euchre5"))
    assert "hand_commitment" not in [e["type"] for e in m.events]
    m, events = play_out(m, random.Random(1))
    log = log_of(m, events)
    assert log["hands"][0]["seeded"] is False and log["hands"][0]["commitment"] is None
    problems = engine.verify_log(log)
    assert problems[0] == "hand 1: dealt explicitly by the administrator, not from a seed"
    assert problems[1:] == []


def test_all_3_a_hand_marked_unseeded_must_be_the_logs_explicit_first_deal(
    played: dict[str, dict[str, Any]],
) -> None:
    """ALL-3: only a match's first hand can be an explicit deal, and it is checked against no seed, so
    a log contradicting that mark (issue 19: a log says one thing once) is refused, not excused."""
    explicit = {
        "dealer": 1,
        "hands": [engine.cards.codes_of(h) for h in engine.new_match("rough", seed=2).dealt],
        "kitty": [engine.cards.CODES[c] for c in engine.new_match("rough", seed=2).kitty_dealt],
    }
    m, events = play_out(engine.new_match("rough", seed=KEY, deal=explicit), random.Random(3))
    log = {**log_of(m, events), "deal": explicit}
    note = "hand 1: dealt explicitly by the administrator, not from a seed"
    assert engine.verify_log(log) == [note]
    assert engine.verify_log({**log, "deal": None}) == [
        "hand 1: marked unseeded, but the log gives no explicit deal (`deal` is null)"
    ]
    redealt = copy.deepcopy(log)
    redealt["hands"][0]["dealer"] = 2
    assert engine.verify_log(redealt)[0] == "hand 1: dealer 2, but the log's explicit deal has dealer 1"
    turned = copy.deepcopy(log)
    turned["hands"][0]["kitty"].reverse()
    assert engine.verify_log(turned)[0].startswith("hand 1: the kitty was ")
    assert engine.verify_log({**log, "deal": {"dealer": 1}})[0].startswith("malformed log (explicit deal: ")
    early = engine.new_match("rough", seed=KEY, deal=explicit)  # the administrator's look before a score
    unscored = {**log_of(early, early.events), "key": early.key.hex(), "deal": explicit}
    assert unscored["hands"][0]["hands"] is None and engine.verify_log(unscored) == [note]

    seeded = copy.deepcopy(played["rough"])
    seeded["hands"][0]["seeded"] = False  # its commitment and seed still there
    assert engine.verify_log(seeded)[0].startswith("hand 1: marked unseeded, yet it shows a seeded hand's ")
    assert engine.verify_log({**played["rough"], "deal": explicit})[0].startswith("hand 1: marked seeded")


def test_all_3_no_later_hand_is_an_explicit_deal(played: dict[str, dict[str, Any]]) -> None:
    log = copy.deepcopy(played["euchre5"])
    assert len(log["hands"]) >= 2
    log["hands"][1].update(seeded=False, commitment=None, server_part=None, seed=None)
    assert engine.verify_log(log) == [
        "hand 2: marked unseeded, but only a match's first hand can be an explicit deal (ALL-3)"
    ]


# ----- the deprecated seed says the key again, or the log is refused (issue 19) ----------------------


def test_a_hex_seed_must_be_the_key_whatever_its_case(played: dict[str, dict[str, Any]]) -> None:
    log = played["rough"]
    assert engine.verify_log({**log, "seed": log["key"]}) == []
    assert engine.verify_log({**log, "seed": log["key"].upper()}) == []
    problems = engine.verify_log({**log, "seed": "22" * 32})
    assert len(problems) == 1 and problems[0].startswith("the log's seed and key disagree (seed 2222")


def test_a_whole_number_seed_must_give_the_key() -> None:
    """docs/fairness.md, "Seeds chosen by the administrator": seed s means K = key_of_int(s)."""
    m, events = play_out(engine.new_match("euchre5", seed=12345, options=_short("euchre5")), random.Random(4))
    log = log_of(m, events)
    assert engine.verify_log({**log, "seed": 12345}) == []
    problems = engine.verify_log({**log, "seed": 54321})
    assert problems[0].startswith("the log's seed and key disagree (seed 54321 gives the key ")
    assert engine.verify_log({**log, "seed": True})[0].startswith("malformed log (seed must be ")


@pytest.mark.parametrize("game", GAMES)
def test_a_waiting_match_shows_no_hand_to_anyone(game: str) -> None:
    w = engine.new_match(game, seed=KEY, wait=True)
    assert w.phase == "waiting" and w.to_act is None and w.events == []
    assert engine.legal_actions(w, 0) == []
    for seat in [None, *range(w.players)]:
        v = engine.view(w, seat)
        assert v["hand"] == [] and v["hand_sizes"] == [0] * w.players and v["phase"] == "waiting"


def test_a_waiting_match_deals_nothing_until_it_starts() -> None:
    w = engine.new_match("rough", seed=KEY, wait=True)
    with pytest.raises(engine.IllegalAction) as refused:
        engine.apply(w, 0, {"type": "pass"})
    assert refused.value.code == "not_started"
    started = engine.start(engine.from_json(engine.to_json(w)), SEEDS)
    assert engine.to_json(started) == engine.to_json(engine.new_match("rough", seed=KEY, client_seeds=SEEDS))
    assert [e["type"] for e in started.events][:2] == ["hand_commitment", "hand_started"]
    with pytest.raises(engine.IllegalAction):
        engine.start(started, SEEDS)


def test_the_key_and_client_seeds_survive_json() -> None:
    m = engine.new_match("five_hundred", seed=KEY, client_seeds=["a", "b", "c", "d"])
    back = engine.from_json(engine.to_json(m))
    assert back.key == KEY and back.client_seeds == ("a", "b", "c", "d") and back.seeded
    assert engine.revealed_key(m) is None
