"""The events of a game, one model per ``type``, and :data:`GameEvent`, their union: the same object in
a move's answer and in a game's stream (where an envelope, schema/views/stream.py, adds the stream
``id`` and the game ``version``). An event's ``type`` is its model's name in snake_case (``CardPlayed``
↔ ``card_played``: docs/glossary.md), so a client that knows one knows the other.

The engine and the games stored before v1 name some events otherwise (``play``, ``trick``,
``match_over``…): :func:`public_event` is the one place that maps a stored event to its public form,
for the moves' answers and the streams alike, so a game stored before the upgrade is served under the
new names. Apart from the views because a view is a seat's state at one moment and an event one change
to it; the three games' events are one family, mostly shared (a card played, a trick won), some one
game's own (an upcard: euchre; a hand void: Le 500, Le Rough).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from schema.actions import CARD, BidAction, KeepAction, PassAction
from schema.kinds import GameKind, GameStatus
from schema.views.common import (
    PLAYED,
    VOID_HAND,
    BidOfHand,
    Deal,
    Denomination,
    PerTeamOrSeat,
    Seat,
    Shown,
    Suit,
)
from schema.views.legal_actions import LegalAction


class EventBody(Shown):
    """What an event says: the same object in a move's answer and, inside an envelope that adds its
    stream ``id`` and the game ``version`` (:class:`schema.views.stream.EventEnvelope`), in a stream."""


class Private(EventBody):
    """An event only the seats of ``visible_to`` receive (ALL-7)."""

    visible_to: list[Seat]


class GameCreated(EventBody):
    type: Literal["game_created"]
    kind: GameKind = Field(description="Which game this is.")
    seats: list[str] = Field(description="Each seat's kind at creation: `open` or `bot:<level>`.")
    commitment: str = Field(description="SHA-256 of the match key, hex (docs/fairness.md).")


class GameStarted(EventBody):
    type: Literal["game_started"]
    client_seeds: list[str] = Field(description="Each seat's client seed, mixed into every hand's deal.")


class SeatJoined(EventBody):
    type: Literal["seat_joined"]
    seat: Seat
    name: str


class SeatLeft(EventBody):
    """A seat given up before the start: it is open again."""

    type: Literal["seat_left"]
    seat: Seat


class SeatForfeited(EventBody):
    """A seat given up (or timed out too often) once the game runs: a bot plays it out."""

    type: Literal["seat_forfeited"]
    seat: Seat
    replaced_by: str = Field(description="The bot now playing the seat, e.g. `bot:heuristic`.")
    reason: str | None = None


class HandStarted(EventBody):
    type: Literal["hand_started"]
    hand_number: int
    dealer: Seat


class HandCommitment(EventBody):
    type: Literal["hand_commitment"]
    hand_number: int
    commitment: str = Field(description="Published before any card: SHA-256 of the hand's seed.")


class Dealt(Private):
    type: Literal["dealt"]
    seat: Seat
    cards: list[CARD]


class Upcard(EventBody):
    type: Literal["upcard"]
    card: CARD


class UpcardTurnedDown(EventBody):
    type: Literal["upcard_turned_down"]
    card: CARD


class BidMade(EventBody):
    """A pass or a bid of the bidding (Le 500, Le Rough): ``action`` is the action as the seat sent it."""

    type: Literal["bid_made"]
    seat: Seat
    action: Annotated[PassAction | BidAction | KeepAction, Field(discriminator="type")]


class ContractFixed(EventBody):
    type: Literal["contract_fixed"]
    taker: Seat
    tricks: int | None = None
    suit: Denomination | None = None
    points: int | None = None


class HandVoid(EventBody):
    """Nobody took a contract; the deal moves on (Le 500: F5-9, Le Rough: RG-8)."""

    type: Literal["hand_void"]
    rule: str = Field(description="The rule that voided the hand: F5-9 or RG-8.")


class KittyTaken(Private):
    type: Literal["kitty_taken"]
    seat: Seat
    cards: list[CARD]


class DiscardDue(EventBody):
    """The taker is to discard ``count`` cards (public: how many, not which)."""

    type: Literal["discard_due"]
    seat: Seat
    count: int


class Discarded(Private):
    type: Literal["discarded"]
    seat: Seat
    cards: list[CARD]


class TrumpAnnounced(EventBody):
    """Le Rough: the taker's first lead fixes trump, or no trump (RG-11)."""

    type: Literal["trump_announced"]
    seat: Seat
    suit: Denomination


