"""A fixed action space per game: every action a seat may ever take, numbered once and for all.

Learning frameworks (OpenSpiel, PettingZoo, Gymnasium) want a fixed, finite set of action ids and
a mask of the legal ones. The engine's own legal actions vary in number and offer the discard as a
template ("choose 4 of these 12 cards": 495 choices in Le Rough, 8,008 in Le 500), so here a discard
of N cards is N successive *picks* of one card each (``pick`` actions): the caller keeps the cards
picked so far, the mask offers the cards not yet picked, and :func:`discard_action` turns the N picks
into the one ``discard`` action the engine and the API take. Euchre's exchange is already one card.

The space is a few *blocks* (:class:`Block`): the auction's actions (pass, the bids, keep, order up,
name a suit, go alone), then one block per kind of card action, each holding one id per card of the
game's deck in :attr:`ActionSpace.cards` order (suits S C D H, each low to high: 4 … A, then the
jokers BJ RJ). ``ActionSpace.describe()`` prints every id; this module imports neither numpy nor
anything of the service, so a bot can use it anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final

import engine
from engine.actions import DENOMINATIONS
from engine.cards import CARD_OF, CODES

JSON = dict[str, Any]

PICK: Final = "pick"
"""The type of a single-card discard pick: not an engine action, see :func:`discard_action`."""

GAMES: Final = ("five_hundred", "rough", "euchre5")


@dataclass(frozen=True)
class Block:
    """A run of consecutive ids: ``size`` ids from ``start``, with what they mean."""

    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


def _auction(game: str) -> tuple[JSON, ...]:
    """The auction's actions of a game, in id order (docs/rules.md F5-8, RG-6, RG-7, E5-5..E5-7)."""
    if game == "rough":
        bids = tuple({"type": "bid", "points": p} for p in range(70, 101, 5))
        return ({"type": "pass"}, *bids, {"type": "keep"})
    if game == "five_hundred":
        bids = tuple({"type": "bid", "tricks": t, "suit": d} for t in range(6, 11) for d in DENOMINATIONS)
        return ({"type": "pass"}, *bids)
    if game == "euchre5":
        names = tuple({"type": "name_trump", "suit": s} for s in "SCDH")
        return ({"type": "pass"}, {"type": "order_up"}, *names, {"type": "go_alone"})
    raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")


CARD_BLOCKS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "rough": (
        ("play", "play the card (on the taker's first lead: its suit becomes trump, RG-11)"),
        ("play_no_trump", "the taker's first lead, announcing no trump (RG-11)"),
        (PICK, "pick the card for the discard in progress (RG-10: four picks make the discard)"),
    ),
    "five_hundred": (
        ("play", "play the card"),
        (PICK, "pick the card for the discard in progress (F5-10: six picks make the discard)"),
    ),
    "euchre5": (
        ("call_partner", "the maker calls the card: its holder is his hidden partner (E5-7)"),
        ("exchange", "the dealer takes the upcard and gives up the card (E5-5)"),
        ("play", "play the card"),
    ),
}


def _key(action: JSON) -> tuple[Any, ...]:
    """What identifies an action in its JSON form (extra fields such as a seat are ignored)."""
    kind = action.get("type")
    if kind == "play":
        return (kind, action.get("card"), bool(action.get("no_trump", False)))
    if kind == "exchange":
        return (kind, action.get("discard"))
    if kind in ("call_partner", PICK):
        return (kind, action.get("card"))
    if kind == "bid":
        return (kind, action.get("points"), action.get("tricks"), action.get("suit"))
    if kind == "name_trump":
        return (kind, action.get("suit"))
    return (kind,)


