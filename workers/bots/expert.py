"""The ``expert`` level: determinized Monte Carlo search over deals consistent with the view.

For each sampled deal (``engine.determinize.sample_match``: the seat's own cards, every
card played, voids shown, the euchre upcard and called card, docs/rules.md ALL-7) every
candidate action is applied to a copy and the hand is played out to its end by the
heuristic policy for all seats (each seeing only its own cards, ``common.from_match``).
A candidate is scored by the hand's points of the seat's side minus the other side's
(F5-12/13, RG-12/13, E5-10/11; in euchre, the seat's points minus the others' mean), plus
a match-sized swing when the hand ends the match (RG-14, F5-14, E5-12). Every candidate
sees the same deals, so their difference is not noise from the deals; the heuristic's own
choice stands unless another is better by a significant margin, and a candidate clearly
behind the best so far stops being played out, leaving the budget to the close ones (a Le
500 bid is weighed in every denomination, F5-8, most of them dropped after a dozen
deals). Deals that do not fit the auction (the other seats would not have bid so with
those hands, by the heuristic's judgement) are drawn again a few times.

Within ``budget_s`` seconds (default 1 s), or exactly ``playouts`` sampled deals when that
is given, which makes the choice deterministic for a given ``rng`` seed. Combinatorial
choices are not enumerated: a discard (F5-10, RG-10) is chosen among the heuristic's set
and a few variations of it.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

import engine
from engine import actions as act
from engine.cards import BIT, CODES, cards_of, codes_of, mask_of, suit_of
from engine.determinize import sample_match

from . import heuristic
from .heuristic import euchre5 as h_euchre
from .heuristic import five_hundred as h_500
from .heuristic import rough as h_rough
from .seen import Seen, from_view, parse_legal, value

JSON = dict[str, Any]
MAX_DISCARD_VARIANTS = 6
MARGIN = 1.0
"""Standard errors by which an alternative must beat the heuristic's choice to be played."""
INFERENCE_TRIES = 8
"""Deals drawn at most to find one that fits the auction (``consistent``)."""
AUCTION = frozenset({"bidding", "order", "name"})
MIN_DEALS = 4
"""Fewer sampled deals than this say too little: the heuristic's choice stands."""
BID_LEVELS = 2
"""Le 500: bid levels (8, 9, 10 tricks, F5-8) tried in the hand's two best denominations."""
PRUNE_AT = 12
"""Sampled deals before the first look for candidates to drop (``prune``)."""
PRUNE_SE = 2.5
"""Standard errors by which a candidate must trail the leader to be dropped."""


def choose(
    view: JSON, legal: list[JSON], rng: random.Random, budget_s: float = 1.0, playouts: int | None = None
) -> JSON:
    """The best candidate over sampled deals (``playouts`` of them, else as many as ``budget_s`` allows)."""
    moves = parse_legal(legal)
    if len(moves) == 1 and not isinstance(moves[0], act.DiscardTemplate):
        return moves[0].to_json()
    s = from_view(view)
    candidates = candidate_actions(s, moves, rng)
    if len(candidates) == 1:
        return candidates[0].to_json()
    return search(view, s.seat, candidates, rng, budget_s, playouts).to_json()