class OrderedUp(EventBody):
    type: Literal["ordered_up"]
    seat: Seat
    suit: Suit


class Exchanged(EventBody):
    """The dealer took the upcard; which card went out stays hidden (E5-5)."""

    type: Literal["exchanged"]
    seat: Seat
    took: CARD


class ExchangeDeclined(EventBody):
    type: Literal["exchange_declined"]
    seat: Seat


class TrumpNamed(EventBody):
    type: Literal["trump_named"]
    seat: Seat
    suit: Suit


class PartnerCalled(EventBody):
    type: Literal["partner_called"]
    seat: Seat
    card: CARD


class YouArePartner(Private):
    type: Literal["you_are_partner"]
    seat: Seat | None
    card: CARD


class PartnerRevealed(EventBody):
    type: Literal["partner_revealed"]
    seat: Seat
    card: CARD


class WentAlone(EventBody):
    type: Literal["went_alone"]
    seat: Seat


class CardPlayed(EventBody):
    type: Literal["card_played"]
    seat: Seat
    card: CARD


class TrickWon(EventBody):
    type: Literal["trick_won"]
    leader: Seat
    cards: list[CARD]
    winner: Seat


class ContractHandScored(EventBody):
    """A Le 500 or Le Rough hand's result with its whole deal, as the game's ``last_hand`` in the view:
    a contract played, or (``void``) a hand nobody took, when only the fields always present are."""

    hand_number: int
    scores: PerTeamOrSeat
    deal: Deal
    void: bool | None = Field(default=None, description=VOID_HAND)
    taker: Seat | None = Field(default=None, description=PLAYED)
    contract: BidOfHand | None = Field(default=None, description=PLAYED)
    made: bool | None = Field(default=None, description=PLAYED)
    points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class FiveHundredHandScored(ContractHandScored):
    """A Le 500 hand scored (F5-13): its result and its whole deal."""

    type: Literal["five_hundred_hand_scored"]
    tricks_won: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class RoughHandScored(ContractHandScored):
    """A Le Rough hand scored (RG-12, RG-13): its result and its whole deal."""

    type: Literal["rough_hand_scored"]
    card_points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class Euchre5HandScored(EventBody):
    """A five-handed euchre hand scored (E5-10, E5-11): its result and its whole deal; never void."""

    type: Literal["euchre5_hand_scored"]
    hand_number: int
    maker: Seat
    partner: Seat | None = Field(description="The called card's holder; null when the maker played alone.")
    called: CARD | None = Field(description="The card the maker called; null when it called none.")
    alone: bool
    attackers: list[Seat]
    attacker_tricks: int
    points: PerTeamOrSeat
    scores: PerTeamOrSeat
    deal: Deal


class HandSeed(EventBody):
    type: Literal["hand_seed"]
    hand_number: int
    seed: str = Field(description="The hand's seed, hex: check it against hand_commitment.")
    server_part: str


class GameFinished(EventBody):
    type: Literal["game_finished"]
    winners: list[Seat]
    scores: PerTeamOrSeat


class MatchKey(EventBody):
    type: Literal["match_key"]
    key: str = Field(description="The match key K, hex: every hand's deal can now be checked.")
    commitment: str


class Turn(EventBody):
    """After every move: who acts next (null once the game is finished) and the game's status."""

    type: Literal["turn"]
    to_act: Seat | None
    status: GameStatus


class YourTurn(Private):
    """In a game's stream, after ``turn`` (and at the start), to the seat to act only: its legal
    actions at ``version``, so that a client following its stream acts with one POST …/actions and
    never asks for them (ALL-7: they tell the seat's own cards, so no other seat and no spectator
    receives this). Not in a move's answer, whose ``next_turn`` says the same with the view."""

    type: Literal["your_turn"]
    seat: Seat
    version: int = Field(description="Send it as expected_version to act on exactly this state.")
    legal_actions: list[LegalAction] = Field(description="As the view's; a discard comes as a template.")


class TurnTimedOut(EventBody):
    type: Literal["turn_timed_out"]
    seat: Seat


