"""A seat's observation as a fixed-size list of floats, and a policy's ids turned into an action.

What a learnt policy reads: computed from what the seat sees and nothing else (docs/rules.md
ALL-7). Two doors give the same numbers: :func:`observation` reads the view ``engine.view(match,
seat)`` returns, which is also the ``view`` of the API's answers (``GET /v1/games/{id}/view``, a bot
stream's ``your_turn``, a move's ``next_turn``), so a policy trained on the engine plays the live
service unchanged; :func:`observation_of_match` reads the engine's ``Match`` for one seat without
building the view (self-play at engine speed). Both fill the same :class:`Facts` (the seat's
knowledge as ints and card masks: from a match only what the seat may see is copied), and one
writer encodes it, so the two cannot drift apart (tests/workers/test_observe.py checks it over
random games, and that the hidden cards change nothing).

Seats are *relative*: index 0 of every per-seat field is the observing seat, 1 the seat on its
left (ALL-1), and so on; per-team fields are (own team, other team). Every field lies in [0, 1]
but the scores, which lie in [-1, 1]. :func:`describe` prints the fields of a game with their
offsets, :func:`layout` gives them as :class:`Field` records.

Standard library and engine only (no numpy), compiled with the bots by mypyc, so that a bot of
``workers.bots`` can play a small network in pure Python from a plain view (:func:`choose`);
``atout.learn.encoding`` wraps this module in numpy arrays for the learning frameworks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import engine
from engine.cards import BIT, CARD_OF, mask_of, suit_of
from engine.match import Match
from engine.tricks import TrumpTable

from .action_ids import (
    JSON,
    PICK,
    action_space,
    auction_id,
    discard_action,
    discard_count,
    legal_ids,
    legal_ids_of_match,
    picked_mask,
)
from .seen import ROUGH_POINTS, TABLE_500, TABLE_EUCHRE, TABLE_ROUGH, is_boss_among

PHASES: Final[dict[str, tuple[str, ...]]] = {
    "five_hundred": ("waiting", "bidding", "discard", "play", "over"),
    "rough": ("waiting", "bidding", "discard", "play", "over"),
    "euchre5": ("waiting", "order", "exchange", "name", "call", "play", "over"),
}
TRUMPS: Final = ("S", "C", "D", "H", "NT")
NT: Final = 4
"""Index of no trump in :data:`TRUMPS` (the trump field, Le 500's contract)."""


@dataclass(frozen=True)
class Field:
    """``size`` consecutive entries of the vector from ``start``: ``name`` and what they hold."""

    name: str
    start: int
    size: int
    doc: str


def _fields(game: str) -> list[tuple[str, int, str]]:
    g = engine.game(game)
    n, c = g.players, len(g.deck)
    auction = len(action_space(game).auction)
    out = [
        ("phase", len(PHASES[game]), "one-hot of the phase: " + ", ".join(PHASES[game])),
        ("my_turn", 1, "1 when the observing seat is to act"),
        ("dealer", n, "relative seat of the dealer, one-hot"),
        ("to_act", n, "relative seat to act, one-hot (zeros once the match is over)"),
        ("hand", c, "the seat's own cards (card order of the action space)"),
        ("picked", c, "cards picked so far for the seat's discard in progress"),
        ("my_discards", c, "the seat's own discards once made (F5-10, RG-10, E5-5)"),
    ]
    if g.kitty_to_taker:
        out.append(("kitty_taken", c, "the kitty's cards, to the taker who picked it up"))
    else:
        out += [
            ("upcard", c, "this hand's upcard, one-hot (E5-3)"),
            ("upcard_state", 4, "the upcard is face up / turned down / taken by the dealer / left (E5-5)"),
        ]
    out += [
        ("played_by", n * c, "per relative seat: the cards it played this hand (tricks and table)"),
        ("current_trick", n * c, "per relative seat: the card it has on the table now, one-hot"),
        ("trick_leader", n, "relative seat that led the trick on the table, one-hot (zeros: empty)"),
        ("hand_sizes", n, f"cards held by each relative seat / {g.hand_size + g.kitty_size}"),
        ("tricks_won", n, f"tricks taken this hand by each relative seat / {g.hand_size}"),
        ("auction", n * auction, "per relative seat: the auction actions it made (ids of its block)"),
        ("taker", n, "relative seat of the taker (euchre: the maker), one-hot"),
        ("trumps", c, "the seat's cards that are trump (once trump is known, during play)"),
        ("bosses", c, "the seat's cards that are the highest left of their effective suit (play)"),
        ("winners", c, "the seat's cards that would take the trick on the table now, legal or not"),
        ("trick_winning", n, "relative seat winning the trick on the table now, one-hot"),
        ("trump", len(TRUMPS), "trump, one-hot: S, C, D, H, NT (zeros: not fixed yet)"),
    ]
    if game == "rough":
        out += [
            ("contract", 7, "the contract's points, one-hot: 70, 75, ..., 100"),
            ("trick_points", 2, "card points taken in tricks so far, own team and other team / 100"),
        ]
    elif game == "five_hundred":
        out.append(("contract", 25, "the contract, one-hot: (tricks 6..10) x (S, C, D, H, NT)"))
    else:
        out += [
            ("called", c, "the card the maker called, one-hot (E5-7)"),
            ("alone", 1, "1 when the maker plays alone by choice"),
            ("partner", n, "relative seat of the maker's partner when this seat knows it (E5-8)"),
        ]
    scores = "own team, other team" if g.teams else "per relative seat"
    out.append(("scores", 2 if g.teams else n, f"match scores ({scores}) / target score, in [-1, 1]"))
    return out


_LAYOUTS: Final[dict[str, tuple[Field, ...]]] = {}


def layout(game: str) -> tuple[Field, ...]:
    """The fields of ``game``'s observation vector, in order."""
    found = _LAYOUTS.get(game)
    if found is None:
        fields, start = [], 0
        for name, width, doc in _fields(game):
            fields.append(Field(name, start, width, doc))
            start += width
        found = _LAYOUTS[game] = tuple(fields)
    return found


def size(game: str) -> int:
    """The length of ``game``'s observation vector."""
    return _offsets(game).size


def describe(game: str) -> str:
    """Every field of ``game``'s observation vector with its offset, one line each."""
    lines = [f"{game}: {size(game)} floats (seats relative to the observer: 0 is itself)"]
    lines += [f"  {f.start:>4}..{f.start + f.size - 1:<4} {f.name} ({f.size}): {f.doc}" for f in layout(game)]
    return "\n".join(lines)


def view_of(view_or_answer: JSON) -> JSON:
    """The view itself, from a view or from an API answer that holds one (``view``, ``next_turn``)."""
    inner = view_or_answer.get("view")
    return inner if isinstance(inner, dict) else view_or_answer


class Offsets:
    """Where each field of a game's vector starts (-1: not a field of this game), and the
    constants the writer needs: read as native attributes when compiled, not looked up by name."""

    def __init__(self, game: str) -> None:
        g, space = engine.game(game), action_space(game)
        self.game = game
        at = {f.name: f.start for f in layout(game)}
        self.size = sum(f.size for f in layout(game))
        self.players, self.cards, self.teams, self.deck = g.players, len(g.deck), g.teams, g.deck_mask
        self.hand_div, self.hand_size = g.hand_size + g.kitty_size, g.hand_size
        self.auction_size, self.actions, self.card_index = len(space.auction), space.size, space.card_index
        self.phases = {p: i for i, p in enumerate(PHASES[game])}
        self.phase, self.my_turn = at["phase"], at["my_turn"]
        self.dealer, self.to_act = at["dealer"], at["to_act"]
        self.hand, self.picked, self.my_discards = at["hand"], at["picked"], at["my_discards"]
        self.kitty_taken = at.get("kitty_taken", -1)
        self.upcard, self.upcard_state = at.get("upcard", -1), at.get("upcard_state", -1)
        self.played_by, self.current_trick = at["played_by"], at["current_trick"]
        self.trick_leader, self.hand_sizes, self.tricks_won = (
            at["trick_leader"],
            at["hand_sizes"],
            at["tricks_won"],
        )
        self.auction, self.taker, self.trump = at["auction"], at["taker"], at["trump"]
        self.trumps, self.bosses, self.winners = at["trumps"], at["bosses"], at["winners"]
        self.trick_winning = at["trick_winning"]
        self.contract, self.trick_points = at.get("contract", -1), at.get("trick_points", -1)
        """-1 but in Le Rough, whose card points taken in tricks are public (RG-4)."""
        self.called, self.alone, self.partner = (
            at.get("called", -1),
            at.get("alone", -1),
            at.get("partner", -1),
        )
        self.scores = at["scores"]
        n = self.players
        columns = [self.hand_sizes + r for r in range(n)] + [self.tricks_won + r for r in range(n)]
        divisors = [float(self.hand_div)] * n + [float(self.hand_size)] * n
        if self.trick_points >= 0:
            columns += [self.trick_points, self.trick_points + 1]
            divisors += [100.0, 100.0]
        columns += [self.scores + r for r in range(2 if self.teams else n)]
        self.count_columns: tuple[int, ...] = tuple(columns)
        """Where the counts of :class:`Sink` go, in their order: the scores last."""
        self.count_divisors: tuple[float, ...] = tuple(divisors)
        """The divisors of the counts before the scores (those divide by the match's target)."""


_OFFSETS: Final[dict[str, Offsets]] = {}


def _offsets(game: str) -> Offsets:
    found = _OFFSETS.get(game)
    if found is None:
        found = _OFFSETS[game] = Offsets(game)
    return found


class Facts:
    """What one seat knows of the match now (ALL-7), as the writer reads it: ints, card masks
    (``engine.cards``), -1 for "none". Filled by :func:`facts_of_view` or :func:`facts_of_match`;
    ``tricks`` as the engine keeps them (leader, cards, winner), ``bids`` each auction action made
    as ``seat * 32 + auction id`` (euchre's call of a partner card left out), ``contract`` the
    contract field's index (Le Rough: by points, Le 500: by tricks and denomination), ``trump`` an
    index of :data:`TRUMPS`, ``upcard_taken`` 1 / 0 / -1 for taken / left / not decided, ``gone``
    the cards out of play the seat knows of (its discards, a turned-down upcard) and ``table`` the
    trump table while cards are played with trump known. The lists are given, never copied: the
    match's own, read and never changed."""

    def __init__(
        self,
        game: str,
        seat: int,
        tricks: list[tuple[int, tuple[int, ...], int]],
        trick: list[int],
        hand_sizes: list[int],
        tricks_won: list[int],
        bids: list[int],
        scores: list[int],
    ) -> None:
        self.game, self.seat = game, seat
        self.tricks, self.trick, self.hand_sizes, self.tricks_won = tricks, trick, hand_sizes, tricks_won
        self.bids, self.scores = bids, scores
        self.phase = ""
        self.to_act = self.dealer = self.taker = self.trump = self.contract = -1
        self.hand = self.my_discards = self.kitty_taken = self.played = self.gone = 0
        self.upcard = self.turned_down = self.upcard_taken = self.called = self.partner = -1
        self.upcard_face_up = self.alone = False
        self.leader = 0
        self.target = 1
        self.table: TrumpTable | None = None


def _codes(codes: Sequence[str] | None) -> int:
    return mask_of(CARD_OF[c] for c in codes) if codes else 0


def _seat(value: Any) -> int:
    return -1 if value is None else int(value)


def facts_of_view(v: JSON) -> Facts:
    """The facts of the seat whose view ``v`` is (``engine.view`` or the API's ``view``)."""
    seat = v["seat"]
    if not isinstance(seat, int):
        raise ValueError("an observation needs a seat's view, not a spectator's")
    game = v["kind"]
    space = action_space(game)
    kinds = {a["type"] for a in space.auction}
    current = v["current_trick"]
    f = Facts(
        game,
        seat,
        [(t["leader"], tuple(CARD_OF[c] for c in t["cards"]), t["winner"]) for t in v["tricks"]],
        [CARD_OF[p["card"]] for p in current],
        list(v["hand_sizes"]),
        list(v["tricks_won"]),
        [b["seat"] * 32 + space.index(b) for b in v["bids"] if b["type"] in kinds],
        list(v["scores"]),
    )
    f.phase, f.to_act, f.dealer = v["phase"], _seat(v["to_act"]), v["dealer"]
    f.hand, f.my_discards = _codes(v["hand"]), _codes(v.get("my_discards"))
    f.kitty_taken = _codes(v.get("kitty_taken"))
    f.leader = current[0]["seat"] if current else 0
    f.played = mask_of(c for t in f.tricks for c in t[1]) | mask_of(f.trick)
    contract = v.get("contract") or {}
    f.taker = _seat(contract.get("taker", contract.get("maker")))
    if v.get("trump") is not None:
        f.trump = TRUMPS.index(v["trump"])
    if game == "euchre5":
        up, down, taken = v.get("upcard_dealt"), v.get("turned_down"), v.get("upcard_taken")
        f.upcard = CARD_OF[up] if up else -1
        f.upcard_face_up = v.get("upcard") is not None
        f.turned_down = CARD_OF[down] if down is not None else -1
        f.upcard_taken = 1 if taken is True else 0 if taken is False else -1
        f.called = CARD_OF[contract["called_card"]] if contract.get("called_card") else -1
        f.alone, f.partner = bool(contract.get("alone")), _seat(contract.get("partner"))
    elif game == "rough":
        f.contract = (contract["points"] - 70) // 5 if contract else -1
    elif contract:
        f.contract = (contract["tricks"] - 6) * 5 + TRUMPS.index(contract["suit"])
    f.gone = f.my_discards | (BIT[f.turned_down] if f.turned_down >= 0 else 0)
    f.target = v["options"]["target_score"]
    if f.phase == "play" and f.trump >= 0:
        f.table = _table(game, f.trump)
    return f


def _table(game: str, trump: int) -> TrumpTable:
    """The trump table of a trump index of :data:`TRUMPS` (the engine's own tables, cached)."""
    suit = None if trump == NT else trump
    if game == "five_hundred":
        return TABLE_500[suit]
    if game == "rough":
        return TABLE_ROUGH[suit]
    assert suit is not None
    return TABLE_EUCHRE[suit]


def _count(mask: int) -> int:
    """The cards of a mask (``int.bit_count``, a native loop when compiled)."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def facts_of_match(m: Match, seat: int) -> Facts:
    """The facts of ``seat`` read from the match itself: only what ``engine.view(m, seat)`` would
    show it (its own hand and discards, the kitty if it took it, the public record), so equal to
    ``facts_of_view(engine.view(m, seat))`` without building the view. ``m.played`` is the mask of
    the cards in ``m.tricks`` and on the table (the engine clears both with each deal)."""
    bids: list[int] = []
    for s, record in m.bids:
        found = auction_id(record)
        if found >= 0:
            bids.append(s * 32 + found)
    play = m.phase == "play"
    hands = m.hands
    f = Facts(
        m.game,
        seat,
        m.tricks,
        m.trick if play else [],
        [_count(hands[s]) for s in range(len(hands))],
        m.tricks_won,
        bids,
        m.scores,
    )
    f.phase, f.to_act, f.dealer, f.leader = m.phase, _seat(m.to_act), m.dealer, m.leader
    f.hand, f.played = hands[seat], m.played
    if m.discarder == seat:
        f.my_discards = m.discards
    if m.game != "euchre5" and seat == m.taker and m.phase != "bidding":  # the kitty to the taker
        f.kitty_taken = mask_of(m.kitty_dealt)
    f.trump = NT if m.no_trump else _seat(m.trump)
    f.target = m.options["target_score"]
    if m.taker is not None:
        f.taker = m.taker
        if m.game == "rough":
            f.contract = (m.level - 70) // 5
        elif m.game == "five_hundred":
            f.contract = (m.level - 6) * 5 + f.trump
        else:
            f.called, f.alone = _seat(m.called), m.alone
            f.partner = _seat(m.partner) if m.revealed or seat == m.partner else -1
    if m.game == "euchre5" and m.phase != "waiting":
        _upcard(m, f)
    f.gone = f.my_discards | (BIT[f.turned_down] if f.turned_down >= 0 else 0)
    if play:
        f.table = m.table
    return f


def _upcard(m: Match, f: Facts) -> None:
    """What euchre's ``extra_view`` shows everybody: the upcard and what became of it (E5-3, E5-5,
    E5-6)."""
    up = m.kitty_dealt[0]
    f.upcard = up
    f.upcard_face_up = m.phase in ("order", "exchange")
    down = m.phase == "name" or (m.trump is not None and m.trump != suit_of(up))
    f.turned_down = up if down else -1
    if down:
        f.upcard_taken = 0
    elif m.trump is not None and not f.upcard_face_up:
        f.upcard_taken = 1 if m.discarder is not None else 0


# ----- the writer: facts -> (index, value) pairs ---------------------------------------------------


class Sink:
    """Where the writer puts a vector: the indices (plus ``base``) of its entries equal to 1 in
    ``ones``, and the whole numbers its other entries are made of in ``counts``, always the same
    :attr:`Offsets.count_fields` in the same order (cards held, tricks taken, Le Rough's trick
    points, the scores): their field fixes the divisor (:func:`counts_to_values`). No float is
    made per entry, and a batch (:func:`write_turn`) divides a whole column at once."""

    def __init__(self, ones: list[int], counts: list[int], base: int) -> None:
        self.ones, self.counts, self.base = ones, counts, base

    def one(self, i: int) -> None:
        self.ones.append(self.base + i)

    def cards(self, start: int, mask: int, index: tuple[int, ...]) -> None:
        at = self.base + start
        ones = self.ones
        while mask:
            low = mask & -mask
            ones.append(at + index[low.bit_length() - 1])
            mask ^= low


def _write(f: Facts, picked: int, o: Offsets, out: Sink) -> None:
    """Every non-zero entry of the vector of ``f`` (the fields of :func:`layout`)."""
    n, seat, index = o.players, f.seat, o.card_index
    out.one(o.phase + o.phases[f.phase])
    if f.to_act == seat:
        out.one(o.my_turn)
    out.one(o.dealer + (f.dealer - seat) % n)
    if f.to_act >= 0:
        out.one(o.to_act + (f.to_act - seat) % n)
    out.cards(o.hand, f.hand, index)
    out.cards(o.picked, picked, index)
    out.cards(o.my_discards, f.my_discards, index)
    if o.kitty_taken >= 0:
        out.cards(o.kitty_taken, f.kitty_taken, index)
    ones, width = out.ones, o.cards
    played_by, current = out.base + o.played_by, out.base + o.current_trick
    ours = theirs = 0  # card points taken in tricks (RG-4), public in Le Rough's view
    points = o.trick_points >= 0
    for leader, cards, winner in f.tricks:
        r = (leader - seat) % n
        for i in range(len(cards)):
            c = cards[i]
            ones.append(played_by + r * width + index[c])
            r = r + 1 if r + 1 < n else 0
            if points:
                if (winner - seat) % 2 == 0:
                    ours += ROUGH_POINTS[c]
                else:
                    theirs += ROUGH_POINTS[c]
    trick = f.trick
    if trick:
        out.one(o.trick_leader + (f.leader - seat) % n)
        for i in range(len(trick)):
            at = (f.leader + i - seat) % n * width + index[trick[i]]
            ones.append(played_by + at)
            ones.append(current + at)
    counts = out.counts
    for r in range(n):
        counts.append(f.hand_sizes[(seat + r) % n])
    for r in range(n):
        counts.append(f.tricks_won[(seat + r) % n])
    if points:
        counts.append(ours)
        counts.append(theirs)
    scores = f.scores
    if o.teams:
        counts.append(scores[seat % 2])
        counts.append(scores[1 - seat % 2])
    else:
        for r in range(n):
            counts.append(scores[(seat + r) % n])
    for b in f.bids:
        out.one(o.auction + (b // 32 - seat) % n * o.auction_size + b % 32)
    if f.taker >= 0:
        out.one(o.taker + (f.taker - seat) % n)
    if f.trump >= 0:
        out.one(o.trump + f.trump)
    _write_game(f, o, out)
    _write_tactics(f, o, out)


def _write_game(f: Facts, o: Offsets, out: Sink) -> None:
    n, seat = o.players, f.seat
    if f.game == "euchre5":
        if f.upcard >= 0:
            out.one(o.upcard + o.card_index[f.upcard])
        state = (f.upcard_face_up, f.turned_down >= 0, f.upcard_taken == 1, f.upcard_taken == 0)
        for i in range(4):
            if state[i]:
                out.one(o.upcard_state + i)
        if f.called >= 0:
            out.one(o.called + o.card_index[f.called])
        if f.alone:
            out.one(o.alone)
        if f.partner >= 0:
            out.one(o.partner + (f.partner - seat) % n)
        return
    if f.contract >= 0:
        out.one(o.contract + f.contract)


def _write_tactics(f: Facts, o: Offsets, out: Sink) -> None:
    """What the heuristic bot reasons with (workers.bots.seen), from the same facts: which of the
    seat's cards are trump, masters of their suit, or would win the trick; who is winning it."""
    table = f.table
    if f.phase != "play" or table is None:  # Le Rough before the taker's first lead names trump (RG-11)
        return
    index = o.card_index
    unseen = o.deck & ~f.played & ~f.hand & ~f.gone
    trick = f.trick
    keys = table.win_key[table.suit[trick[0]]] if trick else table.win_key[0]
    best, best_key = 0, keys[trick[0]] if trick else 0
    for i in range(1, len(trick)):
        if keys[trick[i]] > best_key:
            best, best_key = i, keys[trick[i]]
    if trick:
        out.one(o.trick_winning + (f.leader + best - f.seat) % o.players)
    rest = f.hand
    while rest:
        low = rest & -rest
        rest ^= low
        c = low.bit_length() - 1
        if table.trump & low:
            out.one(o.trumps + index[c])
        if is_boss_among(table, unseen, c):
            out.one(o.bosses + index[c])
        if trick and keys[c] > best_key:  # trick_winner_index: a later card wins only by a higher key
            out.one(o.winners + index[c])


