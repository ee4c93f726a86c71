"""docs/rules.md says what the engine does: its decks, score table and options, read from the page.

The rule tests (``test_rules_*.py``) check the engine against the rules as their authors
read them; these read the numbers straight from ``docs/rules.md``, so a page edited without
the engine (or the reverse) fails here: a client author sizing a table or an operator
choosing options reads the page, not the code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scenarios import PASS, bid, deal, discard, finish_hand, run

import engine

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
SECTION = re.compile(r"^## .*\(game id `(\w+)`\) — (\w+)$", re.MULTILINE)
RULE = re.compile(r"^- \*\*([A-Z][A-Z0-9]*-\d+)\*\*(.*?)(?=^- \*\*|^## |\Z)", re.MULTILINE | re.DOTALL)
OPTION = re.compile(r"\*\*\[option\]\*\* `(\w+)`: ([^;.]+)")
VALUE = re.compile(r"\b(\d+|true|false)\b")


def rule_texts() -> dict[str, str]:
    """Each rule's text, by id, its lines joined."""
    text = RULES.read_text(encoding="utf-8")
    return {m.group(1): " ".join(m.group(2).split()) for m in RULE.finditer(text)}


def game_prefixes() -> dict[str, str]:
    """Game id by rule prefix, from the section headings (``F5`` -> ``five_hundred``)."""
    return {prefix: game_id for game_id, prefix in SECTION.findall(RULES.read_text(encoding="utf-8"))}


def parse_value(word: str) -> object:
    return word == "true" if word in ("true", "false") else int(word)


def documented_options() -> dict[tuple[str, str], tuple[str, object, str, set[object]]]:
    """(game id, option name) -> (rule id, default, its type, allowed values), as the page states them."""
    games = game_prefixes()
    out: dict[tuple[str, str], tuple[str, object, str, set[object]]] = {}
    for rule, text in rule_texts().items():
        for name, values in OPTION.findall(text):
            default = re.search(r"\b(\d+|true|false) \(default\)", values)
            assert default is not None, f"{rule} {name}: no (default) value"
            game_id = games[rule.rsplit("-", 1)[0]]
            allowed = {parse_value(v) for v in VALUE.findall(values)}
            value = parse_value(default.group(1))
            out[game_id, name] = (rule, value, type(value).__name__, allowed)
    return out


def test_the_page_has_a_section_per_game() -> None:
    assert game_prefixes() == {"F5": "five_hundred", "RG": "rough", "E5": "euchre5"}
    assert set(game_prefixes().values()) == set(engine.games())


def test_every_option_on_the_page_is_the_engines_and_the_reverse() -> None:
    """F5-8, F5-13, F5-14, RG-7, RG-15, RG-16, E5-11, E5-12 [option]: the rule that states each
    option, its default and its accepted values are what the engine (and GET /v1/rules) uses."""
    documented = documented_options()
    offered = {
        (game_id, name): (spec["rule"], spec["default"], type(spec["default"]).__name__, set(spec["allowed"]))
        for game_id, g in engine.games().items()
        for name, spec in g["options"].items()
    }
    assert documented == offered
    assert {rule for rule, *_ in documented.values()} == {
        "F5-8", "F5-13", "F5-14", "RG-7", "RG-15", "RG-16", "E5-11", "E5-12",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "game_id"), [("F5-1", "five_hundred"), ("RG-1", "rough"), ("E5-1", "euchre5")]
)
def test_f5_1_rg_1_e5_1_the_documented_deck_is_the_engines(rule: str, game_id: str) -> None:
    """F5-1, RG-1, E5-1: the card count and the ranks of each suit the page gives."""
    text = rule_texts()[rule]
    m = re.search(r"The deck has (\d+) cards: ([AKQJT0-9 ]+) in each of the four suits", text)
    assert m is not None, text
    ranks = m.group(2).split()
    expected = [r + s for s in "SCDH" for r in ranks]
    if "both jokers" in text:
        expected += ["BJ", "RJ"]
    deck = engine.games()[game_id]["deck"]
    assert len(deck) == int(m.group(1))
    assert sorted(deck) == sorted(expected)


@pytest.mark.parametrize(
    ("rule", "game_id"), [("F5-3", "five_hundred"), ("RG-5", "rough"), ("E5-3", "euchre5")]
)
def test_f5_3_rg_5_e5_3_the_documented_hand_and_kitty_sizes_are_dealt(rule: str, game_id: str) -> None:
    """F5-3, RG-5, E5-3: every seat is dealt the page's hand size and the kitty gets the rest."""
    text = rule_texts()[rule]
    hand = re.search(r"Each player gets (\d+) cards", text)
    kitty = re.search(r"(\d+) go to the kitty|The top card of the (\d+) left over", text)
    assert hand is not None and kitty is not None, text
    for seed in range(5):
        m = engine.new_match(game_id, seed=seed)
        assert [h.bit_count() for h in m.dealt] == [int(hand.group(1))] * m.players
        assert len(m.kitty_dealt) == int(kitty.group(1) or kitty.group(2))


def documented_table() -> dict[tuple[int, str], int]:
    """The F5-12 table: (tricks, denomination) -> value."""
    text = RULES.read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\| (\d+)\s+\|((?:\s*\d+\s*\|){5})\s*$", text, re.MULTILINE)
    table = {}
    for tricks, cells in rows:
        for suit, value in zip(("S", "C", "D", "H", "NT"), cells.strip(" |").split("|"), strict=True):
            table[int(tricks), suit] = int(value)
    return table


def sure_hand(suit: str) -> list[str]:
    """Ten cards that win every trick in ``suit``: the top ten trumps (F5-4), or at no trump the
    two jokers and the eight top spades (F5-6)."""
    if suit == "NT":
        return ["BJ", "RJ", "AS", "KS", "QS", "JS", "TS", "9S", "8S", "7S"]
    compere = {"S": "C", "C": "S", "D": "H", "H": "D"}[suit]
    return ["BJ", "RJ", "J" + suit, "J" + compere, *(r + suit for r in "AKQT98")]


def test_f5_12_the_documented_table_is_what_a_made_contract_scores() -> None:
    """F5-12: every cell of the page's table, 6 to 10 tricks in each denomination, is the score a
    made contract earns (bid with ``min_bid_level`` 6, played out by a hand that wins all ten)."""
    table = documented_table()
    assert sorted({t for t, _ in table}) == [6, 7, 8, 9, 10]
    for (tricks, suit), value in sorted(table.items()):
        hand = sure_hand(suit)
        d = deal("five_hundred", 3, {0: hand})
        m = engine.new_match("five_hundred", seed=0, options={"min_bid_level": 6}, deal=d)
        m = run(m, bid(tricks, suit), PASS, PASS, PASS, discard(*d["kitty"]))
        assert engine.view(m, 1)["contract"]["value"] == value, (tricks, suit)
        m = finish_hand(m)
        assert m.last_hand is not None
        assert m.last_hand["tricks_taken"] == [10, 0], (tricks, suit)
        assert m.scores == [value, 0], (tricks, suit)
