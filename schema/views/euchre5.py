"""Five-handed euchre's view (``game: euchre5``): its bidding (order up, name trump, call a partner,
go alone), contract, hand result, rule options and upcard, on top of what every game's view holds
(``common.ViewCommon``). One module per game, named as the engine's (engine/euchre5.py), so that
what a game shows is found by the game's name.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schema.actions import CARD
from schema.views.common import (
    Deal,
    PerTeamOrSeat,
    Seat,
    SeatedCallPartner,
    SeatedGoAlone,
    SeatedNameTrump,
    SeatedOrderUp,
    SeatedPass,
    Shown,
    Suit,
    ViewCommon,
)

EuchreBidEntry = Annotated[
    SeatedPass | SeatedOrderUp | SeatedNameTrump | SeatedCallPartner | SeatedGoAlone,
    Field(discriminator="type"),
]


class EuchreContract(Shown):
    maker: Seat
    trump: Suit | None
    called_card: CARD | None = Field(description="The card the maker called to find a partner (E5-8).")
    alone: bool
    partner: Seat | None = Field(description="Shown to everyone once revealed, and to the partner at once.")


class EuchreHandResult(Shown):
    hand_number: int
    maker: Seat
    partner: Seat | None
    called: CARD | None
    alone: bool
    attackers: list[Seat]
    attacker_tricks: int
    points: PerTeamOrSeat
    scores: PerTeamOrSeat
    deal: Deal


class EuchreOptions(Shown):
    lone_march_points: int
    target_score: int


class EuchreView(ViewCommon):
    kind: Literal["euchre5"]
    phase: Literal["waiting", "order", "exchange", "name", "call", "play", "over"]
    options: EuchreOptions
    bids: list[EuchreBidEntry]
    contract: EuchreContract | None
    trump: Suit | None
    last_hand: EuchreHandResult | None
    upcard: CARD | None = Field(default=None, description="The upcard while it lies face up (E5-3).")
    upcard_dealt: CARD | None = Field(default=None, description="This hand's upcard.")
    turned_down: CARD | None = Field(default=None, description="The upcard once turned down (E5-6).")
    upcard_taken: bool | None = Field(default=None, description="Whether the dealer took the upcard (E5-5).")