def counts_to_values(o: Offsets, counts: Sequence[int], target: float) -> list[float]:
    """The entries the counts of one vector stand for, in the order of ``o.count_columns``:
    cards held / (hand + kitty), tricks taken / hand, Le Rough's trick points / 100, and the
    scores / the target score, each clipped to [-1, 1] (only a score can leave it)."""
    divisors = count_divisors(o.game, target)
    return [max(-1.0, min(1.0, counts[j] / divisors[j])) for j in range(len(counts))]


def _sparse(f: Facts, picked: int) -> tuple[list[int], list[float]]:
    o = _offsets(f.game)
    ones: list[int] = []
    counts: list[int] = []
    _write(f, picked, o, Sink(ones, counts, 0))
    return ones, counts_to_values(o, counts, float(f.target))


def _dense(f: Facts, picked: int) -> list[float]:
    ones, values = _sparse(f, picked)
    o = _offsets(f.game)
    out = [0.0] * o.size
    for i in ones:
        out[i] = 1.0
    columns = o.count_columns
    for j in range(len(values)):
        out[columns[j]] = values[j]
    return out


# ----- the public doors ------------------------------------------------------------------------------


def observation(view_or_answer: JSON, picked: Sequence[str] = ()) -> list[float]:
    """The observation vector (:func:`describe`) of the seat whose view this is (a view, or an API
    answer holding one), ``picked`` being the cards it has picked so far for a discard in progress
    (none otherwise)."""
    return _dense(facts_of_view(view_of(view_or_answer)), picked_mask(picked))


