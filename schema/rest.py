"""Pydantic models of every REST body, request and response; the OpenAPI document is built from them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SEAT_KIND = r"^(open|bot:(random|heuristic|expert))$"
CARD = Annotated[str, Field(min_length=2, max_length=2, examples=["AS", "TH", "BJ"])]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ValidationIssue(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class Problem(BaseModel):
    """RFC 9457 problem details; ``code`` is stable and the same in GraphQL's ``extensions.code``."""

    type: str
    title: str
    status: int
    code: str = Field(examples=["version_conflict", "illegal_action", "not_your_turn"])
    detail: str
    instance: str | None = None
    current_version: int | None = Field(default=None, description="With version_conflict.")
    rule: str | None = Field(default=None, description="With illegal_action: the RULES.md id.")
    reason: str | None = Field(
        default=None,
        description="With illegal_action: the engine's reason (`malformed_action`, `illegal_action`).",
    )
    token_seat: int | None = Field(default=None, description="With wrong_seat: the seat your token holds.")
    errors: list[ValidationIssue] | None = Field(default=None, description="With invalid_request.")


# Actions: one JSON form each, exactly the engine's.


class PassAction(Model):
    type: Literal["pass"]


class BidAction(Model):
    """Le 500: ``tricks`` and ``suit``; Le Rough: ``points``."""

    type: Literal["bid"]
    tricks: int | None = Field(default=None, ge=0, le=10)
    suit: Literal["S", "C", "D", "H", "NT"] | None = None
    points: int | None = Field(default=None, ge=0, le=100)


class KeepAction(Model):
    type: Literal["keep"]


class DiscardAction(Model):
    type: Literal["discard"]
    cards: list[CARD] = Field(max_length=10)


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


class SeatInfo(BaseModel):
    seat: int
    kind: str = Field(description="`open`, `reserved` (a rematch seat), `human` or `bot:<level>`.")
    name: str
    filled: bool


class GameSummary(BaseModel):
    id: str
    game: str
    players: int
    options: dict[str, Any]
    status: Literal["waiting", "active", "finished"]
    version: int
    to_act: int | None
    seats: list[SeatInfo]
    listed: bool
    created_at: float
    winners: list[int] | None
    seed: int | None = Field(description="Shown once the match is over, or to the administrator.")
    rematch: str | None = Field(default=None, description="The rematch's game id, once one is offered.")
    turn_seconds: int | None = Field(default=None, description="Per-turn time limit, if any.")


class CreateGameRequest(Model):
    game: Literal["five_hundred", "rough", "euchre5"]
    options: dict[str, Any] = Field(default_factory=dict, description="Rule options, see /v1/rules.")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = Field(
        default=None,
        max_length=5,
        description="One entry per seat, `open` or `bot:random|heuristic|expert`; default all open.",
    )
    seed: int | None = Field(default=None, ge=0, le=2**53, description="Random if omitted.")
    deal: dict[str, Any] | None = Field(
        default=None, description="Explicit first deal (administrator only): dealer, hands, kitty."
    )
    listed: bool = Field(default=True, description="False: private, joined with the invite code.")
    turn_seconds: int | None = Field(
        default=None,
        ge=5,
        le=86_400,
        description="Per-turn time limit; when it runs out a bot plays the move.",
    )
    timeouts_to_bot: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="With turn_seconds: after this many timed-out turns in a row a heuristic bot takes "
        "the seat over for good.",
    )


class CreateGameResponse(BaseModel):
    game: GameSummary
    invite_code: str | None = Field(description="For unlisted games; shown once.")


class GameList(BaseModel):
    games: list[GameSummary]


class JoinRequest(Model):
    seat: int | None = Field(default=None, ge=0, le=4, description="The first open seat if omitted.")
    name: str = Field(default="", max_length=40)
    invite_code: str | None = Field(default=None, max_length=100)


class JoinResponse(BaseModel):
    game_id: str
    seat: int
    token: str = Field(description="The seat token, shown once: send it as `Authorization: Bearer <token>`.")
    started: bool


class LeaveResponse(BaseModel):
    game_id: str
    seat: int
    outcome: Literal["left", "replaced"] = Field(
        description="`left`: the seat is open again (before the start); `replaced`: a bot plays it out."
    )


class RematchResponse(BaseModel):
    game: GameSummary
    seat: int
    token: str = Field(description="Your token for the same seat in the rematch, shown once.")
    started: bool


class RegisterBotRequest(Model):
    name: str = Field(min_length=1, max_length=40)
    contact: str | None = Field(default=None, max_length=200, description="How to reach the bot's owner.")


class BotRegistered(BaseModel):
    bot_id: str
    name: str
    api_key: str = Field(
        description="Shown once. Join seats with it (`Authorization: Bearer <api_key>` on joinGame) and "
        "follow /v1/bots/me/stream to hear when any of its seats is to act."
    )


class BotSeat(BaseModel):
    game_id: str
    seat: int
    status: str
    version: int
    your_turn: bool


class BotStatus(BaseModel):
    bot_id: str
    name: str
    seats: list[BotSeat]


class BotNotice(BaseModel):
    """One notice of /v1/bots/me/stream: ``your_turn`` (with seat, version, view and legal_actions) or
    ``game_over`` (with winners)."""

    model_config = ConfigDict(extra="allow")
    id: str
    type: Literal["your_turn", "game_over"]
    game_id: str
    version: int


class ViewResponse(BaseModel):
    game_id: str
    version: int
    seat: int | None
    status: str
    view: dict[str, Any]


class LegalActionsResponse(BaseModel):
    game_id: str
    version: int
    seat: int
    to_act: int | None
    actions: list[dict[str, Any]]


class ActionRequest(Model):
    action: Action
    expected_version: int | None = Field(
        default=None, ge=0, description="Refuse with 409 version_conflict unless the game is at this version."
    )
    seat: int | None = Field(default=None, ge=0, le=4, description="If given, must be the token's seat.")


class ActionResponse(BaseModel):
    game_id: str
    version: int
    seat: int
    action: dict[str, Any]
    events: list[dict[str, Any]] = Field(description="The events of this action, as this seat may see them.")
    to_act: int | None
    status: str
    winners: list[int] | None


class LogEntry(BaseModel):
    version: int
    seat: int
    action: dict[str, Any]
    by: str | None = Field(default=None, description="`timer`: played for the seat when its time ran out.")


class LogResponse(BaseModel):
    game_id: str
    game: str
    options: dict[str, Any]
    seed: int
    deal: dict[str, Any] | None
    actions: list[LogEntry]
    version: int
    winners: list[int] | None


class RulesResponse(BaseModel):
    games: dict[str, dict[str, Any]]


class GameEvent(BaseModel):
    """One Server-Sent Event's ``data``; the SSE ``id`` is the same ``id`` (send it back as Last-Event-ID)."""

    model_config = ConfigDict(extra="allow")
    id: str
    version: int
    type: str
