"""Le Rough's view (``game: rough``): its bidding, contract, hand result and rule options, on top of
what every game's view holds (``common.ViewCommon``). One module per game, named as the engine's
(engine/rough.py), so that what a game shows is found by the game's name.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schema.actions import CARD
from schema.views.common import (
    PLAYED,
    ContractHandResult,
    Denomination,
    PerTeamOrSeat,
    Seat,
    SeatedBid,
    SeatedKeep,
    SeatedPass,
    Shown,
    ViewCommon,
)

RoughBidEntry = Annotated[SeatedPass | SeatedBid | SeatedKeep, Field(discriminator="type")]


class RoughContract(Shown):
    taker: Seat
    points: int = Field(ge=70, le=100)


class RoughHandResult(ContractHandResult):
    card_points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class RoughOptions(Shown):
    dealer_may_open: bool
    floor_loses: bool
    target_score: int


class RoughView(ViewCommon):
    kind: Literal["rough"]
    phase: Literal["waiting", "bidding", "discard", "play", "over"]
    options: RoughOptions
    bids: list[RoughBidEntry]
    contract: RoughContract | None
    trump: Denomination | None
    last_hand: RoughHandResult | None
    kitty_taken: list[CARD] | None = Field(default=None, description="The kitty, to the taker who took it.")
    trick_points: list[int] | None = Field(default=None, description="Card points taken so far, per team.")
