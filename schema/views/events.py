"""The events of a game, one model per ``type``: ``EventOfMove``, the union a move's answer holds,
and ``EVENT_BODIES``, the same models in order (``stream`` adds the stream id and version to each).
Apart from the views because a view is a seat's state at one moment and an event one change to it;
the three games' events are one family, mostly shared (a card played, a trick taken), some one
game's own (an upcard: euchre; a hand void: Le 500, Le Rough).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from schema.actions import CARD, BidAction, KeepAction, PassAction
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
    """What an event says. In a game's stream (GET …/events, gameEvents) it also carries its stream
    ``id`` (send it back as Last-Event-ID or ``after``) and the game ``version`` it leads to
    (:data:`StreamEvent`); in a move's answer it comes bare (:data:`EventOfMove`)."""


class Private(EventBody):
    """An event only the seats of ``visible_to`` receive (ALL-7)."""

    visible_to: list[Seat]


class GameCreated(EventBody):
    type: Literal["game_created"]
    game: Literal["five_hundred", "rough", "euchre5"]
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
    hand: int
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
    """A pass or a bid of the bidding (Le 500, Le Rough)."""

    type: Literal["bid"]
    seat: Seat
    action: Annotated[PassAction | BidAction | KeepAction, Field(discriminator="type")]


class ContractFixed(EventBody):
    type: Literal["contract"]
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

    type: Literal["discard"]
    seat: Seat
    count: int


class Discarded(Private):
    type: Literal["discarded"]
    seat: Seat
    cards: list[CARD]


class TrumpAnnounced(EventBody):
    """Le Rough: the taker's first lead fixes trump, or no trump (RG-11)."""

    type: Literal["trump"]
    seat: Seat
    suit: Denomination


class OrderedUp(EventBody):
    type: Literal["order_up"]
    seat: Seat
    suit: Suit


class Exchanged(EventBody):
    """The dealer took the upcard; which card went out stays hidden (E5-5)."""

    type: Literal["exchange"]
    seat: Seat
    took: CARD


class ExchangeDeclined(EventBody):
    type: Literal["exchange_declined"]
    seat: Seat


class TrumpNamed(EventBody):
    type: Literal["name_trump"]
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
    type: Literal["go_alone"]
    seat: Seat


class CardPlayed(EventBody):
    type: Literal["play"]
    seat: Seat
    card: CARD


class TrickTaken(EventBody):
    type: Literal["trick"]
    leader: Seat
    cards: list[CARD]
    winner: Seat


class HandScored(EventBody):
    """The hand's result with its whole deal; fields as the game's ``last_hand`` in the view."""

    type: Literal["hand_scored"]
    hand_number: int
    scores: PerTeamOrSeat
    deal: Deal
    void: bool | None = Field(default=None, description=VOID_HAND)
    points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)
    taker: Seat | None = None
    contract: BidOfHand | None = None
    made: bool | None = None
    tricks_taken: list[int] | None = None
    card_points: list[int] | None = None
    maker: Seat | None = None
    partner: Seat | None = None
    called: CARD | None = None
    alone: bool | None = None
    attackers: list[Seat] | None = None
    attacker_tricks: int | None = None


class HandSeed(EventBody):
    type: Literal["hand_seed"]
    hand: int
    seed: str = Field(description="The hand's seed, hex: check it against hand_commitment.")
    server_part: str


class MatchOver(EventBody):
    type: Literal["match_over"]
    winners: list[Seat]
    scores: PerTeamOrSeat


class MatchKey(EventBody):
    type: Literal["match_key"]
    key: str = Field(description="The match key K, hex: every hand's deal can now be checked.")
    commitment: str


class Turn(EventBody):
    """After every move: who acts next (null when the match is over) and the game's status."""

    type: Literal["turn"]
    to_act: Seat | None
    status: Literal["active", "finished"]


class YourTurn(Private):
    """In a game's stream, after ``turn`` (and at the start), to the seat to act only: its legal
    actions at ``version``, so that a client following its stream acts with one POST …/actions and
    never asks for them (ALL-7: they tell the seat's own cards, so no other seat and no spectator
    receives this). Not in a move's answer, whose ``next_turn`` says the same with the view."""

    type: Literal["your_turn"]
    seat: Seat
    version: int = Field(description="Send it as expected_version to act on exactly this state.")
    actions: list[LegalAction] = Field(description="A discard comes as a template.")


class TurnTimedOut(EventBody):
    type: Literal["turn_timed_out"]
    seat: Seat


EventOfMove = Annotated[
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
    | TrickTaken
    | HandScored
    | HandSeed
    | MatchOver
    | MatchKey
    | Turn
    | TurnTimedOut,
    Field(discriminator="type"),
]


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
    TrickTaken,
    HandScored,
    HandSeed,
    MatchOver,
    MatchKey,
    Turn,
    YourTurn,
    TurnTimedOut,
)

STREAM_ONLY: frozenset[type[EventBody]] = frozenset({YourTurn})
"""The events a game's stream carries but a move's answer does not (:data:`EventOfMove`)."""
