"""What one seat knows, in the engine's fast form, and the trick-play reasoning every game shares.

The heuristic bot reads a seat's JSON view; the expert bot's playouts run thousands of
decisions on a ``Match`` and cannot afford to build a view each time. Both go through
``Seen``, built either from a view (``from_view``) or from a match *for one seat*
(``from_match``, which copies only what that seat may see, docs/rules.md ALL-7), so the
heuristics are written once and can never read a hidden card.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import engine
from engine import actions as act
from engine.cards import BIT, CARD_OF, JOKERS, cards_of, mask_of, suit_of
from engine.euchre5 import euchre_table
from engine.five_hundred import five_hundred_table
from engine.rough import rough_table
from engine.tricks import TrumpTable, trick_winner_index

JSON = dict[str, Any]
SUIT_LETTERS = "SCDH"
ROUGH_POINTS: tuple[int, ...] = tuple(
    {"A": 10, "T": 10, "5": 5}.get(code[0], 0) for code in engine.cards.CODES
)
"""RG-4 card points by card int (aces and tens 10, fives 5)."""


class Seen:
    """One seat's knowledge of the current hand (ALL-7): its cards plus the public record.

    ``bids``: the auction so far as action records (F5-8, RG-6, E5-5..E5-7); ``played``: every
    card played this hand, in finished tricks and in the current one; ``gone``: cards out of
    play that this seat knows of (its own discards, a turned-down upcard); ``partner``: euchre's
    maker's partner, when this seat knows it (E5-8); ``voids``: per seat, a mask of the effective
    suits (bits 0..4) it has shown it lacks. A plain class (not a dataclass): compiled, a
    dataclass's generated ``__init__`` stays interpreted, and every playout step makes one."""

    __slots__ = (
        "alone",
        "bids",
        "called",
        "dealer",
        "deck",
        "game",
        "gone",
        "hand",
        "leader",
        "level",
        "no_trump",
        "options",
        "partner",
        "phase",
        "played",
        "players",
        "scores",
        "seat",
        "table",
        "taker",
        "trick",
        "tricks",
        "trump",
        "upcard",
        "voids",
    )

    def __init__(
        self,
        *,
        game: str,
        seat: int,
        players: int,
        phase: str,
        dealer: int,
        hand: int,
        deck: int,
        bids: list[tuple[int, act.Action]],
        taker: int | None,
        level: int,
        trump: int | None,
        no_trump: bool,
        table: TrumpTable | None,
        leader: int,
        trick: list[int],
        played: int,
        tricks: list[tuple[int, tuple[int, ...], int]],
        scores: list[int],
        options: JSON,
        gone: int = 0,
        upcard: int | None = None,
        called: int | None = None,
        partner: int | None = None,
        alone: bool = False,
        voids: list[int] | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.players = players
        self.phase = phase
        self.dealer = dealer
        self.hand = hand
        self.deck = deck
        self.bids = bids
        self.taker = taker
        self.level = level
        self.trump = trump
        self.no_trump = no_trump
        self.table = table
        self.leader = leader
        self.trick = trick
        self.played = played
        self.tricks = tricks
        self.scores = scores
        self.options = options
        self.gone = gone
        self.upcard = upcard
        self.called = called
        self.partner = partner
        self.alone = alone
        self.voids: list[int] = voids if voids is not None else []

    def unseen(self) -> int:
        """Cards that may still be in other hands (or the kitty, or hidden discards)."""
        return self.deck & ~self.played & ~self.hand & ~self.gone

    def friends(self) -> int:
        """Seats (bitmask) on this seat's side as far as it knows (F5-2, RG-2, E5-10)."""
        if self.game != "euchre5":
            return 0b101 << (self.seat % 2)
        me = 1 << self.seat
        maker = self.taker
        if maker is None:
            return me
        if self.seat == maker:
            return me | (1 << self.partner if self.partner is not None else 0)
        if self.partner == self.seat:
            return me | 1 << maker
        # A defender: everybody but the maker and a known partner is on its side.
        out = (1 << self.players) - 1
        out &= ~(1 << maker)
        if self.partner is not None:
            out &= ~(1 << self.partner)
        return out

    def attacking(self) -> bool:
        """Is this seat on the side that fixed the contract?"""
        if self.taker is None:
            return False
        return bool(self.friends() & (1 << self.taker))


TABLE_500: dict[int | None, TrumpTable] = {t: five_hundred_table(t) for t in (0, 1, 2, 3, None)}
"""Le 500 trump tables by trump suit (None: no trump), built once (F5-4..F5-6)."""
TABLE_ROUGH: dict[int | None, TrumpTable] = {t: rough_table(t) for t in (0, 1, 2, 3, None)}
TABLE_EUCHRE: dict[int, TrumpTable] = {t: euchre_table(t) for t in range(4)}


def _table(game: str, trump: int | None, no_trump: bool) -> TrumpTable | None:
    if game == "five_hundred":
        return TABLE_500[None if no_trump else trump]
    if game == "rough":
        return TABLE_ROUGH[None if no_trump else trump]
    return TABLE_EUCHRE[trump] if trump is not None else None


def _voids(
    players: int,
    tricks: list[tuple[int, tuple[int, ...], int]],
    trick: list[int],
    leader: int,
    table: TrumpTable | None,
) -> list[int]:
    """Effective suits (ALL-5) each seat failed to follow: it holds none of them any more."""
    out = [0] * players
    if table is None:
        return out
    suit = table.suit
    for ld, cards, _ in [*tricks, (leader, tuple(trick), -1)]:
        if not cards:
            continue
        led = suit[cards[0]]
        for i in range(1, len(cards)):
            if suit[cards[i]] != led:
                out[(ld + i) % players] |= 1 << led
    return out


def from_view(view: JSON) -> Seen:
    """The seat's knowledge as given by ``engine.view`` (the only thing a bot receives)."""
    game = view["kind"]
    seat = view["seat"]
    players = view["players"]

    def mask(codes: Iterable[str]) -> int:
        return mask_of(CARD_OF[c] for c in codes)

    trump_name = view.get("trump")
    no_trump = trump_name == "NT"
    trump = SUIT_LETTERS.index(trump_name) if trump_name in ("S", "C", "D", "H") else None
    phase = view["phase"]
    table = _table(game, trump, no_trump) if phase == "play" and (trump is not None or no_trump) else None
    tricks = [(t["leader"], tuple(CARD_OF[c] for c in t["cards"]), t["winner"]) for t in view["tricks"]]
    current = view.get("current_trick") or []
    trick = [CARD_OF[t["card"]] for t in current]
    leader = current[0]["seat"] if current else (tricks[-1][2] if tricks else (view["dealer"] + 1) % players)
    contract = view.get("contract") or {}
    taker = contract.get("taker", contract.get("maker"))
    if game == "five_hundred":
        level = contract.get("tricks", 0)
    elif game == "rough":
        level = contract.get("points", 0)
    else:
        level = 0
    played = mask(c for t in view["tricks"] for c in t["cards"]) | mask_of(trick)
    gone = mask(view.get("my_discards") or [])
    upcard = CARD_OF[view["upcard"]] if view.get("upcard") else None
    if view.get("turned_down"):
        gone |= BIT[CARD_OF[view["turned_down"]]]
    called = contract.get("called_card")
    deck = engine.game(game).deck_mask
    return Seen(
        game=game,
        seat=seat,
        players=players,
        phase=phase,
        dealer=view["dealer"],
        hand=mask(view["hand"]),
        deck=deck,
        bids=[(b["seat"], engine.parse({k: v for k, v in b.items() if k != "seat"})) for b in view["bids"]],
        taker=taker,
        level=level,
        trump=trump,
        no_trump=no_trump,
        table=table,
        leader=leader,
        trick=trick,
        played=played,
        tricks=tricks,
        scores=list(view["scores"]),
        options=view["options"],
        gone=gone,
        upcard=upcard,
        called=CARD_OF[called] if called else None,
        partner=contract.get("partner"),
        alone=bool(contract.get("alone", False)),
        voids=_voids(players, tricks, trick, leader, table),
    )


def from_match(m: engine.Match, seat: int, voids: bool = False) -> Seen:
    """What ``seat`` knows of match ``m`` (for playouts): the same fields ``from_view`` fills."""
    up = m.kitty_dealt[0] if m.game == "euchre5" else None
    gone = m.discards if m.discarder == seat else 0
    upcard = None
    if up is not None:
        if m.phase in ("order", "exchange"):
            upcard = up
        elif m.phase == "name" or (m.trump is not None and m.trump != suit_of(up)):
            gone |= BIT[up]
    partner = m.partner if (m.revealed or m.partner == seat) else None
    return Seen(
        game=m.game,
        seat=seat,
        players=m.players,
        phase=m.phase,
        dealer=m.dealer,
        hand=m.hands[seat],
        deck=engine.game(m.game).deck_mask,
        bids=m.bids,
        taker=m.taker,
        level=m.level,
        trump=m.trump,
        no_trump=m.no_trump,
        table=m.table,
        leader=m.leader,
        trick=m.trick,
        played=m.played,
        tricks=m.tricks,
        scores=m.scores,
        options=m.options,
        gone=gone,
        upcard=upcard,
        called=m.called,
        partner=partner,
        alone=m.alone,
        voids=_voids(m.players, m.tricks, m.trick, m.leader, m.table) if voids else [0] * m.players,
    )


def highest_bid(s: Seen) -> tuple[int, int | None]:
    """The highest bid of the auction so far and its bidder: Le 500 bids by their F5-8 rank,
    Le Rough bids by points (RG-6); (0, None) before anybody bid."""
    best, who = 0, None
    for seat, b in s.bids:
        worth = b.rank if isinstance(b, act.TrickBid) else b.points if isinstance(b, act.PointBid) else 0
        if worth > best:
            best, who = worth, seat
    return best, who


def parse_legal(legal: list[JSON]) -> list[engine.Move]:
    """The legal actions' JSON as engine records (the discard template too)."""
    out: list[engine.Move] = []
    for a in legal:
        if a.get("type") == "discard" and "choices" in a:
            out.append(act.DiscardTemplate(int(a["count"]), mask_of(CARD_OF[c] for c in a["choices"])))
        else:
            out.append(engine.parse(a))
    return out


# ----- trick play (ALL-4, ALL-5) --------------------------------------------------------------


def key_in(table: TrumpTable, c: int) -> int:
    """Strength of a card within its own effective suit (trumps 100+)."""
    return table.win_key[table.suit[c]][c]


def beaten_by_unseen(s: Seen, table: TrumpTable, c: int, led: int) -> bool:
    """Could a card this seat has not seen beat ``c`` in a trick led in ``led``?"""
    keys = table.win_key[led]
    k = keys[c]
    rest = s.unseen()
    while rest:
        low = rest & -rest
        x = low.bit_length() - 1
        if keys[x] > k:
            return True
        rest ^= low
    return False


def is_boss(s: Seen, table: TrumpTable, c: int) -> bool:
    """The highest card left of its effective suit (counts the bowers and jokers played)."""
    return is_boss_among(table, s.unseen(), c)


def is_boss_among(table: TrumpTable, unseen: int, c: int) -> bool:
    """``is_boss`` given the mask of the cards the seat has not seen (``Seen.unseen``): what the
    observation vector (workers.bots.observe) computes without building a ``Seen``."""
    su = table.suit[c]
    keys = table.win_key[su]
    k = keys[c]
    rest = unseen & table.follow[su]
    while rest:
        low = rest & -rest
        if keys[low.bit_length() - 1] > k:
            return False
        rest ^= low
    return True


def suit_counts(table: TrumpTable, mask: int) -> list[int]:
    return [(mask & f).bit_count() for f in table.follow]


def winning(s: Seen, table: TrumpTable) -> tuple[int, int]:
    """Seat and card currently winning the trick in progress."""
    i = trick_winner_index(s.trick, table)
    return (s.leader + i) % s.players, s.trick[i]


def value(s: Seen, c: int) -> int:
    """What a card is worth in the tricks themselves (only Le Rough counts points, RG-4)."""
    return ROUGH_POINTS[c] if s.game == "rough" else 0


def dump(s: Seen, table: TrumpTable, legal: int, smear: bool) -> int:
    """A card given away: the cheapest one, or (smear, Rough) the richest one partner will win."""
    cards = cards_of(legal)
    counts = suit_counts(table, s.hand)
    trump = table.trump
    if smear and s.game == "rough":
        rich = [c for c in cards if ROUGH_POINTS[c] and not (trump & BIT[c] and key_in(table, c) > 100 + 7)]
        rich = [c for c in rich if not (c % 11 == 10 and is_boss(s, table, c) and not trump & BIT[c])] or rich
        if rich:
            return max(rich, key=lambda c: (ROUGH_POINTS[c], -key_in(table, c)))

    def cost(c: int) -> tuple[int, int, int, int]:
        is_trump = 1 if trump & BIT[c] else 0
        boss = 1 if is_boss(s, table, c) else 0
        return (is_trump, value(s, c), boss, key_in(table, c) * 8 + counts[table.suit[c]])

    return min(cards, key=cost)


def follow(s: Seen, table: TrumpTable, legal: int) -> int:
    """Win cheaply, duck when a friend already wins safely, otherwise throw the cheapest card."""
    led = table.suit[s.trick[0]]
    keys = table.win_key[led]
    wseat, wcard = winning(s, table)
    wkey = keys[wcard]
    last = len(s.trick) == s.players - 1
    friends = s.friends()
    cards = cards_of(legal)
    winners = [c for c in cards if keys[c] > wkey]
    if friends & (1 << wseat) and wseat != s.seat:
        safe = last or not beaten_by_unseen(s, table, wcard, led)
        if safe or not winners:
            return dump(s, table, legal, smear=safe)
        # A friend wins for now but may be overtaken: take over only with a sure card.
        sure = [c for c in winners if not beaten_by_unseen(s, table, c, led)]
        if sure and (s.game != "rough" or not table.trump & BIT[sure[0]] or _trick_points(s) >= 10):
            return min(sure, key=lambda c: keys[c])
        return dump(s, table, legal, smear=False)
    if winners:
        if last:
            return min(winners, key=lambda c: (value(s, c) if s.game != "rough" else 0, keys[c]))
        sure = [c for c in winners if not beaten_by_unseen(s, table, c, led)]
        if sure:
            return min(sure, key=lambda c: keys[c])
        # Not sure to hold: trump low only when the trick is worth it, else duck (second hand low).
        cheap = min(winners, key=lambda c: keys[c])
        if s.game == "rough" and _trick_points(s) == 0 and len(s.trick) == 1:
            return dump(s, table, legal, smear=False)
        return cheap
    return dump(s, table, legal, smear=False)


def _trick_points(s: Seen) -> int:
    return sum(ROUGH_POINTS[c] for c in s.trick) if s.game == "rough" else 0


def lead(s: Seen, table: TrumpTable, legal: int) -> int:
    """Draw trumps with a sure trump when attacking, else cash a sure side card, else lead low."""
    cards = cards_of(legal)
    trump = table.trump
    unseen = s.unseen()
    mine_trump = [c for c in cards if trump & BIT[c]]
    side = [c for c in cards if not trump & BIT[c]]
    if mine_trump and unseen & trump and s.attacking():
        top = max(mine_trump, key=lambda c: key_in(table, c))
        if is_boss(s, table, top):
            return top
        if len(mine_trump) >= 3:
            return top  # force out the higher trump still out, keep the rest
        if len(mine_trump) >= (unseen & trump).bit_count():
            return min(mine_trump, key=lambda c: key_in(table, c))
    bosses = [c for c in side if is_boss(s, table, c)]
    if bosses:
        return max(bosses, key=lambda c: (value(s, c), key_in(table, c)))
    if side:
        counts = suit_counts(table, s.hand)

        def low(c: int) -> tuple[int, int, int]:
            return (value(s, c), -counts[table.suit[c]], key_in(table, c))

        return min(side, key=low)
    return min(mine_trump, key=lambda c: key_in(table, c))


def play(s: Seen, legal: int) -> int:
    """The card to play once trump is known (all three games)."""
    table = s.table
    assert table is not None
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if not s.trick:
        return lead(s, table, legal)
    return follow(s, table, legal)


def jokers_in(mask: int) -> int:
    return sum(1 for j in JOKERS if mask & BIT[j])