@dataclass(frozen=True)
class ActionSpace:
    """The fixed actions of one game: ``size`` ids in ``blocks``; see the module's docstring."""

    game: str
    cards: tuple[str, ...]
    """The game's deck, the order of every card block (and of the observation's card fields)."""
    auction: tuple[JSON, ...]
    blocks: tuple[Block, ...]
    size: int
    _ids: dict[tuple[Any, ...], int] = field(repr=False, compare=False)
    _actions: tuple[JSON, ...] = field(repr=False, compare=False)

    def __deepcopy__(self, memo: dict[int, Any]) -> ActionSpace:
        return self  # immutable: a cloned state shares it

    def block(self, name: str) -> Block:
        return next(b for b in self.blocks if b.name == name)

    def action(self, index: int) -> JSON:
        """The action of an id, in the engine's and the API's JSON form; a pick is
        ``{"type": "pick", "card": "AS"}`` (give the picks to :func:`discard_action`)."""
        if not 0 <= index < self.size:
            raise ValueError(f"{self.game}: action id {index} is not in 0..{self.size - 1}")
        return dict(self._actions[index])

    def index(self, action: JSON) -> int:
        """The id of an action in its JSON form (a concrete action or a pick, not a template)."""
        try:
            return self._ids[_key(action)]
        except KeyError:
            raise ValueError(f"{self.game}: {action!r} is not an action of the fixed space") from None

    def pick(self, card: str) -> int:
        """The id of the pick of ``card`` for a discard."""
        return self.index({"type": PICK, "card": card})

    def legal(self, legal_actions: Sequence[JSON], picked: Sequence[str] = ()) -> list[int]:
        """The legal ids, ascending, given the seat's legal actions (``engine.legal_actions`` or the
        API's ``legal_actions``: the same JSON) and the cards picked so far for its discard."""
        ids: list[int] = []
        for action in legal_actions:
            if action.get("type") == "discard" and "choices" in action:
                if len(picked) >= int(action["count"]):
                    raise ValueError(f"{len(picked)} cards picked for a discard of {action['count']}")
                ids += [self.pick(c) for c in action["choices"] if c not in picked]
            else:
                ids.append(self.index(action))
        if picked and not any(a.get("type") == "discard" for a in legal_actions):
            raise ValueError("cards were picked but no discard is legal")
        return sorted(ids)

    def describe(self) -> str:
        """Every id and its meaning, one line per block and per auction action (for the tutorial)."""
        lines = [f"{self.game}: {self.size} actions"]
        for b in self.blocks:
            lines.append(f"  {b.start:>3}..{b.stop - 1:<3} {b.name}: {b.doc}")
            if b.name == "auction":
                for i, a in enumerate(self.auction):
                    lines.append(f"        {b.start + i:>3} {a}")
        return "\n".join(lines)


@cache
def action_space(game: str) -> ActionSpace:
    """The fixed action space of ``game`` ("five_hundred", "rough" or "euchre5")."""
    auction = _auction(game)
    cards = tuple(CODES[c] for c in sorted(engine.game(game).deck))
    blocks = [Block("auction", 0, len(auction), "pass, bids and the other calls of the auction (below)")]
    actions: list[JSON] = list(auction)
    for name, doc in CARD_BLOCKS[game]:
        blocks.append(Block(name, len(actions), len(cards), f"one id per card: {doc}"))
        for code in cards:
            if name == "play_no_trump":
                actions.append({"type": "play", "card": code, "no_trump": True})
            elif name == "exchange":
                actions.append({"type": "exchange", "discard": code})
            else:
                actions.append({"type": name, "card": code})
    ids = {_key(a): i for i, a in enumerate(actions)}
    assert len(ids) == len(actions)
    return ActionSpace(game, cards, auction, tuple(blocks), len(actions), ids, tuple(actions))


def discard_action(picked: Sequence[str]) -> JSON:
    """The one ``discard`` action of the cards picked one by one."""
    if len(set(picked)) != len(picked) or not all(c in CARD_OF for c in picked):
        raise ValueError(f"picks must be distinct card codes, got {list(picked)!r}")
    return {"type": "discard", "cards": sorted(picked)}


def discard_count(legal_actions: Sequence[JSON]) -> int:
    """How many cards the discard among ``legal_actions`` takes (0: no discard is offered)."""
    return next((int(a["count"]) for a in legal_actions if a.get("type") == "discard" and "choices" in a), 0)
