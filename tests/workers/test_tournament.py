"""Tournaments' pure parts (``workers.tournament``) and the local tournament of ``atout arena``.

The pairing properties are checked for every entrant count a tournament accepts; the keys
against the fairness spec's commitment (SHA-256 of the match key); the scoring on outcomes
made by hand, where the right answer is known.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import struct
from itertools import combinations

import pytest

import engine
from service.runtime.cli import main
from workers import arena
from workers import tournament as t

ALL = list(range(2, t.MAX_ENTRANTS + 1))


@pytest.mark.parametrize("n", ALL)
def test_a_round_robin_meets_everyone_once_and_nobody_twice_a_round(n: int) -> None:
    rounds = t.check("rough", "round_robin", n, None, 1)
    assert rounds == (n - 1 if n % 2 == 0 else n)
    met: list[frozenset[int]] = []
    firsts = dict.fromkeys(range(n), 0)
    for r in range(1, rounds + 1):
        pairs = t.round_robin(n, r)
        seated = [e for p in pairs for e in (p.a, p.b)]
        assert len(seated) == len(set(seated))
        assert len(pairs) == n // 2
        assert [p.table for p in pairs] == list(range(len(pairs)))
        met += [frozenset((p.a, p.b)) for p in pairs]
        for p in pairs:
            firsts[p.a] += 1
    assert sorted(met, key=sorted) == sorted((frozenset(c) for c in combinations(range(n), 2)), key=sorted)
    with pytest.raises(t.TournamentError):
        t.round_robin(n, rounds + 1)


def test_swiss_pairs_the_leaders_together_avoids_rematches_and_gives_the_bye_to_the_last() -> None:
    pairs, bye = t.swiss(4, 1, {}, [])
    assert [(p.a, p.b) for p in pairs] == [(0, 1), (2, 3)] and bye is None
    pairs, bye = t.swiss(4, 2, {0: 1, 1: 0, 2: 1, 3: 0}, [(0, 1), (2, 3)])
    assert [(p.a, p.b) for p in pairs] == [(0, 2), (1, 3)]
    pairs, bye = t.swiss(5, 2, {0: 2, 1: 1, 2: 1, 3: 0, 4: 0}, [(0, 1)], byes=[4])
    assert bye == 3
    assert [(p.a, p.b) for p in pairs] == [(0, 2), (1, 4)]
    # Everyone met: the next one anyway, never a refusal.
    pairs, _ = t.swiss(2, 2, {}, [(0, 1)])
    assert [(p.a, p.b) for p in pairs] == [(0, 1)]


@pytest.mark.parametrize("n", [6, 7, 40])
def test_a_swiss_run_of_results_never_seats_an_entrant_twice(n: int) -> None:
    rounds = t.check("five_hundred", "swiss", n, 5, 1)
    met: list[tuple[int, int]] = []
    byes: list[int] = []
    points = dict.fromkeys(range(n), 0.0)
    for r in range(1, rounds + 1):
        pairs, bye = t.swiss(n, r, points, met, byes)
        seated = [e for p in pairs for e in (p.a, p.b)] + ([bye] if bye is not None else [])
        assert sorted(seated) == list(range(n))
        assert all(frozenset((p.a, p.b)) not in {frozenset(m) for m in met} for p in pairs)
        if bye is not None:
            assert bye not in byes
            byes.append(bye)
        for p in pairs:
            met.append((p.a, p.b))
            points[min(p.a, p.b)] += 1  # the lower number always wins


@pytest.mark.parametrize(
    ("game", "fmt", "n", "rounds", "deals", "says"),
    [
        ("euchre5", "round_robin", 4, None, 1, "five_hundred and rough only"),
        ("rough", "knockout", 4, None, 1, "unknown format"),
        ("rough", "round_robin", 1, None, 1, "2 to 64 entrants"),
        ("rough", "round_robin", 65, None, 1, "2 to 64 entrants"),
        ("rough", "round_robin", 4, 2, 1, "has 3 rounds, not 2"),
        ("rough", "swiss", 4, None, 1, "1 to 3 rounds"),
        ("rough", "swiss", 4, 4, 1, "1 to 3 rounds"),
        ("rough", "swiss", 4, 2, 0, "1 to 16 duplicate deals"),
        ("rough", "swiss", 4, 2, 17, "1 to 16 duplicate deals"),
    ],
)
def test_a_tournament_that_cannot_be_played_is_refused(
    game: str, fmt: str, n: int, rounds: int | None, deals: int, says: str
) -> None:
    with pytest.raises(t.TournamentError, match=says):
        t.check(game, fmt, n, rounds, deals)


def test_every_games_key_follows_from_the_committed_tournament_key() -> None:
    key = t.key_of_int(7)
    published = t.commitment(key)
    assert published == hashlib.sha256(key).hexdigest()
    p = t.Pairing(3, 1, 5, 2)
    specs = t.games(key, p, 2)
    assert [(s.deal, s.seating) for s in specs] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # Both seatings of a deal share the key (the same hands); the two deals do not.
    assert specs[0].key == specs[1].key != specs[2].key == specs[3].key
    label = b"atout-tournament/v1" + struct.pack(">III", 3, 1, 1)
    assert specs[2].key == hmac.new(key, label, hashlib.sha256).digest()  # the docstring's formula
    assert specs[0].seats_of(5) == (0, 2) and specs[0].seats_of(2) == (1, 3)
    assert specs[1].seats_of(5) == (1, 3) and specs[1].seats_of(2) == (0, 2)
    m = engine.new_match("rough", seed=specs[2].key)
    game_commitment = engine.fair.match_commitment(specs[2].key)
    assert t.verify(key, published, 3, 1, 1, game_commitment)
    assert not t.verify(key, published, 3, 1, 0, game_commitment)  # another deal's game
    assert not t.verify(t.key_of_int(8), published, 3, 1, 1, game_commitment)  # not the committed key
    twin = engine.new_match("rough", seed=specs[3].key)
    assert (twin.hands, twin.kitty, twin.dealer) == (m.hands, m.kitty, m.dealer)
    assert len(t.new_key()) == 32 and t.new_key() != t.new_key()


def test_a_tournament_that_is_not_duplicate_gives_each_seating_its_own_key() -> None:
    """``duplicate=False``: no entrant holds the same cards twice (the module docstring's memory hole)."""
    key = t.key_of_int(7)
    published = t.commitment(key)
    p = t.Pairing(3, 1, 5, 2)
    specs = t.games(key, p, 2, duplicate=False)
    assert len({s.key for s in specs}) == 4
    label = b"atout-tournament/v1/seating" + struct.pack(">IIII", 3, 1, 1, 0)
    assert specs[2].key == hmac.new(key, label, hashlib.sha256).digest()  # the docstring's formula
    first, second = (engine.new_match("rough", seed=s.key) for s in specs[:2])
    assert first.hands != second.hands
    game_commitment = engine.fair.match_commitment(specs[3].key)
    assert t.verify(key, published, 3, 1, 1, game_commitment, seating=1)
    assert not t.verify(key, published, 3, 1, 1, game_commitment, seating=0)
    assert not t.verify(key, published, 3, 1, 1, game_commitment)  # not the duplicate derivation


def outcome(
    deal: int,
    seating: int,
    a: int,
    b: int,
    a_score: int,
    b_score: int,
    hands: int = 10,
    flagged: tuple[int, ...] = (),
) -> t.Outcome:
    winner: t.Winner = "a" if a_score > b_score else "b" if b_score > a_score else "tie"
    return t.Outcome(1, 0, deal, seating, a, b, a_score, b_score, hands, winner, flagged)


def test_points_are_score_differences_per_hand_averaged_over_both_seatings_of_a_deal() -> None:
    games = [
        outcome(0, 0, 0, 1, 300, 100),  # +20 a hand for 0
        outcome(0, 1, 0, 1, 200, 200, hands=5),  # 0 a hand
        outcome(1, 0, 0, 1, 100, 300, flagged=(0,)),  # -20
        outcome(1, 1, 0, 1, 400, 0, hands=20),  # +20
        outcome(2, 0, 0, 1, 400, 0),  # half a deal: not yet counted in points
    ]
    assert t.per_deal(games) == {0: [10.0, 0.0], 1: [-10.0, 0.0]}
    top, bottom = t.standings(2, games)
    assert (top.rank, top.entrant, top.games, top.deals) == (1, 0, 5, 2)
    assert top.points_per_deal == 5.0 and bottom.points_per_deal == -5.0
    half = 12.706 * math.sqrt(50) / math.sqrt(2)
    assert top.low == pytest.approx(5 - half) and top.high == pytest.approx(5 + half)
    assert (top.wins, bottom.wins) == (3.5, 1.5)
    assert (top.flagged_games, bottom.flagged_games) == (1, 0)
    h = t.head_to_head(games)
    assert h[(0, 1)].games == h[(1, 0)].games == 5
    assert h[(0, 1)].wins + h[(1, 0)].wins == 5
    assert h[(0, 1)].points_per_deal == -h[(1, 0)].points_per_deal
    assert t.swiss_points(2, games) == {0: 3.5, 1: 1.5}


def test_an_entrant_without_deals_has_no_interval_and_ties_rank_by_wins_then_entry() -> None:
    assert t.interval([]) == (0.0, -math.inf, math.inf)
    assert t.interval([3.0]) == (3.0, -math.inf, math.inf)
    rows = t.standings(3, [])
    assert [(s.rank, s.entrant, s.games) for s in rows] == [(1, 0, 0), (2, 1, 0), (3, 2, 0)]


def test_the_local_tournament_ranks_the_built_in_bots_by_strength() -> None:
    sides = [arena.Builtin("random"), arena.Builtin("heuristic"), arena.Builtin("random")]
    result = arena.run_tournament("rough", sides, deals=2, key=t.key_of_int(5), options={"target_score": 200})
    assert result.names == ["random#1", "heuristic", "random#2"]
    assert len(result.outcomes) == 3 * 2 * 2
    standings = result.standings()
    assert standings[0].entrant == 1 and standings[0].points_per_deal > 0
    data = result.to_json()
    assert data["commitment"] == t.commitment(t.key_of_int(5))
    assert data["standings"][0]["entrant"] == "heuristic"
    assert len(data["head_to_head"]) == 6
    again = arena.run_tournament("rough", sides, deals=2, key=t.key_of_int(5), options={"target_score": 200})
    assert again.outcomes == result.outcomes  # the key fixes every game


def test_a_local_swiss_tournament_gives_byes_and_pairs_each_round() -> None:
    sides = [arena.Builtin("random")] * 5
    result = arena.run_tournament(
        "rough", sides, "swiss", rounds=2, key=t.key_of_int(1), options={"target_score": 200}
    )
    assert len(result.byes) == 2 and len(set(result.byes)) == 2
    assert len(result.outcomes) == 2 * 2 * 2


def test_atout_arena_tournament_prints_standings_or_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "arena",
        "--game",
        "rough",
        "--tournament",
        "round_robin",
        "--entrants",
        "random,heuristic",
        "--target",
        "200",
        "--deals",
        "1",
        "--no-progress",
    ]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["entrant"] for s in data["standings"]] == ["heuristic", "random"]
    assert data["key"] == t.key_of_int(1).hex()
    assert main(argv) == 0
    assert "points/deal" in capsys.readouterr().out
    assert main([*argv[:2], "euchre5", *argv[3:]]) == 2
    assert "five_hundred and rough only" in capsys.readouterr().err
