"""Typed contracts of what the engine shows: a seat's view of each game, its legal actions, and every
event of a game's stream. The engine builds plain dicts (it imports nothing outside the standard
library); these models say exactly what those dicts hold, so that the OpenAPI document (and the code
app developers generate from it) types the hand, the trick, the bids and the events instead of
``any``, and the GraphQL types are generated from them (schema/graphql_models.py).
``tests/service/test_typed_contracts.py`` checks every view, legal action and event of many random
matches of each game against them, with no field left undeclared (``extra="forbid"``).

A field the engine leaves out in some states has a default here (so it is optional in the
contract); a field always present but possibly null is required and nullable.

One module per concern, so that a reader finds a model by its file's name:

- ``common``: the field types, the table (tricks, a deal), the bids with their seat, the contract
  games' hand result, and ``ViewCommon``, what every game's view holds;
- ``five_hundred``, ``rough``, ``euchre5``: each game's view, bids, contract, hand result, options;
- ``legal_actions``: what a seat may do now (``LegalAction``, the discard as a template);
- ``events``: one model per event ``type`` (``GameEvent``, their union; ``EVENT_BODIES``), and the
  one mapping of a stored event to its public form (``public_event``);
- ``stream``: a game's stream as its frames (``EventEnvelope``, ``StreamEnd``).

This package gives the unions and families the bodies (schema/games.py), the GraphQL types and the
tests use, and ``View``, the three games' views in one union; a single model is imported from its
module.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from schema.views.common import ViewCommon
from schema.views.euchre5 import EuchreBidEntry, EuchreOptions, EuchreView
from schema.views.events import EVENT_BODIES, ContractFixed, EventBody, GameEvent, public_event
from schema.views.five_hundred import FiveHundredBidEntry, FiveHundredOptions, FiveHundredView
from schema.views.legal_actions import LegalAction
from schema.views.rough import RoughBidEntry, RoughOptions, RoughView
from schema.views.stream import EventEnvelope, StreamEnd, envelope

View = Annotated[FiveHundredView | RoughView | EuchreView, Field(discriminator="kind")]

__all__ = [
    "EVENT_BODIES",
    "ContractFixed",
    "EuchreBidEntry",
    "EuchreOptions",
    "EuchreView",
    "EventBody",
    "EventEnvelope",
    "FiveHundredBidEntry",
    "FiveHundredOptions",
    "FiveHundredView",
    "GameEvent",
    "LegalAction",
    "RoughBidEntry",
    "RoughOptions",
    "RoughView",
    "StreamEnd",
    "View",
    "ViewCommon",
    "envelope",
    "public_event",
]
