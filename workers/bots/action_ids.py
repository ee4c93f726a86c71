"""A fixed action space per game: every action a seat may ever take, numbered once and for all.

Learning frameworks (OpenSpiel, PettingZoo, Gymnasium) and a policy network want a fixed, finite
set of action ids and the legal ones among them. The engine's own legal actions vary in number and
offer the discard as a template ("choose 4 of these 12 cards": 495 choices in Le Rough, 8,008 in
Le 500), so here a discard of N cards is N successive *picks* of one card each (``pick`` actions):
the caller keeps the cards picked so far, the legal ids offer the cards not yet picked, and
:func:`discard_action` turns the N picks into the one ``discard`` action the engine and the API
take. Euchre's exchange is already one card.

The space is a few *blocks* (:class:`Block`): the auction's actions (pass, the bids, keep, order
up, name a suit, go alone), then one block per kind of card action, each holding one id per card of
the game's deck in :attr:`ActionSpace.cards` order (suits S C D H, each low to high: 4 … A, then
the jokers BJ RJ). ``ActionSpace.describe()`` prints every id.

Here, among the bots and compiled with them (mypyc), so that a bot playing a learnt policy and a
self-play loop translate ids at engine speed: :func:`legal_ids_of_match` and :func:`apply_id` work on the
engine's records straight from a ``Match`` (no JSON), and give exactly what the JSON path
(:meth:`ActionSpace.legal` over ``engine.legal_actions``) gives. Standard library and engine only.
``atout.learn.spaces`` re-exports this module for the learning toolkit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import engine
from engine import actions as act
from engine.actions import DENOMINATIONS, parse
from engine.api import legal_moves, push
from engine.base import GAMES as RULES
from engine.cards import BIT, CARD_OF, CODES, cards_of, mask_of
from engine.match import Match
from engine.tricks import legal_plays

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
    """The fixed actions of one game: ``size`` ids in ``blocks``; see the module's docstring.

    The fields after ``size`` are the fast path's tables: the engine record of every id (None for a
    pick), each card's place in :attr:`cards` by card int (-1: not in this deck), and the first id
    of each card block (-1: the game has no such block)."""

    game: str
    cards: tuple[str, ...]
    """The game's deck, the order of every card block (and of the observation's card fields)."""
    auction: tuple[JSON, ...]
    blocks: tuple[Block, ...]
    size: int
    ids: dict[tuple[Any, ...], int]
    actions: tuple[JSON, ...]
    records: tuple[act.Action | None, ...]
    card_index: tuple[int, ...]
    play: int
    play_no_trump: int
    pick_start: int
    exchange: int
    call_partner: int

    def __deepcopy__(self, memo: dict[int, Any]) -> ActionSpace:
        return self  # immutable: a cloned state shares it

    def __reduce__(self) -> tuple[Any, ...]:
        return (action_space, (self.game,))  # unpickled: the one space of its game

    def block(self, name: str) -> Block:
        return next(b for b in self.blocks if b.name == name)

    def action(self, index: int) -> JSON:
        """The action of an id, in the engine's and the API's JSON form; a pick is
        ``{"type": "pick", "card": "AS"}`` (give the picks to :func:`discard_action`)."""
        if not 0 <= index < self.size:
            raise ValueError(f"{self.game}: action id {index} is not in 0..{self.size - 1}")
        return dict(self.actions[index])

    def index(self, action: JSON) -> int:
        """The id of an action in its JSON form (a concrete action or a pick, not a template)."""
        found = self.ids.get(_key(action))
        if found is None:
            raise ValueError(f"{self.game}: {action!r} is not an action of the fixed space")
        return found

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


_SPACES: Final[dict[str, ActionSpace]] = {}


def action_space(game: str) -> ActionSpace:
    """The fixed action space of ``game`` ("five_hundred", "rough" or "euchre5"), built once."""
    space = _SPACES.get(game)
    if space is None:
        space = _SPACES[game] = _build(game)
    return space


def _card_action(name: str, code: str) -> JSON:
    if name == "play_no_trump":
        return {"type": "play", "card": code, "no_trump": True}
    if name == "exchange":
        return {"type": "exchange", "discard": code}
    return {"type": name, "card": code}


def _build(game: str) -> ActionSpace:
    auction = _auction(game)
    deck = sorted(engine.game(game).deck)
    cards = tuple(CODES[c] for c in deck)
    blocks = [Block("auction", 0, len(auction), "pass, bids and the other calls of the auction (below)")]
    actions: list[JSON] = list(auction)
    for name, doc in CARD_BLOCKS[game]:
        blocks.append(Block(name, len(actions), len(cards), f"one id per card: {doc}"))
        actions += [_card_action(name, code) for code in cards]
    ids = {_key(a): i for i, a in enumerate(actions)}
    assert len(ids) == len(actions)
    records: list[act.Action | None] = [None if a["type"] == PICK else parse(a) for a in actions]
    index = [-1] * len(CODES)
    for i, c in enumerate(deck):
        index[c] = i
    starts = {b.name: b.start for b in blocks}
    return ActionSpace(
        game,
        cards,
        auction,
        tuple(blocks),
        len(actions),
        ids,
        tuple(actions),
        tuple(records),
        tuple(index),
        starts.get("play", -1),
        starts.get("play_no_trump", -1),
        starts.get(PICK, -1),
        starts.get("exchange", -1),
        starts.get("call_partner", -1),
    )


def discard_action(picked: Sequence[str]) -> JSON:
    """The one ``discard`` action of the cards picked one by one."""
    if len(set(picked)) != len(picked) or not all(c in CARD_OF for c in picked):
        raise ValueError(f"picks must be distinct card codes, got {list(picked)!r}")
    return {"type": "discard", "cards": sorted(picked)}


def discard_count(legal_actions: Sequence[JSON]) -> int:
    """How many cards the discard among ``legal_actions`` takes (0: no discard is offered)."""
    return next((int(a["count"]) for a in legal_actions if a.get("type") == "discard" and "choices" in a), 0)


def legal_ids(game: str, legal_actions: Sequence[JSON] | None, picked: Sequence[str] = ()) -> list[int]:
    """The legal ids, ascending, of a seat's legal actions in their JSON form (an API answer's
    ``legal_actions``; None or [] off its turn: none) and the cards it picked for its discard."""
    return action_space(game).legal(legal_actions or (), picked)


# ----- the fast path: engine records, no JSON ------------------------------------------------------


def auction_id(action: act.Action) -> int:
    """The id of an auction record (docs/rules.md F5-8, RG-6, RG-7, E5-5..E5-7), -1 for any other
    record (a card action, euchre's call of a partner card): the order of :func:`_auction`."""
    if isinstance(action, act.Pass):
        return 0
    if isinstance(action, act.PointBid):
        return 1 + (action.points - 70) // 5
    if isinstance(action, act.TrickBid):
        return 1 + (action.tricks - 6) * 5 + action.denomination
    if isinstance(action, act.Keep):
        return 8
    if isinstance(action, act.OrderUp):
        return 1
    if isinstance(action, act.NameTrump):
        return 2 + action.suit
    if isinstance(action, act.GoAlone):
        return 6
    return -1


def move_id(space: ActionSpace, move: act.Action) -> int:
    """The id of a concrete engine record (not a discard: that is picks)."""
    index = space.card_index
    if isinstance(move, act.Play):
        return (space.play_no_trump if move.no_trump else space.play) + index[move.card]
    if isinstance(move, act.Exchange):
        return space.exchange + index[move.card]
    if isinstance(move, act.CallPartner):
        return space.call_partner + index[move.card]
    found = auction_id(move)
    if found < 0:
        raise ValueError(f"{space.game}: {move.to_json()!r} is not an action of the fixed space")
    return found


def picked_mask(picked: Sequence[str]) -> int:
    return mask_of(CARD_OF[code] for code in picked)


def legal_ids_of_match(m: Match, seat: int, picked: Sequence[str] = ()) -> list[int]:
    """The legal ids of ``seat`` in match ``m``, ascending ([] when it is not its turn), the cards
    it picked so far for its discard left out: ``ActionSpace.legal`` of ``engine.legal_actions``,
    from the engine's records."""
    if seat != m.to_act:
        return []
    space = action_space(m.game)
    ids: list[int] = []
    table = m.table
    if table is not None and not picked:  # the play phase, as the engine's legal_moves inlines it
        plays = legal_plays(m.hands[seat], m.trick, table)
        start, index = space.play, space.card_index
        while plays:  # ascending: a card's place in the deck grows with its int
            low = plays & -plays
            ids.append(start + index[low.bit_length() - 1])
            plays ^= low
        return ids
    discard = False
    for move in legal_moves(m):
        if isinstance(move, act.DiscardTemplate):
            if len(picked) >= move.count:
                raise ValueError(f"{len(picked)} cards picked for a discard of {move.count}")
            left = move.cards & ~picked_mask(picked)
            ids += [space.pick_start + space.card_index[c] for c in cards_of(left)]
            discard = True
        else:
            ids.append(move_id(space, move))
    if picked and not discard:
        raise ValueError("cards were picked but no discard is legal")
    ids.sort()
    return ids


def apply_id(m: Match, seat: int, index: int, picked: list[str]) -> bool:
    """``seat`` takes the id ``index`` in ``m``, in place. The engine checks an action (and refuses it
    with ``IllegalAction``, a ``ValueError``, leaving ``m`` unchanged); a pick must be a card of the
    seat's hand not picked yet, during its discard, and goes to ``picked`` until that holds the whole
    discard, which is then pushed as one action (``picked`` emptied). True when the engine took an
    action, False for a pick that waits for the others."""
    space = action_space(m.game)
    if not 0 <= index < space.size:
        raise ValueError(f"{space.game}: action id {index} is not in 0..{space.size - 1}")
    record = space.records[index]
    if record is not None:
        if picked:
            raise ValueError(f"{space.game}: {len(picked)} cards picked, the discard must be finished")
        push(m, seat, record)
        return True
    code = space.cards[index - space.pick_start]
    if m.phase != "discard" or seat != m.to_act or not m.hands[seat] & BIT[CARD_OF[code]] or code in picked:
        raise ValueError(f"{space.game}: picking {code} is not legal now")
    picked.append(code)
    if len(picked) < RULES[m.game].kitty_size:
        return False
    cards = picked_mask(picked)
    push(m, seat, act.Discard(cards))
    picked.clear()
    return True


def action_of(space: ActionSpace, ids: Sequence[int]) -> JSON:
    """The engine/API action that ``ids`` make: one id, or the picks of a whole discard."""
    if len(ids) == 1 and space.records[ids[0]] is not None:
        return space.action(ids[0])
    return discard_action([space.cards[i - space.pick_start] for i in ids])


__all__ = [
    "GAMES",
    "JSON",
    "PICK",
    "ActionSpace",
    "Block",
    "action_of",
    "action_space",
    "apply_id",
    "auction_id",
    "discard_action",
    "discard_count",
    "legal_ids",
    "legal_ids_of_match",
    "move_id",
]
