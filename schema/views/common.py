"""What the three games' views and the events share: the field types (a seat, a suit, a score per
team or seat), the ``Shown`` base (every field declared), the table (tricks, a finished deal), the
bids with their seat, the contract games' hand result and ``ViewCommon``, what every game's view
holds. Apart because each game's view (``five_hundred``, ``rough``, ``euchre5``) and the events
(``events``) build on them: defined once here, they import nothing from one another.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from schema.actions import (
    CARD,
    BidAction,
    CallPartnerAction,
    GoAloneAction,
    KeepAction,
    NameTrumpAction,
    OrderUpAction,
    PassAction,
)

Seat = Annotated[int, Field(ge=0, le=4, description="A seat number, 0 to players - 1 (ALL-1).")]
Suit = Literal["S", "C", "D", "H"]
Denomination = Literal["S", "C", "D", "H", "NT"]
PerTeamOrSeat = Annotated[
    list[int], Field(description="One number per team (Le 500, Le Rough) or per seat (euchre).")
]


class Shown(BaseModel):
    """What the server shows: every field declared."""

    model_config = ConfigDict(extra="forbid")


# --- the table ---------------------------------------------------------------------------


class TrickCard(Shown):
    seat: Seat
    card: CARD


class Trick(Shown):
    """A finished trick: who led, the cards in the order played, who took it (ALL-4)."""

    leader: Seat
    cards: list[CARD]
    winner: Seat


class Deal(Shown):
    """A finished hand's whole deal, revealed once it is scored (ALL-7)."""

    dealer: Seat
    hands: list[list[CARD]]
    kitty: list[CARD]
    discards: list[CARD]
    discarder: Seat | None
    tricks: list[Trick]


# --- bids, as the view and the events show them: the action and, in the view, its seat ----------


class SeatedPass(PassAction):
    seat: Seat


class SeatedBid(BidAction):
    seat: Seat


class SeatedKeep(KeepAction):
    seat: Seat


class SeatedOrderUp(OrderUpAction):
    seat: Seat


class SeatedNameTrump(NameTrumpAction):
    seat: Seat


class SeatedCallPartner(CallPartnerAction):
    seat: Seat


class SeatedGoAlone(GoAloneAction):
    seat: Seat


# --- a contract game's hand result (Le 500, Le Rough), as the view and ``hand_scored`` show it ---


class BidOfHand(Shown):
    """The contract as a hand's result recalls it."""

    tricks: int | None = None
    suit: Denomination | None = None
    points: int | None = None


VOID_HAND = (
    "True when nobody took a contract (F5-9, RG-8): the hand was not played and the deal moved on; "
    "then only hand_number, void, scores and deal are given. Absent (GraphQL: null) otherwise."
)
PLAYED = "Absent (GraphQL: null) when the hand was void."


class ContractHandResult(Shown):
    """A Le 500 or Le Rough hand's result: a contract played, or a void hand nobody took."""

    hand_number: int
    void: bool | None = Field(default=None, description=VOID_HAND)
    taker: Seat | None = Field(default=None, description=PLAYED)
    contract: BidOfHand | None = Field(default=None, description=PLAYED)
    made: bool | None = Field(default=None, description=PLAYED)
    points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)
    scores: PerTeamOrSeat
    deal: Deal


# --- the view ---------------------------------------------------------------------------------


class ViewCommon(Shown):
    """What every game's view holds: the seat's own cards only (ALL-7), the public table."""

    phase: str
    to_act: Seat | None = Field(description="The seat to act; null once the match is over.")
    seat: Seat | None = Field(description="The seat this view is for; null for a spectator.")
    players: int = Field(ge=4, le=5)
    dealer: Seat
    hand_number: int
    hand: list[CARD] = Field(description="The seat's own cards, sorted for display; empty for a spectator.")
    hand_sizes: list[int] = Field(description="How many cards each seat holds.")
    current_trick: list[TrickCard]
    tricks: list[Trick] = Field(description="This hand's finished tricks.")
    tricks_won: list[int] = Field(description="Tricks taken this hand, per seat.")
    scores: PerTeamOrSeat
    winners: list[Seat] | None = Field(description="The winning seats once the match is over.")
    my_discards: list[CARD] | None = Field(
        default=None, description="The taker's own discards (F5-10, RG-10)."
    )