EVENT_BODIES: tuple[type[EventBody], ...] = (
    GameCreated,
    GameStarted,
    SeatJoined,
    SeatLeft,
    SeatForfeited,
    HandStarted,
    HandCommitment,
    Dealt,
    Upcard,
    UpcardTurnedDown,
    BidMade,
    ContractFixed,
    HandVoid,
    KittyTaken,
    DiscardDue,
    Discarded,
    TrumpAnnounced,
    OrderedUp,
    Exchanged,
    ExchangeDeclined,
    TrumpNamed,
    PartnerCalled,
    YouArePartner,
    PartnerRevealed,
    WentAlone,
    CardPlayed,
    TrickWon,
    FiveHundredHandScored,
    RoughHandScored,
    Euchre5HandScored,
    HandSeed,
    GameFinished,
    MatchKey,
    Turn,
    YourTurn,
    TurnTimedOut,
)
"""Every event model, in the order a game meets them."""

GameEvent = TypeAliasType(
    "GameEvent",
    Annotated[
        GameCreated
        | GameStarted
        | SeatJoined
        | SeatLeft
        | SeatForfeited
        | HandStarted
        | HandCommitment
        | Dealt
        | Upcard
        | UpcardTurnedDown
        | BidMade
        | ContractFixed
        | HandVoid
        | KittyTaken
        | DiscardDue
        | Discarded
        | TrumpAnnounced
        | OrderedUp
        | Exchanged
        | ExchangeDeclined
        | TrumpNamed
        | PartnerCalled
        | YouArePartner
        | PartnerRevealed
        | WentAlone
        | CardPlayed
        | TrickWon
        | FiveHundredHandScored
        | RoughHandScored
        | Euchre5HandScored
        | HandSeed
        | GameFinished
        | MatchKey
        | Turn
        | YourTurn
        | TurnTimedOut,
        Field(
            discriminator="type",
            description="One event of a game, by its `type` (its schema's name in snake_case): the same "
            "object in a move's answer and in a stream's envelope.",
        ),
    ],
)
"""One event, by its ``type``: a named union (one schema, ``GameEvent``, for a move's answer and the
stream's envelope alike). A new event type may come within v1: a client skips a ``type`` it does not
know."""


def type_of(model: type[EventBody]) -> str:
    """An event model's ``type``: its name in snake_case (``TrickWon`` → ``trick_won``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", model.__name__).lower()


def model_name_of(event_type: str) -> str:
    """An event ``type``'s model name, in CamelCase (``trick_won`` → ``TrickWon``)."""
    return "".join(word[:1].upper() + word[1:] for word in event_type.split("_"))


STORED_TYPES: Mapping[str, str] = {
    "bid": "bid_made",
    "contract": "contract_fixed",
    "discard": "discard_due",
    "trump": "trump_announced",
    "order_up": "ordered_up",
    "exchange": "exchanged",
    "name_trump": "trump_named",
    "go_alone": "went_alone",
    "play": "card_played",
    "trick": "trick_won",
    "match_over": "game_finished",
}
"""The public ``type`` of each event the engine (and every game stored before v1) names otherwise;
``hand_scored`` becomes the game's own (:data:`HAND_SCORED`)."""

HAND_SCORED: Mapping[str, str] = {
    "five_hundred": type_of(FiveHundredHandScored),
    "rough": type_of(RoughHandScored),
    "euchre5": type_of(Euchre5HandScored),
}
"""The ``type`` of a hand scored, by game: one schema per game, each field it always has required."""

STORED_FIELDS: Mapping[str, Mapping[str, str]] = {
    "game_created": {"game": "kind"},
    "hand_commitment": {"hand": "hand_number"},
    "hand_seed": {"hand": "hand_number"},
    "your_turn": {"actions": "legal_actions"},
    "five_hundred_hand_scored": {"tricks_taken": "tricks_won"},
}
"""The fields a stored event names otherwise than its public form, by public ``type`` (one word per
thing: docs/glossary.md)."""


def public_event(stored: dict[str, Any], kind: str) -> dict[str, Any]:
    """The event of a game of ``kind`` as stored (the engine's names, or a game stored before v1) in
    its public form: the one mapping of the moves' answers and the streams. An event already public,
    or not renamed, comes back as it is (the same object: the hot path copies nothing)."""
    stored_type = stored.get("type")
    public_type = HAND_SCORED[kind] if stored_type == "hand_scored" else STORED_TYPES.get(str(stored_type))
    fields = STORED_FIELDS.get(public_type or str(stored_type))
    if public_type is None and (fields is None or not fields.keys() & stored.keys()):
        return stored
    renamed = {(fields or {}).get(name, name): value for name, value in stored.items()}
    if public_type is not None:
        renamed["type"] = public_type
    return renamed
