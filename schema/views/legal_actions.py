"""The legal actions a seat is offered (GET …/actions, legalActions, a bot's ``your_turn``): the
actions as a seat sends them (schema/actions.py), but the discard, offered as a template. Apart
from the views because they answer another question (what may this seat do now, not what does it
see) and are the same union for the three games.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schema.actions import (
    CARD,
    BidAction,
    CallPartnerAction,
    ExchangeAction,
    GoAloneAction,
    KeepAction,
    NameTrumpAction,
    OrderUpAction,
    PassAction,
    PlayAction,
)
from schema.views.common import Shown


class DiscardTemplate(Shown):
    """The discard, offered as a template: answer with ``{"type": "discard", "cards": [...]}``
    holding ``count`` distinct cards of ``choices``."""

    type: Literal["discard"]
    count: int = Field(ge=1, le=10)
    choices: list[CARD] = Field(description="The cards to choose `count` of.")


LegalAction = Annotated[
    PassAction
    | BidAction
    | KeepAction
    | DiscardTemplate
    | PlayAction
    | OrderUpAction
    | ExchangeAction
    | NameTrumpAction
    | CallPartnerAction
    | GoAloneAction,
    Field(discriminator="type"),
]
