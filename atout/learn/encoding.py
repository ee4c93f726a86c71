"""A seat's observation as a fixed-size float32 vector, and its legal actions as a mask.

Computed from what the seat sees and nothing else: the view ``engine.view(match, seat)`` returns,
which is also the ``view`` of the API's answers (``GET /v1/games/{id}/view``, a bot stream's
``your_turn``, a move's ``next_turn``). :func:`observation` takes either the view itself or a whole
answer holding it (``{"view": {...}, "legal_actions": [...]}``), so a policy trained on the engine
plays the live service unchanged; tests/atout/test_learn_live.py checks both give the same
vectors, and that hidden cards change nothing.

Seats are *relative*: index 0 of every per-seat field is the observing seat, 1 the seat on its left
(ALL-1), and so on; per-team fields are (own team, other team). Every field lies in [0, 1] but the
scores, which lie in [-1, 1]. :func:`describe` prints the fields of a game with their offsets,
:func:`layout` gives them as :class:`Field` records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

import engine
from atout.learn.spaces import JSON, action_space, discard_count
from engine.cards import CARD_OF
from engine.tricks import trick_winner_index
from workers.bots import seen as seen_cards

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]

PHASES: dict[str, tuple[str, ...]] = {
    "five_hundred": ("waiting", "bidding", "discard", "play", "over"),
    "rough": ("waiting", "bidding", "discard", "play", "over"),
    "euchre5": ("waiting", "order", "exchange", "name", "call", "play", "over"),
}
TRUMPS = ("S", "C", "D", "H", "NT")


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


@cache
def layout(game: str) -> tuple[Field, ...]:
    """The fields of ``game``'s observation vector, in order."""
    fields, start = [], 0
    for name, size, doc in _fields(game):
        fields.append(Field(name, start, size, doc))
        start += size
    return tuple(fields)


def size(game: str) -> int:
    """The length of ``game``'s observation vector."""
    last = layout(game)[-1]
    return last.start + last.size


def describe(game: str) -> str:
    """Every field of ``game``'s observation vector with its offset, one line each."""
    lines = [f"{game}: {size(game)} floats (seats relative to the observer: 0 is itself)"]
    lines += [f"  {f.start:>4}..{f.start + f.size - 1:<4} {f.name} ({f.size}): {f.doc}" for f in layout(game)]
    return "\n".join(lines)


def view_of(view_or_answer: JSON) -> JSON:
    """The view itself, from a view or from an API answer that holds one (``view``, ``next_turn``)."""
    inner = view_or_answer.get("view")
    return inner if isinstance(inner, dict) else view_or_answer


class _Writer:
    def __init__(self, game: str, seat: int) -> None:
        self.out = np.zeros(size(game), np.float32)
        self.offsets = {f.name: f.start for f in layout(game)}
        self.space = action_space(game)
        self.card = {code: i for i, code in enumerate(self.space.cards)}
        self.n, self.c, self.seat = engine.game(game).players, len(self.space.cards), seat

    def rel(self, s: int) -> int:
        return (s - self.seat) % self.n

    def set(self, name: str, i: int, value: float = 1.0) -> None:
        self.out[self.offsets[name] + i] = value

    def seat_one_hot(self, name: str, s: int | None) -> None:
        if s is not None:
            self.set(name, self.rel(s))

    def cards(self, name: str, codes: Sequence[str] | None, row: int = 0) -> None:
        for code in codes or ():
            self.set(name, row * self.c + self.card[code])


def observation(view_or_answer: JSON, picked: Sequence[str] = ()) -> Vector:
    """The observation vector of the seat whose view this is (:func:`describe`), ``picked`` being
    the cards it has picked so far for a discard in progress (none otherwise)."""
    v = view_of(view_or_answer)
    game, seat = v["kind"], v["seat"]
    if not isinstance(seat, int):
        raise ValueError("an observation needs a seat's view, not a spectator's")
    w = _Writer(game, seat)
    g = engine.game(game)
    w.set("phase", PHASES[game].index(v["phase"]))
    w.set("my_turn", 0, float(v["to_act"] == seat))
    w.seat_one_hot("dealer", v["dealer"])
    w.seat_one_hot("to_act", v["to_act"])
    w.cards("hand", v["hand"])
    w.cards("picked", picked)
    w.cards("my_discards", v.get("my_discards"))
    for t in v["tricks"]:
        for i, code in enumerate(t["cards"]):
            w.cards("played_by", [code], w.rel(t["leader"] + i))
    for i, p in enumerate(v["current_trick"]):
        w.cards("played_by", [p["card"]], w.rel(p["seat"]))
        w.cards("current_trick", [p["card"]], w.rel(p["seat"]))
        if i == 0:
            w.seat_one_hot("trick_leader", p["seat"])
    for s in range(w.n):
        w.set("hand_sizes", w.rel(s), v["hand_sizes"][s] / (g.hand_size + g.kitty_size))
        w.set("tricks_won", w.rel(s), v["tricks_won"][s] / g.hand_size)
    auction = {a["type"]: None for a in w.space.auction}
    for b in v["bids"]:
        if b["type"] in auction:
            w.set("auction", w.rel(b["seat"]) * len(w.space.auction) + w.space.index(b))
    contract = v.get("contract") or {}
    w.seat_one_hot("taker", contract.get("taker", contract.get("maker")))
    if v.get("trump") is not None:
        w.set("trump", TRUMPS.index(v["trump"]))
    _game_fields(w, v, contract)
    _tactics(w, v)
    _scores(w, v)
    return w.out


