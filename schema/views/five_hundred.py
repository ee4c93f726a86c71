"""Le 500's view (``game: five_hundred``): its bidding, contract, hand result and rule options, on
top of what every game's view holds (``common.ViewCommon``). One module per game, named as the
engine's (engine/five_hundred.py), so that what a game shows is found by the game's name.
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
    SeatedPass,
    Shown,
    ViewCommon,
)

FiveHundredBidEntry = Annotated[SeatedPass | SeatedBid, Field(discriminator="type")]


class FiveHundredContract(Shown):
    taker: Seat
    tricks: int = Field(ge=6, le=10)
    suit: Denomination
    value: int = Field(description="What the contract scores when made (F5-11).")


class FiveHundredHandResult(ContractHandResult):
    tricks_taken: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class FiveHundredOptions(Shown):
    min_bid_level: int
    slam_bonus: bool
    target_score: int


class FiveHundredView(ViewCommon):
    kind: Literal["five_hundred"]
    phase: Literal["waiting", "bidding", "discard", "play", "over"]
    options: FiveHundredOptions
    bids: list[FiveHundredBidEntry]
    contract: FiveHundredContract | None
    trump: Denomination | None
    last_hand: FiveHundredHandResult | None
    kitty_taken: list[CARD] | None = Field(default=None, description="The kitty, to the taker who took it.")