def search(
    view: JSON,
    seat: int,
    candidates: list[act.Action],
    rng: random.Random,
    budget_s: float,
    playouts: int | None,
) -> act.Action:
    """Each candidate still in the running played out on the same sampled deals.

    Candidates clearly worse than the leader (``PRUNE_SE`` standard errors of the paired
    difference, checked after ``PRUNE_AT`` deals and then at growing intervals) stop being
    played out, so the budget goes to the ones that could still be chosen."""
    results: list[list[float]] = [[] for _ in candidates]
    alive = list(range(len(candidates)))
    deadline = time.perf_counter() + budget_s
    done, next_prune = 0, PRUNE_AT
    while True:
        if playouts is not None:
            if done >= playouts:
                break
        elif done and time.perf_counter() >= deadline:
            break
        world = sample_match(view, rng)
        for _ in range(INFERENCE_TRIES):
            if consistent(world, seat):
                break
            world = sample_match(view, rng)
        for k in alive:
            m = world.copy()
            engine.push(m, seat, candidates[k])
            results[k].append(rollout(m, seat))
        done += 1
        if done >= next_prune and len(alive) > 1:
            alive = prune(results, alive)
            next_prune = done + max(PRUNE_AT // 2, done // 2)
    return candidates[pick(results, alive)]


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over the deals both were played on."""
    n = min(len(a), len(b))
    diffs = [a[i] - b[i] for i in range(n)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def prune(results: list[list[float]], alive: list[int]) -> list[int]:
    """The candidates not clearly worse than the one with the best mean so far."""
    leader = max(alive, key=lambda k: _mean(results[k]))
    out = []
    for k in alive:
        mean, se = paired(results[leader], results[k])
        if k == leader or mean <= PRUNE_SE * se:
            out.append(k)
    return out


def pick(results: list[list[float]], alive: list[int] | None = None) -> int:
    """Index of the candidate to play among ``alive`` (default: all).

    The heuristic's choice (candidate 0), or if it was pruned the best survivor, stands
    unless another beats it by more than ``MARGIN`` standard errors of the paired
    difference, so that a handful of lucky deals does not overturn a sound default."""
    alive = list(range(len(results))) if alive is None else alive
    if len(results[alive[0]]) < MIN_DEALS:
        return 0
    base = 0 if 0 in alive else max(alive, key=lambda k: _mean(results[k]))
    best, best_mean = base, 0.0
    for k in alive:
        if k == base:
            continue
        mean, se = paired(results[k], results[base])
        if mean > best_mean and mean > MARGIN * se:
            best, best_mean = k, mean
    return best


def consistent(world: engine.Match, seat: int) -> bool:
    """Would the other seats, holding the sampled hands, have bid as they did (heuristic model)?

    The auction says something about the hidden hands (a pass is a weak hand, a bid in
    hearts holds hearts, F5-8, RG-6, E5-5, E5-6); deals where the heuristic would have bid
    otherwise are drawn again, a few times, so the search looks mostly at deals that fit.
    """
    others = [(s, a) for s, a in world.bids if s != seat]
    if not others:
        return True
    deal = {
        "dealer": world.dealer,
        "hands": [codes_of(h) for h in world.dealt],
        "kitty": [CODES[c] for c in world.kitty_dealt],
    }
    m = engine.new_match(world.game, options=world.options, deal=deal)
    m.scores = world.scores[:]  # RG-9: the box rule depends on the score
    for s, action in world.bids:
        if m.phase not in AUCTION:
            break
        if s != seat and heuristic.decide_match(m) != action:
            return False
        engine.push(m, s, action)
    return True


def rollout(m: engine.Match, seat: int) -> float:
    """Play the hand out with the heuristic for every seat; the result for ``seat``'s side."""
    hand = m.hand_number
    push, decide = engine.push, heuristic.decide_match
    while m.to_act is not None and m.hand_number == hand:
        push(m, m.to_act, decide(m))
    return utility(m, seat)


def utility(m: engine.Match, seat: int) -> float:
    """The finished hand's points for ``seat``'s side minus the others' (a swing if the match ended)."""
    prev = m.prev
    assert prev is not None
    points: list[int] = prev.result.get("points") or [0] * len(m.scores)
    if m.game == "euchre5":
        mine = points[seat]
        others = (sum(points) - mine) / (len(points) - 1)
        out = float(mine - others)
    else:
        team = seat % 2
        out = float(points[team] - points[1 - team])
    if m.winners is not None:
        swing = float(m.options["target_score"])
        out += swing if seat in m.winners else -swing
    return out


# ----- candidates ------------------------------------------------------------------------------


def candidate_actions(s: Seen, moves: list[engine.Move], rng: random.Random) -> list[act.Action]:
    """The heuristic's choice first (it wins ties), then the alternatives worth a look."""
    first = heuristic.decide(s, moves)
    out: list[act.Action] = [first]

    def add(a: act.Action) -> None:
        if a not in out:
            out.append(a)

    template = next((a for a in moves if isinstance(a, act.DiscardTemplate)), None)
    if template is not None:
        for d in discard_variants(s, template, first, rng):
            add(d)
        return out
    if s.phase == "bidding":
        for a in bid_candidates(s, moves):
            add(a)
        return out
    if s.phase == "call":
        for a in call_candidates(s, moves):
            add(a)
        return out
    if s.phase == "play" and s.table is None and s.game == "rough":
        for move in moves:
            if isinstance(move, act.Play) and not move.no_trump:
                add(move)
        assert isinstance(first, act.Play)
        add(act.PLAY_NO_TRUMP[first.card])
        return out
    plays = [move for move in moves if isinstance(move, act.Play)]
    if plays and len(plays) == len(moves) and s.table is not None:
        for play in distinct_plays(s, plays):
            add(play)
        return out
    for move in moves:
        assert not isinstance(move, act.DiscardTemplate)
        add(move)
    return out


def distinct_plays(s: Seen, plays: list[act.Play]) -> list[act.Play]:
    """One card of each run of equivalent cards: same effective suit (ALL-5), no card left
    out or on the table between them, and (Le Rough) the same card points (RG-4). Fewer
    candidates means more sampled deals for each within the budget."""
    table = s.table
    assert table is not None
    separators = s.unseen() | mask_of(s.trick)
    by_suit: dict[int, list[int]] = {}
    for p in plays:
        by_suit.setdefault(table.suit[p.card], []).append(p.card)
    out: list[act.Play] = []
    for su, cards in by_suit.items():
        keys = table.win_key[su]
        cards.sort(key=lambda c: keys[c])
        between = sorted(keys[x] for x in cards_of(separators & table.follow[su]))
        prev: int | None = None
        for c in cards:
            if prev is not None and value(s, prev) == value(s, c):
                lo, hi = keys[prev], keys[c]
                if not any(lo < k < hi for k in between):
                    prev = c
                    continue
            out.append(act.PLAY[c])
            prev = c
    return out


def bid_candidates(s: Seen, moves: list[engine.Move]) -> list[act.Action]:
    """Pass, and the cheapest legal bids of the denominations (or values) the hand could hold:
    Le 500, the cheapest bid in every denomination and the next levels in the two the hand
    is best in (``prune`` drops the hopeless ones after a few deals)."""
    out: list[act.Action] = [act.PASS] if act.PASS in moves else []
    if s.game == "five_hundred":
        ranked = sorted(range(5), key=lambda d: -h_500.estimate(s.hand, d))
        for i, d in enumerate(ranked):
            tricks: list[act.TrickBid] = [
                a for a in moves if isinstance(a, act.TrickBid) and a.denomination == d
            ]
            tricks.sort(key=lambda a: a.rank)
            out += tricks[: BID_LEVELS if i < 2 else 1]
        return out
    keep = [a for a in moves if isinstance(a, act.Keep)]
    out += keep
    bids: list[act.PointBid] = [a for a in moves if isinstance(a, act.PointBid)]
    bids.sort(key=lambda a: a.points)
    est = h_rough.estimate(s.hand)
    near = [a for a in bids if a.points <= est + 10 and a.points < 100]
    out += near[:1] + near[-2:]
    return out


def call_candidates(s: Seen, moves: list[engine.Move]) -> list[act.Action]:
    """Euchre (E5-7): the best trumps not held, the side aces not held, and going alone."""
    assert s.trump is not None
    trump = s.trump
    wanted = [c for c in h_euchre.call_order(trump) if not s.hand & BIT[c]][:3]
    wanted += [c for c in cards_of(s.deck) if c % 11 == 10 and suit_of(c) != trump and not s.hand & BIT[c]]
    out: list[act.Action] = [act.CALL[c] for c in wanted if act.CALL[c] in moves]
    out.append(act.GO_ALONE)
    return out


def discard_variants(
    s: Seen, template: act.DiscardTemplate, first: act.Action, rng: random.Random
) -> list[act.Action]:
    """The heuristic discard for other trump choices, and one-card swaps of the heuristic's set."""
    out: list[act.Action] = []
    if s.game == "rough":
        for trump in range(4):
            out.append(h_rough.discard(s, template, trump))
    if s.game == "euchre5" or not isinstance(first, act.Discard):
        return out
    thrown = cards_of(first.cards)
    kept = cards_of(template.cards & ~first.cards)
    for _ in range(MAX_DISCARD_VARIANTS * 3):
        if len(out) >= MAX_DISCARD_VARIANTS:
            break
        a, b = rng.choice(thrown), rng.choice(kept)
        variant = act.Discard(first.cards ^ BIT[a] ^ BIT[b])
        if variant not in out:
            out.append(variant)
    return out