def _tactics(w: _Writer, v: JSON) -> None:
    """What the heuristic bot reasons with (workers.bots.seen), from the same view: which of the
    seat's cards are trump, masters of their suit, or would win the trick; who is winning it."""
    if v["phase"] != "play":
        return
    seen = seen_cards.from_view(v)
    table = seen.table
    if table is None:  # Le Rough before the taker's first lead names trump (RG-11)
        return
    hand = [(code, CARD_OF[code]) for code in v["hand"]]
    for code, c in hand:
        if table.trump >> c & 1:
            w.cards("trumps", [code])
        if seen_cards.is_boss(seen, table, c):
            w.cards("bosses", [code])
    if seen.trick:
        winner, _ = seen_cards.winning(seen, table)
        w.seat_one_hot("trick_winning", winner)
        for code, c in hand:
            if trick_winner_index([*seen.trick, c], table) == len(seen.trick):
                w.cards("winners", [code])


def _game_fields(w: _Writer, v: JSON, contract: JSON) -> None:
    game = v["kind"]
    if game == "euchre5":
        w.cards("upcard", [v["upcard_dealt"]] if v.get("upcard_dealt") else [])
        state = [v.get("upcard") is not None, v.get("turned_down") is not None]
        state += [v.get("upcard_taken") is True, v.get("upcard_taken") is False]
        for i, flag in enumerate(state):
            w.set("upcard_state", i, float(flag))
        w.cards("called", [contract["called_card"]] if contract.get("called_card") else [])
        w.set("alone", 0, float(bool(contract.get("alone"))))
        w.seat_one_hot("partner", contract.get("partner"))
        return
    w.cards("kitty_taken", v.get("kitty_taken"))
    if game == "rough":
        if contract:
            w.set("contract", (contract["points"] - 70) // 5)
        points = v.get("trick_points") or [0, 0]
        mine = w.seat % 2
        w.set("trick_points", 0, points[mine] / 100)
        w.set("trick_points", 1, points[1 - mine] / 100)
    elif contract:
        w.set("contract", (contract["tricks"] - 6) * 5 + TRUMPS.index(contract["suit"]))


def _scores(w: _Writer, v: JSON) -> None:
    target = float(v["options"]["target_score"])
    scores: list[int] = v["scores"]

    def clip(x: float) -> float:
        return max(-1.0, min(1.0, x / target))

    if len(scores) == 2:
        mine = w.seat % 2
        w.set("scores", 0, clip(scores[mine]))
        w.set("scores", 1, clip(scores[1 - mine]))
    else:
        for s, score in enumerate(scores):
            w.set("scores", w.rel(s), clip(score))


def legal_mask(game: str, legal_actions: Sequence[JSON] | None, picked: Sequence[str] = ()) -> Mask:
    """1 for each legal id of ``game``'s action space (spaces.ActionSpace), 0 elsewhere, from the
    seat's legal actions (``engine.legal_actions`` or an API answer's ``legal_actions``; None or []
    when it is not the seat's turn: all zeros) and the cards it has picked for its discard."""
    space = action_space(game)
    mask = np.zeros(space.size, np.int8)
    mask[space.legal(legal_actions or (), picked)] = 1
    return mask


def encode(answer: JSON, picked: Sequence[str] = ()) -> tuple[Vector, Mask]:
    """Observation and mask from one API answer (``{"view": ..., "legal_actions": ...}``, as
    ``GET /v1/games/{id}/view``, ``your_turn`` and ``next_turn`` give them)."""
    v = view_of(answer)
    return observation(v, picked), legal_mask(v["kind"], answer.get("legal_actions"), picked)


Policy = Callable[[Vector, Mask], int]
"""What :func:`choose` asks: an action id of the mask for an observation."""


def choose(answer: JSON, policy: Policy) -> JSON:
    """The engine/API action a policy picks for an answer holding the view and the legal actions:
    ``policy(observation, mask) -> id`` is asked once, or once per card of a discard (the picks so far
    in the observation), and the picks are sent as one ``discard``."""
    v = view_of(answer)
    legal: list[JSON] = answer.get("legal_actions") or []
    space = action_space(v["kind"])
    picked: list[str] = []
    count = discard_count(legal)
    while True:
        index = int(policy(observation(v, picked), legal_mask(v["kind"], legal, picked)))
        action = space.action(index)
        if action["type"] != "pick":
            return action
        picked.append(action["card"])
        if len(picked) == count:
            return {"type": "discard", "cards": sorted(picked)}
