"""The request and answer bodies both APIs use, as pydantic models: REST sends them as they are, the
GraphQL types are generated from them (schema/graphql_models.py), and the OpenAPI document is built
from them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    RootModel,
    ValidationError,
    field_validator,
    model_validator,
)

import engine
from schema.actions import CARD, Action, Model, whole
from schema.display import DisplayText
from schema.views import EventOfMove, LegalAction, StreamEnd, StreamFrame, View

SEAT_KIND = r"^(open|bot:(random|heuristic|expert))$"
CLIENT_SEED = r"^[ -~]*$"  # printable ASCII: the same bytes in every language's JSON (docs/fairness.md)


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
    instance: str | None = Field(
        default=None,
        examples=["urn:atout:request:3f9c2a7e1b4d8c6a0e5f9b21"],
        description="`urn:atout:request:<id>`: the request's id, also in the `X-Request-ID` response header "
        "and on every log line of the request (quote it when reporting a problem). GraphQL errors carry it "
        "in `extensions.instance`.",
    )
    current_version: int | None = Field(default=None, description="With version_conflict.")
    rule: str | None = Field(default=None, description="With illegal_action: the docs/rules.md id.")
    reason: str | None = Field(
        default=None,
        description="With illegal_action: the engine's reason (`malformed_action`, `illegal_action`).",
    )
    token_seat: int | None = Field(default=None, description="With wrong_seat: the seat your token holds.")
    errors: list[ValidationIssue] | None = Field(default=None, description="With invalid_request.")


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
    seed: int | str | None = Field(
        description="The match key K (64 hex digits), or the whole number the administrator chose; shown "
        "once the match is over, or to the administrator (docs/fairness.md)."
    )
    commitment: str | None = Field(
        default=None, description="SHA-256 of the match key, hex: published from the game's creation on."
    )
    rematch: str | None = Field(default=None, description="The rematch's game id, once one is offered.")
    turn_seconds: int | None = Field(default=None, description="Per-turn time limit, if any.")
    rated: bool = Field(default=False, description="The match moves its players' ratings (see ladders).")


def options_schema(game: str) -> dict[str, Any]:
    """``game``'s rule options with their allowed values (engine.games()), as JSON Schema: the
    engine's own option specs, which also refuse anything else (422 invalid_options)."""
    options = engine.games()[game]["options"]
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {name: {"enum": list(option["allowed"])} for name, option in sorted(options.items())},
    }


def seats_schema(game: str) -> Callable[[dict[str, Any]], None]:
    """The JSON Schema of ``game``'s seat list: none, empty (every seat open) or one entry per seat,
    as games.lobby.create reads it (another count is 422 invalid_seats)."""
    players = int(engine.games()[game]["players"])

    def shape(schema: dict[str, Any]) -> None:
        kind = {"type": "string", "pattern": SEAT_KIND}
        schema.pop("anyOf", None)
        schema["anyOf"] = [
            {"type": "array", "items": kind, "minItems": players, "maxItems": players},
            {"type": "array", "items": kind, "maxItems": 0},
            {"type": "null"},
        ]

    return shape


SEATS_RULE = "One entry per seat, `open` or `bot:random|heuristic|expert`; omitted, null or empty: all open."
OPTIONS_RULE = "Rule options, see /v1/rules: the game's own names and allowed values."


class ExplicitDeal(Model):
    """An explicit first deal (administrator only; ALL-3): typed here so that the contract says its
    shape and a malformed one is a 422 ``invalid_request`` naming the field; the engine then checks it
    is exactly a partition of the game's deck (422 ``invalid_deal``)."""

    dealer: int = Field(ge=0, le=4, description="The dealer's seat.")
    hands: list[Annotated[list[CARD], Field(max_length=13)]] = Field(
        min_length=4, max_length=5, description="Each seat's cards, seat 0 first."
    )
    kitty: list[CARD] = Field(
        default_factory=list, max_length=8, description="The kitty in dealt order (euchre: the upcard first)."
    )


