"""The state of a match: one mutable record the engine copies before it changes it.

The public ``apply`` never mutates: it copies and pushes. The copy is cheap because
everything a step replaces (tuples, the last hand's record, the options) is shared and
only the few lists a step edits in place are copied.
"""

from __future__ import annotations

from typing import Any, Final

from .actions import Action
from .cards import CARD_OF, CODES, Record, codes_of, mask_of
from .tricks import TrumpTable

JSON = dict[str, Any]

PLAYED: Final = 1
TRICK: Final = 2
DEALT: Final = 3
HAND_SCORED: Final = 4
BID: Final = 5


class LastHand(Record):
    """A scored hand: its result and its deal record, which become public (ALL-7). Never changed
    once made. A plain class, not a dataclass: compiled, a dataclass's generated ``__init__`` stays
    interpreted, and one of these is made every hand."""

    __match_args__ = (
        "hand_number",
        "result",
        "dealer",
        "dealt",
        "kitty",
        "discards",
        "discarder",
        "tricks",
        "scores",
    )
    """The constructor's arguments in order: how it pickles and copies (``Record``)."""
    __slots__ = (
        "dealer",
        "dealt",
        "discarder",
        "discards",
        "hand_number",
        "kitty",
        "result",
        "scores",
        "tricks",
    )

    def __init__(
        self,
        hand_number: int,
        result: JSON,
        dealer: int,
        dealt: tuple[int, ...],
        kitty: tuple[int, ...],
        discards: int,
        discarder: int | None,
        tricks: tuple[tuple[int, tuple[int, ...], int], ...],
        scores: tuple[int, ...],
    ) -> None:
        self.hand_number = hand_number
        self.result = result
        self.dealer = dealer
        self.dealt = dealt
        self.kitty = kitty
        self.discards = discards
        self.discarder = discarder
        self.tricks = tricks
        self.scores = scores

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LastHand) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def to_json(self) -> JSON:
        return {
            "hand_number": self.hand_number,
            **self.result,
            "deal": {
                "dealer": self.dealer,
                "hands": [codes_of(h) for h in self.dealt],
                "kitty": [CODES[c] for c in self.kitty],
                "discards": codes_of(self.discards),
                "discarder": self.discarder,
                "tricks": [
                    {"leader": ld, "cards": [CODES[c] for c in cs], "winner": w} for ld, cs, w in self.tricks
                ],
            },
            "scores": list(self.scores),
        }

    @staticmethod
    def from_json(d: JSON) -> LastHand:
        deal = d["deal"]
        result = {k: v for k, v in d.items() if k not in ("hand_number", "deal", "scores")}
        return LastHand(
            d["hand_number"],
            result,
            deal["dealer"],
            tuple(mask_of(CARD_OF[c] for c in h) for h in deal["hands"]),
            tuple(CARD_OF[c] for c in deal["kitty"]),
            mask_of(CARD_OF[c] for c in deal["discards"]),
            deal["discarder"],
            tuple((t["leader"], tuple(CARD_OF[c] for c in t["cards"]), t["winner"]) for t in deal["tricks"]),
            tuple(d["scores"]),
        )


def render_event(e: JSON | tuple[Any, ...]) -> JSON:
    """Turn a compact log entry into its JSON event (events are built only when read)."""
    if isinstance(e, dict):
        return e
    kind = e[0]
    if kind == PLAYED:
        return {"type": "play", "seat": e[1], "card": CODES[e[2]]}
    if kind == TRICK:
        return {"type": "trick", "leader": e[1], "cards": [CODES[c] for c in e[2]], "winner": e[3]}
    if kind == DEALT:
        return {"type": "dealt", "seat": e[1], "cards": codes_of(e[2]), "visible_to": [e[1]]}
    if kind == BID:
        return {"type": "bid", "seat": e[1], "action": e[2].to_json()}
    assert kind == HAND_SCORED
    return {"type": "hand_scored", **e[1].to_json()}


