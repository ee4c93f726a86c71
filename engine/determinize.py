"""Sample a full match consistent with one seat's view (for search bots over hidden cards).

A search bot sees only ``view(m, seat)`` (docs/rules.md ALL-7). To look ahead it needs whole
deals that *could* be the real one: ``sample_match(view, rng)`` places every card the
seat has not seen into the places it cannot see (other hands, the kitty, hidden
discards) so that

- the seat's own hand, every card played, its own discards stay where they are;
- hand sizes, the kitty's size and the hidden discards' size are the real ones;
- a seat that failed to follow an effective suit (ALL-4, ALL-5: bowers and jokers are
  trump, F5-7 a led joker calls for trump) holds no card of it;
- euchre: the upcard is where it must be (E5-3, E5-5: in the kitty unless the dealer
  took it), the called card is not in the maker's hand (E5-7) and the partner known to
  this seat is the real one (E5-8);

then it *replays* the hand's public history (bids, the discard or exchange, the tricks)
from that deal through the engine itself, so every internal field is exactly what the
rules make of it and ``view(sample, seat) == view``. The sample is a plain ``Match``:
legal to play on to the end. Sampling is not exactly uniform over consistent deals
(the search does not need it to be), but any consistent deal can come out.
"""

from __future__ import annotations

import random
from typing import Any, Final

from .actions import Discard, Exchange, Play
from .api import game, push
from .base import Game
from .cards import BIT, CARD_OF, CODES, cards_of, mask_of, suit_of
from .euchre5 import euchre_table
from .fair import key_of_int
from .five_hundred import five_hundred_table
from .match import LastHand, Match
from .rough import rough_table
from .tricks import TrumpTable

JSON = dict[str, Any]

KITTY: Final = -1
"""Place of the cards still in the kitty."""
HIDDEN_DISCARDS: Final = -2
"""Place of another seat's face-down discards (F5-10, RG-10, E5-5)."""

ATTEMPTS: Final = 50


def sample_match(view: JSON, rng: random.Random) -> Match:
    """A full match in which ``view["seat"]`` sees exactly ``view``; hidden cards drawn with ``rng``.

    ``view`` must be a seated player's view of a match that is not over.
    """
    seat = view.get("seat")
    if not isinstance(seat, int):
        raise ValueError("sample_match needs a seated player's view, not a spectator's")
    if view["phase"] == "over":
        raise ValueError("the match is over: there is nothing hidden left to sample")
    last: ValueError | None = None
    for _ in range(ATTEMPTS):
        try:
            return _Sampler(view, seat, rng).build()
        except _Retry as e:
            last = ValueError(str(e))
    raise last or ValueError("no consistent deal found")


class _Retry(Exception):
    """A random choice (the euchre upcard's place) left no consistent deal: draw again."""


def _mask(codes: list[str]) -> int:
    return mask_of(CARD_OF[c] for c in codes)


def _table(game_id: str, trump: str | None) -> TrumpTable | None:
    if trump is None:
        return None
    if game_id == "five_hundred":
        return five_hundred_table(None if trump == "NT" else "SCDH".index(trump))
    if game_id == "rough":
        return rough_table(None if trump == "NT" else "SCDH".index(trump))
    return euchre_table("SCDH".index(trump))