class NewGame(Model):
    """What creating a game of any kind takes; a request is one of the subclasses, by ``game``."""

    game: str
    options: dict[str, Any] = Field(default_factory=dict, description=OPTIONS_RULE)

    @field_validator("options", mode="before")
    @classmethod
    def _whole_option_values(cls, options: object) -> object:
        """An option's whole number may be written 1000.0, as any integer of a request."""
        if isinstance(options, dict):
            return {name: whole(value) for name, value in options.items()}
        return options

    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = Field(
        default=None, max_length=5, description=SEATS_RULE
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=2**53,
        description="Administrator only (403 admin_required otherwise): whoever knows it knows every hand. "
        "Without it the match key comes from `secrets`.",
    )
    deal: ExplicitDeal | None = Field(
        default=None, description="Explicit first deal (administrator only): dealer, hands, kitty."
    )

    def deal_json(self) -> dict[str, Any] | None:
        """The explicit deal as the engine and the game record take it (plain JSON), or None."""
        return None if self.deal is None else self.deal.model_dump()

    listed: bool = Field(default=True, description="False: private, joined with the invite code.")
    turn_seconds: int | None = Field(
        default=None,
        ge=5,
        le=30 * 86_400,
        description="Per-turn time limit, 5 seconds to 30 days (correspondence play); when it runs out a "
        "bot plays the move. A player (seated with a player credential) whose clock is an hour or more "
        "gets a `reminder` notice when a quarter of it is left (at most a day before).",
    )
    timeouts_to_bot: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="With turn_seconds: after this many timed-out turns in a row a heuristic bot takes "
        "the seat over for good.",
    )
    rated: bool = Field(
        default=False,
        description="A rated game: its end moves the ratings of its accounts (GET /v1/ladders/{game}). "
        "Every seat must be an identity: a player's credential, a bot account's API key, or a built-in "
        "bot (each level at most once); an anonymous join gets 403 rated_needs_identity. A seat given "
        "up during the match is rated as last. A rated game always runs on a turn clock: without "
        "`turn_seconds` and `timeouts_to_bot` it gets the server's (a day, 3).",
    )


def _options_field(game: str) -> Any:
    return Field(
        default_factory=dict,
        description=OPTIONS_RULE,
        json_schema_extra=lambda schema: schema.update(options_schema(game)),
    )


def _seats_field(game: str) -> Any:
    return Field(default=None, max_length=5, description=SEATS_RULE, json_schema_extra=seats_schema(game))


class NewFiveHundredGame(NewGame):
    """A game of Le 500 (four players)."""

    game: Literal["five_hundred"]
    options: dict[str, Any] = _options_field("five_hundred")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("five_hundred")


class NewRoughGame(NewGame):
    """A game of Le Rough (four players)."""

    game: Literal["rough"]
    options: dict[str, Any] = _options_field("rough")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("rough")


class NewEuchre5Game(NewGame):
    """A game of five-handed euchre (five players)."""

    game: Literal["euchre5"]
    options: dict[str, Any] = _options_field("euchre5")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("euchre5")


class CreateGameRequest(
    RootModel[Annotated[NewFiveHundredGame | NewRoughGame | NewEuchre5Game, Field(discriminator="game")]]
):
    """A game to create, by ``game``: each game's own options and seat count are in its schema, so
    a schema-valid body never meets invalid_options or invalid_seats for them."""

    @model_validator(mode="wrap")
    @classmethod
    def _located_as_sent(cls, data: Any, handler: ModelWrapValidatorHandler[CreateGameRequest]) -> Any:
        """Errors located in the body as it was sent (``turn_seconds``, ``game``), not under the
        game's tag (``rough.turn_seconds``) as a tagged union has them."""
        try:
            return handler(data)
        except ValidationError as exc:
            errors: list[Any] = []
            for error in exc.errors():
                if error["type"] == "union_tag_not_found":
                    errors.append({"type": "missing", "loc": ("game",), "input": error["input"]})
                    continue
                if error["type"] == "union_tag_invalid":
                    error["loc"] = ("game",)
                elif error["loc"]:
                    error["loc"] = error["loc"][1:]
                errors.append(error)
            raise ValidationError.from_exception_data(exc.title, errors) from None