def observation_of_match(m: Match, seat: int, picked: Sequence[str] = ()) -> list[float]:
    """:func:`observation` of ``engine.view(m, seat)``, read from the match without the view."""
    return _dense(facts_of_match(m, seat), picked_mask(picked))


def sparse_observation(view_or_answer: JSON, picked: Sequence[str] = ()) -> tuple[list[int], list[float]]:
    """:func:`observation` in two parts: the indices of its entries equal to 1, and its entries at
    :func:`count_columns` (the other entries are 0). An array library fills a vector from them far
    faster than it converts a list of hundreds of floats."""
    return _sparse(facts_of_view(view_of(view_or_answer)), picked_mask(picked))


def sparse_observation_of_match(
    m: Match, seat: int, picked: Sequence[str] = ()
) -> tuple[list[int], list[float]]:
    """:func:`sparse_observation` of ``engine.view(m, seat)``, read from the match without the view."""
    return _sparse(facts_of_match(m, seat), picked_mask(picked))


def write_turn(
    m: Match, seat: int, picked: Sequence[str], row: int, ones: list[int], counts: list[int], mask: list[int]
) -> list[int]:
    """Row ``row`` of a batch of tables (atout.learn.vector), for ``seat`` of match ``m``: the
    observation (:func:`observation_of_match`) as the flat indices of its ones in a (rows x
    ``size(game)``) array, appended to ``ones``, and its counts (:class:`Sink`, one row of
    ``len(count_columns(game))``) to ``counts``; the seat's legal ids as flat indices into a (rows
    x action space) mask, to ``mask``. Returns the legal ids. One call per table and step: the batch
    then scatters the lists into its arrays at once, so no list of floats is built per row."""
    o = _offsets(m.game)
    _write(facts_of_match(m, seat), picked_mask(picked), o, Sink(ones, counts, row * o.size))
    ids = legal_ids_of_match(m, seat, picked)
    base = row * o.actions
    for i in ids:
        mask.append(base + i)
    return ids