class Match:
    """A whole match, hand after hand, to the target score.

    Cards are ints and sets of cards are bitmasks (``engine.cards``). Fields named in
    the game's own words: ``taker`` (Le 500 / Rough) or ``maker`` (euchre) is
    ``taker`` here, the team or player that fixed the contract.
    """

    __slots__ = (
        "alone",
        "bids",
        "called",
        "client_seeds",
        "dealer",
        "dealt",
        "discarder",
        "discards",
        "game",
        "hand_number",
        "hands",
        "high_bid",
        "high_bidder",
        "key",
        "kitty",
        "kitty_dealt",
        "leader",
        "level",
        "log",
        "no_trump",
        "options",
        "partner",
        "phase",
        "played",
        "players",
        "prev",
        "revealed",
        "scores",
        "seeded",
        "table",
        "taker",
        "to_act",
        "trick",
        "tricks",
        "tricks_won",
        "trump",
        "turns",
        "winners",
    )

    game: str
    options: JSON
    key: bytes
    """The match key K (engine.fair): secret until the match is over, never in a view (ALL-7)."""
    client_seeds: tuple[str, ...]
    """Each seat's client seed ("" for none), mixed into every hand's seed."""
    seeded: bool
    """The current hand was shuffled from its seed (False for an explicit deal, or before the start)."""
    players: int
    hand_number: int
    dealer: int
    phase: str
    to_act: int | None
    hands: list[int]
    dealt: list[int]
    kitty: int
    kitty_dealt: tuple[int, ...]
    discards: int
    discarder: int | None
    bids: list[tuple[int, Action]]
    high_bid: int
    high_bidder: int | None
    turns: int
    taker: int | None
    trump: int | None
    level: int
    no_trump: bool
    called: int | None
    partner: int | None
    alone: bool
    revealed: bool
    leader: int
    trick: list[int]
    tricks: list[tuple[int, tuple[int, ...], int]]
    tricks_won: list[int]
    played: int
    scores: list[int]
    prev: LastHand | None
    """The hand just scored, kept as its raw parts and rendered only when asked for."""
    winners: list[int] | None
    log: list[JSON | tuple[Any, ...]]
    """What the last step caused: event dicts, or compact tuples for the frequent ones."""
    table: TrumpTable | None
    """Set exactly while cards are being played with trump known; the fast paths test it."""

    def copy(self) -> Match:
        """A copy that shares what a step replaces and copies the lists a step edits in place.
        Field by field (no loop over ``__slots__``): compiled, each line is one native store.
        tests/engine/test_properties.py checks every slot is copied."""
        other = Match.__new__(Match)
        other.alone = self.alone
        other.called = self.called
        other.client_seeds = self.client_seeds
        other.dealer = self.dealer
        other.discarder = self.discarder
        other.discards = self.discards
        other.game = self.game
        other.hand_number = self.hand_number
        other.high_bid = self.high_bid
        other.high_bidder = self.high_bidder
        other.key = self.key
        other.kitty = self.kitty
        other.kitty_dealt = self.kitty_dealt
        other.leader = self.leader
        other.level = self.level
        other.no_trump = self.no_trump
        other.options = self.options
        other.partner = self.partner
        other.phase = self.phase
        other.played = self.played
        other.players = self.players
        other.prev = self.prev
        other.revealed = self.revealed
        other.seeded = self.seeded
        other.table = self.table
        other.taker = self.taker
        other.to_act = self.to_act
        other.trump = self.trump
        other.turns = self.turns
        other.hands = self.hands[:]
        other.dealt = self.dealt[:]
        other.bids = self.bids[:]
        other.trick = self.trick[:]
        other.tricks = self.tricks[:]
        other.tricks_won = self.tricks_won[:]
        other.scores = self.scores[:]
        other.log = []
        other.winners = self.winners[:] if self.winners is not None else None
        return other

    def __getstate__(self) -> JSON:
        """Every field by name: how a match pickles and deep-copies (issue 36). Written here, not
        left to each build's default (mypyc's dict of fields, Python's pair for ``__slots__``), so
        that both builds write the same pickle and each loads the other's."""
        return {name: getattr(self, name) for name in _FIELDS}

    def __setstate__(self, state: JSON) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    @property
    def events(self) -> list[JSON]:
        """The public (and seat-private, see ``visible_to``) events of the last step."""
        return [render_event(e) for e in self.log]

    @property
    def last_hand(self) -> JSON | None:
        """The result and full deal record of the hand just scored, public (ALL-7)."""
        return self.prev.to_json() if self.prev is not None else None

    @property
    def over(self) -> bool:
        return self.winners is not None

    def __repr__(self) -> str:
        return (
            f"<Match {self.game} hand {self.hand_number} phase {self.phase} "
            f"to_act {self.to_act} scores {self.scores}>"
        )


_FIELDS: Final[tuple[str, ...]] = tuple(vars(Match).get("__slots__") or vars(Match)["__mypyc_attrs__"])
"""The fields of a match: its ``__slots__``, which mypyc keeps as ``__mypyc_attrs__`` when compiled."""
