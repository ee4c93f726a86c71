"""Typed contracts of what the engine shows: a seat's view of each game, its legal actions, and every
event of a game's stream. The engine builds plain dicts (it imports nothing outside the standard
library); these models say exactly what those dicts hold, so that the OpenAPI document (and the code
app developers generate from it) types the hand, the trick, the bids and the events instead of
``any``. ``tests/service/test_typed_contracts.py`` checks every view, legal action and event of many
random matches of each game against them, with no field left undeclared (``extra="forbid"``).

A field the engine leaves out in some states has a default here (so it is optional in the
contract); a field always present but possibly null is required and nullable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

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


FiveHundredBidEntry = Annotated[SeatedPass | SeatedBid, Field(discriminator="type")]
RoughBidEntry = Annotated[SeatedPass | SeatedBid | SeatedKeep, Field(discriminator="type")]
EuchreBidEntry = Annotated[
    SeatedPass | SeatedOrderUp | SeatedNameTrump | SeatedCallPartner | SeatedGoAlone,
    Field(discriminator="type"),
]


# --- contracts and hand results, per game ---------------------------------------------------


class FiveHundredContract(Shown):
    taker: Seat
    tricks: int = Field(ge=6, le=10)
    suit: Denomination
    value: int = Field(description="What the contract scores when made (F5-11).")


class RoughContract(Shown):
    taker: Seat
    points: int = Field(ge=70, le=100)


class EuchreContract(Shown):
    maker: Seat
    trump: Suit | None
    called_card: CARD | None = Field(description="The card the maker called to find a partner (E5-8).")
    alone: bool
    partner: Seat | None = Field(description="Shown to everyone once revealed, and to the partner at once.")


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


class FiveHundredHandResult(ContractHandResult):
    tricks_taken: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


class RoughHandResult(ContractHandResult):
    card_points: PerTeamOrSeat | None = Field(default=None, description=PLAYED)


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


# --- the views ----------------------------------------------------------------------------------


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


class FiveHundredOptions(Shown):
    min_bid_level: int
    slam_bonus: bool
    target_score: int


class RoughOptions(Shown):
    dealer_may_open: bool
    floor_loses: bool
    target_score: int


class EuchreOptions(Shown):
    lone_march_points: int
    target_score: int


class FiveHundredView(ViewCommon):
    game: Literal["five_hundred"]
    phase: Literal["waiting", "bidding", "discard", "play", "over"]
    options: FiveHundredOptions
    bids: list[FiveHundredBidEntry]
    contract: FiveHundredContract | None
    trump: Denomination | None
    last_hand: FiveHundredHandResult | None
    kitty_taken: list[CARD] | None = Field(default=None, description="The kitty, to the taker who took it.")


class RoughView(ViewCommon):
    game: Literal["rough"]
    phase: Literal["waiting", "bidding", "discard", "play", "over"]
    options: RoughOptions
    bids: list[RoughBidEntry]
    contract: RoughContract | None
    trump: Denomination | None
    last_hand: RoughHandResult | None
    kitty_taken: list[CARD] | None = Field(default=None, description="The kitty, to the taker who took it.")
    trick_points: list[int] | None = Field(default=None, description="Card points taken so far, per team.")


class EuchreView(ViewCommon):
    game: Literal["euchre5"]
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


View = Annotated[FiveHundredView | RoughView | EuchreView, Field(discriminator="game")]


# --- legal actions ----------------------------------------------------------------------------


class DiscardTemplate(Shown):
    """The discard, offered as a template: answer with ``{"type": "discard", "cards": [...]}``
    holding ``count`` distinct cards of ``from``."""

    type: Literal["discard"]
    count: int = Field(ge=1, le=10)
    from_: list[CARD] = Field(alias="from")


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


# --- events: one model per ``type`` -------------------------------------------------------------


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
    TurnTimedOut,
)


def in_stream(body: type[EventBody]) -> type[EventBody]:
    """``body`` as a game's stream carries it: with its stream id and the version it leads to."""
    return create_model(
        f"{body.__name__}Event",
        __base__=body,
        __doc__=body.__doc__,
        id=(str, Field(examples=["1733140000000-0"], description="The stream id: Last-Event-ID / after.")),
        version=(int, Field(description="The game's version once this event happened.")),
    )


class StreamEnd(Shown):
    """The last frame of a stream that ends before the match does, without an ``id`` (the client's
    Last-Event-ID stays its last event): ``lagged`` (it fell behind: reconnect with Last-Event-ID),
    ``resync`` (the events after the cursor are gone: reload the view, then follow after
    ``last_event_id``) or ``server_closing`` (reconnect; another replica resumes without a gap)."""

    type: Literal["lagged", "resync", "server_closing"]
    code: str
    detail: str
    last_event_id: str | None = None
    retry_after: int | None = Field(default=None, description="Seconds to wait before reconnecting.")


STREAM_EVENTS = tuple(in_stream(body) for body in EVENT_BODIES)
if TYPE_CHECKING:
    StreamEvent = EventOfMove
    StreamFrame = EventOfMove | StreamEnd
else:
    StreamEvent = Annotated[Union[STREAM_EVENTS], Field(discriminator="type")]  # noqa: UP007
    StreamFrame = Annotated[Union[(*STREAM_EVENTS, StreamEnd)], Field(discriminator="type")]
