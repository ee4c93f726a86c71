"""The actions a seat sends, one JSON form each, exactly the engine's (docs/rules.md names the
rules each enforces); shared by the requests (schema/games.py) and what the server shows
(schema/views/: the bids in a view, the legal actions)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.cards import RANKS, SUITS

# A card code as the engine deals and reads it: a rank then a suit, or a joker; in capitals, as every
# answer writes it (the engine would also read "ts": the API takes what it gives).
CARD_PATTERN = f"^([{RANKS}][{SUITS}]|BJ|RJ)$"
CARD = Annotated[str, Field(min_length=2, max_length=2, pattern=CARD_PATTERN, examples=["AS", "TH", "BJ"])]


def whole(value: object) -> object:
    """JSON Schema's ``integer`` is any number with a zero fraction, ``1.0`` as well as ``1`` (some
    JSON encoders write whole numbers so): take it as the int it is; strict mode refuses the rest."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


class Model(BaseModel):
    """A request body: no unknown field, no type coercion, but a whole number may be written 1.0."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers(cls, data: object) -> object:
        if isinstance(data, dict):
            return {key: whole(value) for key, value in data.items()}
        return data


# Actions: one JSON form each, exactly the engine's.


class PassAction(Model):
    type: Literal["pass"]


class BidAction(Model):
    """Le 500: ``tricks`` and ``suit``; Le Rough: ``points``. A bid with neither is refused (422): said
    here in words, not as a schema (an ``anyOf`` in the discriminated Action makes openapi-generator warn)."""

    type: Literal["bid"]
    tricks: int | None = Field(default=None, ge=0, le=10)
    suit: Literal["S", "C", "D", "H", "NT"] | None = None
    points: int | None = Field(default=None, ge=0, le=100)


class KeepAction(Model):
    type: Literal["keep"]


class DiscardAction(Model):
    type: Literal["discard"]
    cards: list[CARD] = Field(max_length=10, json_schema_extra={"uniqueItems": True})  # the engine's rule


class PlayAction(Model):
    type: Literal["play"]
    card: CARD
    no_trump: bool | None = Field(default=None, description="Le Rough: the taker's first lead only.")


class OrderUpAction(Model):
    type: Literal["order_up"]


class ExchangeAction(Model):
    type: Literal["exchange"]
    discard: CARD


class NameTrumpAction(Model):
    type: Literal["name_trump"]
    suit: Literal["S", "C", "D", "H"]


class CallPartnerAction(Model):
    type: Literal["call_partner"]
    card: CARD


class GoAloneAction(Model):
    type: Literal["go_alone"]


Action = Annotated[
    PassAction
    | BidAction
    | KeepAction
    | DiscardAction
    | PlayAction
    | OrderUpAction
    | ExchangeAction
    | NameTrumpAction
    | CallPartnerAction
    | GoAloneAction,
    Field(discriminator="type"),
]