class _Sampler:
    def __init__(self, view: JSON, seat: int, rng: random.Random) -> None:
        self.view, self.seat, self.rng = view, seat, rng
        self.g: Game = game(view["kind"])
        self.n = self.g.players
        self.phase: str = view["phase"]
        self.contract: JSON = view.get("contract") or {}
        self.taker: int | None = self.contract.get("taker", self.contract.get("maker"))
        self.tricks: list[JSON] = view["tricks"]
        self.current: list[JSON] = view.get("current_trick") or []
        # Cards each seat has played this hand, in order.
        self.played_by: list[int] = [0] * self.n
        for t in self.tricks:
            for i, code in enumerate(t["cards"]):
                self.played_by[(t["leader"] + i) % self.n] |= BIT[CARD_OF[code]]
        for p in self.current:
            self.played_by[p["seat"]] |= BIT[CARD_OF[p["card"]]]
        self.played = 0
        for mask in self.played_by:
            self.played |= mask
        self.hand = _mask(view["hand"])
        self.my_discards = _mask(view.get("my_discards") or [])

    # ----- constraints -------------------------------------------------------------------------
    def void_suits(self) -> list[int]:
        """Per seat, the effective suits (bits) it showed it lacks by not following (ALL-4)."""
        out = [0] * self.n
        if self.phase != "play":
            return out
        table = _table(self.g.id, self.view.get("trump"))
        if table is None:
            return out
        tricks = [(t["leader"], [CARD_OF[c] for c in t["cards"]]) for t in self.tricks]
        if self.current:
            tricks.append((self.current[0]["seat"], [CARD_OF[p["card"]] for p in self.current]))
        for leader, cards in tricks:
            led = table.suit[cards[0]]
            for i in range(1, len(cards)):
                if table.suit[cards[i]] != led:
                    out[(leader + i) % self.n] |= 1 << led
        return out

    # ----- the deal ----------------------------------------------------------------------------
    def build(self) -> Match:
        g, view, seat, n = self.g, self.view, self.seat, self.n
        sizes: list[int] = view["hand_sizes"]
        unknown = g.deck_mask & ~self.hand & ~self.played & ~self.my_discards
        forced: dict[int, int] = {}  # card -> place it must go to
        banned: dict[int, set[int]] = {}  # card -> places it may not go to
        capacity: dict[int, int] = {s: sizes[s] for s in range(n) if s != seat}
        kitty_now = 0  # cards of the kitty still in it, known to this seat
        discarded = self.my_discards
        upcard: int | None = None
        exchanged = False
        taken_kitty = self.taker is not None and g.id != "euchre5" and self.phase != "bidding"
        if g.id == "euchre5":
            called = self.contract.get("called_card")
            if called is not None and self.taker is not None and self.taker != seat:
                c = CARD_OF[called]
                if unknown & BIT[c]:
                    banned.setdefault(c, set()).add(self.taker)  # E5-7: not in the maker's hand
            upcard, exchanged = self.euchre_upcard(unknown, forced, banned)
            capacity[KITTY] = 2
            if exchanged and seat != view["dealer"]:
                capacity[HIDDEN_DISCARDS] = 1
        else:
            if not taken_kitty:
                capacity[KITTY] = g.kitty_size
            elif self.phase != "discard" and self.taker != seat:
                capacity[HIDDEN_DISCARDS] = g.kitty_size
        if upcard is not None and unknown & BIT[upcard]:
            unknown &= ~BIT[upcard]
            place = forced.pop(upcard)
            if place == KITTY:
                kitty_now |= BIT[upcard]
            else:
                capacity[place] -= 1
                if capacity[place] < 0:
                    raise _Retry("the upcard does not fit in the dealer's hand")
                forced[upcard] = place
        voids = self.void_suits()
        table = _table(g.id, view.get("trump")) if self.phase == "play" else None
        for c, place in forced.items():
            if table is not None and voids[place] >> table.suit[c] & 1:
                raise _Retry("the dealer has shown he holds no trump: he cannot hold the upcard")
        places = self.assign(unknown, capacity, voids, table, banned)
        hands = [0] * n
        hands[seat] = self.hand
        for c, place in places.items():
            if place >= 0:
                hands[place] |= BIT[c]
            elif place == KITTY:
                kitty_now |= BIT[c]
            else:
                discarded |= BIT[c]
        for c, place in forced.items():
            hands[place] |= BIT[c]
        return self.replay(hands, kitty_now, discarded, upcard, exchanged, taken_kitty)

    def euchre_upcard(
        self, unknown: int, forced: dict[int, int], banned: dict[int, set[int]]
    ) -> tuple[int, bool]:
        """Which card the upcard is (E5-3, E5-5, E5-6) and whether the dealer took it.

        A hidden upcard is put in ``forced`` with its place: the kitty, or the dealer's hand.
        """
        view, dealer = self.view, self.view["dealer"]
        shown = view.get("upcard") or view.get("turned_down")
        if shown is not None:  # face up, or turned down: in the kitty either way
            up = CARD_OF[shown]
            forced[up] = KITTY
            return up, False
        up = CARD_OF[view["upcard_dealt"]]
        if view["upcard_taken"] is False:  # ordered up, the dealer kept his hand (E5-5)
            forced[up] = KITTY
            return up, False
        if view["upcard_taken"] is True:  # the dealer took it (E5-5)
            if unknown & BIT[up]:
                forced[up] = dealer
            return up, True
        # (Views without ``upcard_taken``.) Ordered up in round 1: the upcard is a card of
        # trump's natural suit, in the kitty if the dealer declined the exchange, else his.
        trump = "SCDH".index(view["trump"])
        natural = [c for c in self.g.deck if suit_of(c) == trump]
        if self.seat == dealer:
            if self.my_discards:
                mine = [c for c in natural if (self.hand | self.played_by[dealer]) & BIT[c]]
                return self.rng.choice(mine), True
            options = [c for c in natural if unknown & BIT[c]]
            up = self.rng.choice(options)
            forced[up] = KITTY
            return up, False
        took_played = [c for c in natural if self.played_by[dealer] & BIT[c]]
        hidden = [c for c in natural if unknown & BIT[c]]
        if self.rng.random() < 0.85 and (took_played or hidden):
            pick = self.rng.randrange(len(took_played) + len(hidden))
            if pick < len(took_played):
                return took_played[pick], True
            up = hidden[pick - len(took_played)]
            if dealer in banned.get(up, set()):
                raise _Retry("the called card cannot be the dealer-maker's upcard")
            forced[up] = dealer
            return up, True
        if not hidden:
            raise _Retry("no hidden card can be the upcard left in the kitty")
        up = self.rng.choice(hidden)
        forced[up] = KITTY
        return up, False

    def assign(
        self,
        unknown: int,
        capacity: dict[int, int],
        voids: list[int],
        table: TrumpTable | None,
        banned: dict[int, set[int]],
    ) -> dict[int, int]:
        """Place each unknown card so every place is full and no constraint is broken.

        Greedy random dealing, most constrained card first, weighted by free room; when a
        card has nowhere to go an augmenting path moves earlier cards (bipartite matching),
        so a consistent deal is always found when one exists.
        """
        cards = cards_of(unknown)
        total = sum(capacity.values())
        if total != len(cards):
            raise ValueError(f"view is inconsistent: {len(cards)} hidden cards for {total} hidden places")
        allowed: dict[int, list[int]] = {}
        for c in cards:
            eff = table.suit[c] if table is not None else -1
            ok = []
            for place, room in capacity.items():
                if room <= 0:
                    continue
                if place >= 0 and eff >= 0 and voids[place] >> eff & 1:
                    continue
                if place in banned.get(c, ()):
                    continue
                ok.append(place)
            if not ok:
                raise _Retry(f"{CODES[c]} fits nowhere")
            allowed[c] = ok
        self.rng.shuffle(cards)
        cards.sort(key=lambda c: len(allowed[c]))
        members: dict[int, list[int]] = {p: [] for p in capacity}
        where: dict[int, int] = {}
        for c in cards:
            free = [p for p in allowed[c] if len(members[p]) < capacity[p]]
            if free:
                weights = [capacity[p] - len(members[p]) for p in free]
                p = self.rng.choices(free, weights)[0]
                members[p].append(c)
                where[c] = p
                continue
            self.augment(c, allowed, capacity, members, where)
        return where

    def augment(
        self,
        c: int,
        allowed: dict[int, list[int]],
        capacity: dict[int, int],
        members: dict[int, list[int]],
        where: dict[int, int],
    ) -> None:
        """Breadth-first search for a chain of moves that frees room for ``c``."""
        parent: dict[int, tuple[int, int | None]] = {}  # place -> (card moved in, place it left)
        frontier = []
        for p in allowed[c]:
            parent[p] = (c, None)
            frontier.append(p)
        while frontier:
            nxt = []
            for p in frontier:
                if len(members[p]) < capacity[p]:
                    # Walk back: each card moves into the place recorded for it.
                    place: int | None = p
                    while place is not None:
                        card_in, came_from = parent[place]
                        if came_from is not None:
                            members[came_from].remove(card_in)
                        members[place].append(card_in)
                        where[card_in] = place
                        place = came_from
                    return
                for d in members[p]:
                    for q in allowed[d]:
                        if q not in parent:
                            parent[q] = (d, p)
                            nxt.append(q)
            frontier = nxt
        raise _Retry(f"no room for {CODES[c]}")

    # ----- replay the public history on the sampled deal ----------------------------------------
    def replay(
        self,
        hands: list[int],
        kitty_now: int,
        discarded: int,
        upcard: int | None,
        exchanged: bool,
        taken_kitty: bool,
    ) -> Match:
        g, view, n = self.g, self.view, self.n
        dealer: int = view["dealer"]
        held = [hands[s] | self.played_by[s] for s in range(n)]  # what each seat had after the kitty
        if g.id == "euchre5":
            assert upcard is not None
            if exchanged:
                assert discarded.bit_count() == 1
                held[dealer] = (held[dealer] & ~BIT[upcard]) | discarded
            rest = cards_of(kitty_now & ~BIT[upcard])
            self.rng.shuffle(rest)
            kitty = [upcard, *rest]
        elif taken_kitty:
            taker = self.taker
            assert taker is not None
            pool = cards_of(held[taker] | discarded)
            known = view.get("kitty_taken")  # the taker saw the kitty he picked up
            kitty = [CARD_OF[c] for c in known] if known else self.rng.sample(pool, g.kitty_size)
            held[taker] = (held[taker] | discarded) & ~mask_of(kitty)
        else:
            kitty = cards_of(kitty_now)
            self.rng.shuffle(kitty)
        # The sampled deal is a partition of the deck by construction: dealt as masks, without the
        # card codes and checks of a deal given from outside (``Game.parse_deal``, ALL-3).
        m = g.new_match(key_of_int(self.rng.getrandbits(32)), view["options"], None, wait=True)
        g.start_hand(m, dealer, (held, tuple(kitty)))
        m.scores = list(view["scores"])
        m.hand_number = view["hand_number"]
        m.prev = LastHand.from_json(view["last_hand"]) if view.get("last_hand") else None
        for b in view["bids"]:
            action = {k: v for k, v in b.items() if k != "seat"}
            if m.phase == "exchange":
                push(m, dealer, Exchange(cards_of(discarded)[0]) if exchanged else {"type": "pass"})
            push(m, b["seat"], action)
        if m.phase == "exchange" and self.phase != "exchange":
            push(m, dealer, Exchange(cards_of(discarded)[0]) if exchanged else {"type": "pass"})
        if m.phase == "discard" and self.phase != "discard":
            assert self.taker is not None
            push(m, self.taker, Discard(discarded))
        first = True
        plays = [(t["leader"], t["cards"]) for t in self.tricks]
        if self.current:
            plays.append((self.current[0]["seat"], [p["card"] for p in self.current]))
        for leader, codes in plays:
            for i, code in enumerate(codes):
                no_trump = first and g.id == "rough" and view.get("trump") == "NT"
                push(m, (leader + i) % n, Play(CARD_OF[code], no_trump))
                first = False
        m.log = []
        if m.phase != self.phase or m.to_act != view["to_act"]:
            raise ValueError("the view's history does not replay to the same position")
        return m


__all__ = ["sample_match"]
