"""The state of a match: one mutable record the engine copies before it changes it.

The public ``apply`` never mutates: it copies and pushes. The copy is cheap because
everything a step replaces (tuples, the last hand's record, the options) is shared and
only the few lists a step edits in place are copied.
"""

from __future__ import annotations

from typing import Any

from .tricks import TrumpTable

JSON = dict[str, Any]


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
        "dealer",
        "dealt",
        "discarder",
        "discards",
        "events",
        "game",
        "hand_number",
        "hands",
        "high_bid",
        "high_bidder",
        "kitty",
        "kitty_dealt",
        "last_hand",
        "leader",
        "level",
        "no_trump",
        "options",
        "partner",
        "phase",
        "played",
        "players",
        "revealed",
        "scores",
        "seed",
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
    seed: int
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
    bids: list[tuple[int, JSON]]
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
    last_hand: JSON | None
    winners: list[int] | None
    events: list[JSON]
    table: TrumpTable | None

    def copy(self) -> Match:
        other = Match.__new__(Match)
        for name in Match.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = self.hands[:]
        other.dealt = self.dealt[:]
        other.bids = self.bids[:]
        other.trick = self.trick[:]
        other.tricks = self.tricks[:]
        other.tricks_won = self.tricks_won[:]
        other.scores = self.scores[:]
        other.events = []
        if self.winners is not None:
            other.winners = self.winners[:]
        return other

    @property
    def over(self) -> bool:
        return self.winners is not None

    def __repr__(self) -> str:
        return (
            f"<Match {self.game} hand {self.hand_number} phase {self.phase} "
            f"to_act {self.to_act} scores {self.scores}>"
        )