def count_columns(game: str) -> tuple[int, ...]:
    """Where the counts of a vector go (:class:`Sink`), in their order."""
    return _offsets(game).count_columns


def count_divisors(game: str, target: float) -> tuple[float, ...]:
    """What each count is divided by (the scores: ``target``, the match's target score); the
    quotients are then clipped to [-1, 1] (:func:`counts_to_values`)."""
    o = _offsets(game)
    return (*o.count_divisors, *(float(target),) * (len(o.count_columns) - len(o.count_divisors)))


Policy = Callable[[list[float], list[int]], int]
"""What :func:`choose` asks: one of the legal ids (second argument, ascending) for an observation."""


def choose(view_or_answer: JSON, policy: Policy, legal: Sequence[JSON] | None = None) -> JSON:
    """The engine/API action a policy picks: ``policy(observation, legal_ids) -> id`` is asked once,
    or once per card of a discard (the picks so far in the observation and gone from the ids), and
    the picks are sent as one ``discard``. ``legal`` is the seat's legal actions (default: the
    answer's ``legal_actions``), so a bot calls ``choose(view, policy, legal)``. An id outside
    ``legal_ids`` raises ``ValueError``."""
    v = view_of(view_or_answer)
    actions: Sequence[JSON] = legal if legal is not None else view_or_answer.get("legal_actions") or []
    space = action_space(v["kind"])
    facts = facts_of_view(v)
    picked: list[str] = []
    count = discard_count(actions)
    while True:
        ids = space.legal(actions, picked)
        if not ids:
            raise ValueError("no legal action: it is not this seat's turn")
        index = int(policy(_dense(facts, picked_mask(picked)), ids))
        if index not in ids:
            raise ValueError(f"the policy chose id {index}, which is not legal (legal: {ids})")
        action = space.action(index)
        if action["type"] != PICK:
            return action
        picked.append(action["card"])
        if len(picked) == count:
            return discard_action(picked)


__all__ = [
    "NT",
    "PHASES",
    "TRUMPS",
    "Facts",
    "Field",
    "Policy",
    "choose",
    "count_columns",
    "count_divisors",
    "describe",
    "facts_of_match",
    "facts_of_view",
    "layout",
    "legal_ids",
    "legal_ids_of_match",
    "observation",
    "observation_of_match",
    "size",
    "sparse_observation",
    "sparse_observation_of_match",
    "view_of",
    "write_turn",
]