class CreateGameResponse(BaseModel):
    game: GameSummary
    invite_code: str | None = Field(description="For unlisted games; shown once.")


class GameList(BaseModel):
    games: list[GameSummary]
    next_cursor: str | None = Field(
        description="Send it back as `cursor` for the next page; null on the last page. Opaque: never "
        "build or change one."
    )


class JoinRequest(Model):
    seat: int | None = Field(
        default=None, ge=0, le=4, description="The first open seat if omitted; 0 to the game's players - 1."
    )
    name: DisplayText = Field(default="", max_length=40)
    invite_code: str | None = Field(default=None, max_length=100)
    client_seed: str = Field(
        default="",
        max_length=64,
        pattern=CLIENT_SEED,
        description="Your own entropy (up to 64 printable ASCII characters), mixed into every hand's seed "
        "so that not even the server can choose a deal (docs/fairness.md).",
    )


class RematchRequest(Model):
    client_seed: str = Field(default="", max_length=64, pattern=CLIENT_SEED, description="As in a join.")


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
    name: DisplayText = Field(min_length=1, max_length=40)
    contact: DisplayText | None = Field(
        default=None, max_length=200, description="How to reach the bot's owner."
    )


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
    """One notice of /v1/bots/me/stream: ``your_turn`` (with the seat, its view and its legal actions:
    answer with one POST …/actions), ``game_over`` (with the winners) or ``tournament_game`` (a game a
    tournament seated the bot in, with its seats and their seat tokens, before its first ``your_turn``)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    type: Literal["your_turn", "game_over", "tournament_game"]
    game_id: str
    version: int
    seat: int | None = Field(default=None, description="With your_turn: the bot's seat to act.")
    view: View | None = Field(default=None, description="With your_turn: that seat's view.")
    legal_actions: list[LegalAction] | None = Field(default=None, description="With your_turn.")
    winners: list[int] | None = Field(default=None, description="With game_over.")
    tournament_id: str | None = Field(default=None, description="With tournament_game.")
    seats: list[int] | None = Field(default=None, description="With tournament_game: the bot's seats.")
    tokens: list[str] | None = Field(
        default=None, description="With tournament_game: the seat token of each of `seats`, in order."
    )


class ViewResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    game_id: str
    version: int
    seat: int | None
    status: str
    view: View
    legal_actions: list[LegalAction] | None = Field(
        default=None,
        description="The seat's legal actions when it is its turn (a discard as a template); null "
        "otherwise, and always for a spectator. One read starts a client.",
    )


class NextTurn(BaseModel):
    """The caller's next turn, in the answer to its move: the seat to act now, when the caller holds
    it (its own seat again, e.g. after taking the kitty or winning a trick it leads, or another seat
    of the same bot account), with that seat's view and legal actions at ``version``."""

    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    seat: int
    version: int = Field(description="Send it as expected_version to act on exactly this state.")
    view: View
    legal_actions: list[LegalAction] = Field(description="A discard comes as a template.")


class LegalActionsResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    game_id: str
    version: int
    seat: int
    to_act: int | None
    actions: list[LegalAction] = Field(
        description="Empty unless the game is running; a discard comes as a template."
    )


class ActionRequest(Model):
    action: Action
    expected_version: int | None = Field(
        default=None, ge=0, description="Refuse with 409 version_conflict unless the game is at this version."
    )
    seat: int | None = Field(default=None, ge=0, le=4, description="If given, must be the token's seat.")


class ActionResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    game_id: str
    version: int
    seat: int
    action: Action
    events: list[EventOfMove] = Field(description="The events of this action, as this seat may see them.")
    to_act: int | None
    status: str
    winners: list[int] | None
    next_turn: NextTurn | None = Field(
        default=None,
        description="When the caller holds the seat to act next: its view and legal actions, so the "
        "next move needs no other request. Null when another player is to act (their turn reaches "
        "them on their stream as `your_turn`) or the match is over.",
    )
    replayed: bool = Field(
        default=False,
        description="True when this is the stored answer of an earlier request with the same "
        "Idempotency-Key: the move was not played again (the `Idempotent-Replayed` header says it too).",
    )


class LogEntry(BaseModel):
    version: int
    seat: int
    action: Action
    by: str | None = Field(default=None, description="`timer`: played for the seat when its time ran out.")


class HandRecord(BaseModel):
    """One hand's deal and the material to check it (docs/fairness.md)."""

    hand: int
    dealer: int | None
    seeded: bool = Field(description="False for a deal the administrator gave explicitly.")
    commitment: str | None = Field(description="SHA-256 of the hand seed, published before the deal.")
    server_part: str | None = Field(description="HMAC-SHA256(K, hand), hex, revealed after the hand.")
    seed: str | None = Field(description="The hand seed, hex, revealed once the hand is scored.")
    hands: list[list[str]] | None = Field(description="What each seat was dealt.")
    kitty: list[str] | None = Field(description="The kitty in dealt order (euchre: the upcard first).")


class LogResponse(BaseModel):
    """A finished match's replay log and what verifies its deals (docs/fairness.md). The match key is
    `key`; `seed` repeats it and stays only for the clients that read it: one fact, one field to read."""

    game_id: str
    game: str
    options: dict[str, Any]
    seed: int | str = Field(
        deprecated=True,
        description="Deprecated: read `key`. The same match key K as `key` (hex), or the administrator's "
        'whole number K was derived from (`engine.fair.key_of_int`: K = "atout-int-seed:" and its decimal '
        "digits, docs/fairness.md). Kept for the clients that read it; `atout verify` refuses a log whose "
        "`seed` and `key` disagree.",
    )
    deal: dict[str, Any] | None
    actions: list[LogEntry]
    version: int
    winners: list[int] | None
    key: str | None = Field(
        default=None,
        description="The match key K, hex (once the match is over): the field to read, the deals are "
        "verified against it (`seed` is its deprecated alias).",
    )
    commitment: str | None = Field(default=None, description="SHA-256 of K, as published at creation.")
    client_seeds: list[str] = Field(default_factory=list, description="Each seat's client seed, by seat.")
    hands: list[HandRecord] = Field(
        default_factory=list, description="Every hand's deal with its commitment and revealed seed."
    )


class RuleOption(BaseModel):
    """One rule option: ``default`` and every ``allowed`` value (whole numbers, or true/false)."""

    default: int | bool
    allowed: list[int | bool]
    rule: str = Field(description="The docs/rules.md id of the rule it sets.")
    doc: str


class GameRules(BaseModel):
    id: Literal["five_hundred", "rough", "euchre5"]
    name: str
    players: int
    teams: bool = Field(description="Two teams of two (Le 500, Le Rough); euchre's partnership is called.")
    deck: list[CARD] = Field(description="The deck in its canonical order (docs/fairness.md).")
    options: dict[str, RuleOption]


class RulesResponse(BaseModel):
    games: dict[str, GameRules]


class BotStreamFrame(RootModel[Annotated[BotNotice | StreamEnd, Field(discriminator="type")]]):
    """One frame of /v1/bots/me/stream (SSE ``data``, or one NDJSON line): a notice, or the
    ``StreamEnd`` frame of a stream that ends early."""


class GameEvent(RootModel[StreamFrame]):
    """One Server-Sent Event's ``data`` (or one NDJSON line), typed by its ``type``; the SSE ``id`` is
    the event's ``id`` (send it back as Last-Event-ID) and the SSE ``event`` its ``type``; a stream that
    ends before the match does ends with a ``StreamEnd`` frame."""
