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
    PrivateAttr,
    RootModel,
    ValidationError,
    field_validator,
    model_validator,
)

import engine
from schema.actions import CARD, Action, Model, whole
from schema.display import DisplayText
from schema.kinds import BotLevel, GameKind, GameStatus, SeatKind
from schema.match_notices import MatchFoundNotice
from schema.moments import Moment
from schema.views import (
    EuchreOptions,
    EventEnvelope,
    FiveHundredOptions,
    GameEvent,
    LegalAction,
    RoughOptions,
    StreamEnd,
    View,
)

SEAT_KIND = r"^(open|bot:(random|heuristic|expert|learned))$"
CLIENT_SEED = r"^[ -~]*$"  # printable ASCII: the same bytes in every language's JSON (docs/fairness.md)


class ValidationIssue(BaseModel):
    """One reason a request was refused: where (``loc``, a path of names; a list's index is its
    decimal string, so that the path has one type), what (``msg``) and its kind (``type``)."""

    loc: list[str]
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
    seat_kind: SeatKind = Field(
        description="`open` (nobody yet), `reserved` (kept for a rematch's player), `human` (an account or "
        "a seat token plays it through the API) or `bot` (a built-in bot, of `bot_level`)."
    )
    bot_level: BotLevel | None = Field(description="With `bot`: the built-in bot's level; null otherwise.")
    name: str
    filled: bool

    @classmethod
    def of(cls, seat: int, stored_kind: str, name: str, filled: bool) -> SeatInfo:
        """A seat as the contract shows it, from the kind the store keeps (``bot:<level>`` one string)."""
        kind, _, level = stored_kind.partition(":")
        return cls.model_validate(
            {"seat": seat, "seat_kind": kind, "bot_level": level or None, "name": name, "filled": filled}
        )


class FiveHundredGameOptions(FiveHundredOptions):
    """Le 500's rule options, as a game shows them."""

    kind: Literal["five_hundred"]


class RoughGameOptions(RoughOptions):
    """Le Rough's rule options, as a game shows them."""

    kind: Literal["rough"]


class Euchre5GameOptions(EuchreOptions):
    """Five-handed euchre's rule options, as a game shows them."""

    kind: Literal["euchre5"]


GameOptions = Annotated[
    FiveHundredGameOptions | RoughGameOptions | Euchre5GameOptions, Field(discriminator="kind")
]
"""A game's rule options, typed by its ``kind`` (each game its own names; see /v1/rules)."""


def game_options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """The stored options of a game of ``kind`` as :data:`GameOptions` reads them (with their kind)."""
    return {**options, "kind": kind}


SEED = r"^([0-9a-f]{64}|[0-9]{1,16})$"


class GameSummary(BaseModel):
    game_id: str
    kind: GameKind
    players: int
    options: GameOptions
    status: GameStatus
    version: int
    to_act: int | None
    seats: list[SeatInfo]
    listed: bool
    created_at: Moment
    winners: list[int] | None
    seed: str | None = Field(
        pattern=SEED,
        description="The match key K (64 hex digits), or the whole number the administrator chose, as a "
        "decimal string; shown once the match is over, or to the administrator (docs/fairness.md).",
    )
    commitment: str = Field(
        description="SHA-256 of the match key, hex: published from the game's creation on."
    )
    rematch_id: str | None = Field(description="The rematch's game id, once one is offered.")
    turn_seconds: int | None = Field(description="Per-turn time limit, if any.")
    rated: bool = Field(description="The match moves its players' ratings (see ladders).")


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
    """The JSON Schema of ``game``'s seat list: an array of at most one entry per seat, or null, as
    games.lobby.create reads it (the seats not given are open; more is 422 invalid_seats)."""
    players = int(engine.games()[game]["players"])

    def shape(schema: dict[str, Any]) -> None:
        kind = {"type": "string", "pattern": SEAT_KIND}
        schema.pop("anyOf", None)
        schema["anyOf"] = [{"type": "array", "items": kind, "maxItems": players}, {"type": "null"}]

    return shape


SEATS_RULE = (
    "The first seats' kinds, one entry a seat from seat 0: `open` or `bot:random|heuristic|expert|learned`; "
    "the seats not given (all of them when omitted, null or empty) are open."
)
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
    """What creating a game of any kind takes; a request is one of the subclasses, by ``kind``."""

    kind: str
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
    seed: str | None = Field(
        default=None,
        min_length=1,
        max_length=16,
        pattern=r"^[0-9]{1,16}$",
        description="A whole number from 0 to 2^53, as a decimal string. "
        "Administrator only (403 admin_required otherwise): whoever knows it knows every hand. Without it "
        "the match key comes from `secrets`.",
    )

    @field_validator("seed")
    @classmethod
    def _seed_in_range(cls, seed: str | None) -> str | None:
        if seed is not None and int(seed) > 2**53:
            raise ValueError("a seed is a whole number from 0 to 2^53")
        return seed

    def seed_number(self) -> int | None:
        """The administrator's seed as the engine takes it (a whole number), or None."""
        return None if self.seed is None else int(self.seed)

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
        description="A rated game: its end moves the ratings of its accounts (GET /v1/ladders/{kind}). "
        "Every seat must be an identity: a player's credential, a bot account's API key, or a built-in "
        "bot (each level at most once); an anonymous join gets 403 rated_needs_identity. A seat given "
        "up during the match is rated as last. A rated game always runs on a turn clock: without "
        "`turn_seconds` and `timeouts_to_bot` it gets the server's (a day, 3).",
    )


REFERS_TO = "x-atout-refers-to"
"""A field schema's stand-in for a ``$ref`` to a component the document adds, not pydantic."""

REQUEST_OPTIONS = {
    "five_hundred": "NewFiveHundredGameOptions",
    "rough": "NewRoughGameOptions",
    "euchre5": "NewEuchre5GameOptions",
}
"""The component name of each game's options in a create request: named, as every schema of the
document (a generator must otherwise make a name up)."""


def request_options_schemas() -> dict[str, dict[str, Any]]:
    """Each game's create-request options as a named schema (components/schemas): the engine's own
    names and allowed values (:func:`options_schema`)."""
    return {
        name: {**options_schema(game), "title": name, "description": f"{OPTIONS_RULE} ({game})."}
        for game, name in REQUEST_OPTIONS.items()
    }


def _refer(name: str) -> Callable[[dict[str, Any]], None]:
    def to(schema: dict[str, Any]) -> None:
        schema.clear()
        # pydantic resolves a $ref it meets: the document's builder makes this one (REFERS_TO)
        schema.update({REFERS_TO: f"#/components/schemas/{name}", "description": OPTIONS_RULE})

    return to


def _options_field(game: str) -> Any:
    """The options of a create request: a dict the engine checks (422 invalid_options), described by
    the named schema of ``game``'s options."""
    return Field(
        default_factory=dict, description=OPTIONS_RULE, json_schema_extra=_refer(REQUEST_OPTIONS[game])
    )


def _seats_field(game: str) -> Any:
    return Field(default=None, max_length=5, description=SEATS_RULE, json_schema_extra=seats_schema(game))


class NewFiveHundredGame(NewGame):
    """A game of Le 500 (four players)."""

    kind: Literal["five_hundred"]
    options: dict[str, Any] = _options_field("five_hundred")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("five_hundred")


class NewRoughGame(NewGame):
    """A game of Le Rough (four players)."""

    kind: Literal["rough"]
    options: dict[str, Any] = _options_field("rough")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("rough")


class NewEuchre5Game(NewGame):
    """A game of five-handed euchre (five players)."""

    kind: Literal["euchre5"]
    options: dict[str, Any] = _options_field("euchre5")
    seats: list[Annotated[str, Field(pattern=SEAT_KIND)]] | None = _seats_field("euchre5")


class CreateGameRequest(
    RootModel[Annotated[NewFiveHundredGame | NewRoughGame | NewEuchre5Game, Field(discriminator="kind")]]
):
    """A game to create, by ``kind``: each game's own options and seat count are in its schema, so
    a schema-valid body never meets invalid_options or invalid_seats for them."""

    @model_validator(mode="wrap")
    @classmethod
    def _located_as_sent(cls, data: Any, handler: ModelWrapValidatorHandler[CreateGameRequest]) -> Any:
        """Errors located in the body as it was sent (``turn_seconds``, ``kind``), not under the
        game's tag (``rough.turn_seconds``) as a tagged union has them."""
        try:
            return handler(data)
        except ValidationError as exc:
            errors: list[Any] = []
            for error in exc.errors():
                if error["type"] == "union_tag_not_found":
                    errors.append({"type": "missing", "loc": ("kind",), "input": error["input"]})
                    continue
                if error["type"] == "union_tag_invalid":
                    error["loc"] = ("kind",)
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
    status: GameStatus
    version: int
    your_turn: bool


class BotStatus(BaseModel):
    bot_id: str
    name: str
    seats: list[BotSeat]


class YourTurnNotice(BaseModel):
    """A seat of yours is to act: its view and legal actions at ``version`` (answer with one POST
    …/actions, ``expected_version`` = ``version``)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["your_turn"]
    game_id: str
    version: int
    seat: int = Field(description="Your seat to act.")
    view: View = Field(description="That seat's view.")
    legal_actions: list[LegalAction] = Field(description="A discard comes as a template.")


class GameFinishedNotice(BaseModel):
    """A game you hold a seat in is finished, with its winners."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["game_finished"]
    game_id: str
    version: int
    winners: list[int] = Field(description="The winning seats.")


class TournamentGameNotice(BaseModel):
    """A tournament seated the bot in a game: its seats there and their seat tokens, before the game's
    first ``your_turn``."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["tournament_game"]
    game_id: str
    version: int
    tournament_id: str
    seats: list[int] = Field(description="The bot's seats.")
    tokens: list[str] = Field(description="The seat token of each of `seats`, in order.")


BotNotice = Annotated[
    YourTurnNotice | GameFinishedNotice | TournamentGameNotice | MatchFoundNotice,
    Field(discriminator="type"),
]
"""One notice of /v1/bots/me/stream, by its ``type`` (open to additions: skip a type you do not know):
``your_turn``, ``game_finished``, ``tournament_game`` or ``match_found``."""


class ViewResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    game_id: str
    version: int
    seat: int | None
    status: GameStatus
    view: View
    legal_actions: list[LegalAction] | None = Field(
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
    legal_actions: list[LegalAction] = Field(
        description="Empty unless the game is running; a discard comes as a template (as the view's)."
    )


class ActionRequest(Model):
    action: Action
    expected_version: int | None = Field(
        default=None, ge=0, description="Refuse with 409 version_conflict unless the game is at this version."
    )
    seat: int | None = Field(default=None, ge=0, le=4, description="If given, must be the token's seat.")


class ActionResponse(BaseModel):
    # Built once and never changed (model_construct, from the engine's trusted values), so its JSON is
    # made once too (json_text): the answer stored for an Idempotency-Key and the REST body are the same
    # text. A comment, not a docstring: the docstring would become the contract's description.
    model_config = ConfigDict(extra="forbid")  # built with model_construct; checked in tests
    _text: str | None = PrivateAttr(default=None)
    game_id: str
    version: int
    seat: int
    action: Action
    events: list[GameEvent] = Field(
        description="The events of this action, as this seat may see them: each the same object as in "
        "the game's stream (there inside an envelope)."
    )
    to_act: int | None
    status: GameStatus
    winners: list[int] | None
    next_turn: NextTurn | None = Field(
        description="When the caller holds the seat to act next: its view and legal actions, so the "
        "next move needs no other request. Null when another player is to act (their turn reaches "
        "them on their stream as `your_turn`) or the match is over.",
    )
    replayed: bool = Field(
        description="True when this is the stored answer of an earlier request with the same "
        "Idempotency-Key: the move was not played again (the `Idempotent-Replayed` header says it too).",
    )

    def json_text(self) -> str:
        """The answer as JSON, serialized by pydantic-core the first time only."""
        if self._text is None:
            # warnings off: built from the engine's dicts, which the typed fields describe but do not hold
            self._text = self.model_dump_json(warnings=False)
        return self._text


class LogEntry(BaseModel):
    version: int
    seat: int
    action: Action
    by: Literal["timer"] | None = Field(
        default=None, description="`timer`: played for the seat when its time ran out; absent otherwise."
    )


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
    """A finished match's replay log and what verifies its deals (docs/fairness.md): the deals are
    verified against the match key ``key``."""

    game_id: str
    kind: GameKind
    options: GameOptions
    seed: str = Field(
        pattern=SEED,
        description="The seed the game was created from: the match key K (hex, the same as `key`), or the "
        "administrator's whole number as a decimal string, K being derived from it "
        "(`engine.fair.key_of_int`: "
        'K = "atout-int-seed:" and its decimal digits, docs/fairness.md). `atout verify` refuses a log whose '
        "`seed` and `key` disagree.",
    )
    deal: ExplicitDeal | None = Field(description="The explicit first deal the administrator gave, if any.")
    actions: list[LogEntry]
    version: int
    winners: list[int] | None
    key: str = Field(description="The match key K, hex: the deals are verified against it.")
    commitment: str = Field(description="SHA-256 of K, as published at creation.")
    client_seeds: list[str] = Field(description="Each seat's client seed, by seat.")
    hands: list[HandRecord] = Field(description="Every hand's deal with its commitment and revealed seed.")


class IntRuleOption(BaseModel):
    """A rule option whose value is a whole number: its ``default_value`` and every ``allowed`` value.
    Tagged by ``type`` (``integer``, or ``boolean`` for :class:`BoolRuleOption`): an ``integer | boolean``
    value no generated code can narrow."""

    type: Literal["integer"]
    default_value: int = Field(description="The value a game gets unless it sets the option.")
    allowed: list[int] = Field(description="Every value it may take.")
    rule: str = Field(description="The docs/rules.md id of the rule it sets.")
    doc: str = Field(description="What it does.")


class BoolRuleOption(BaseModel):
    """A rule option that is on or off: its ``default_value`` and the ``allowed`` values."""

    type: Literal["boolean"]
    default_value: bool = Field(description="The value a game gets unless it sets the option.")
    allowed: list[bool] = Field(description="Every value it may take.")
    rule: str = Field(description="The docs/rules.md id of the rule it sets.")
    doc: str = Field(description="What it does.")


RuleOption = Annotated[IntRuleOption | BoolRuleOption, Field(discriminator="type")]


class GameRules(BaseModel):
    kind: GameKind
    name: str
    players: int
    teams: bool = Field(description="Two teams of two (Le 500, Le Rough); euchre's partnership is called.")
    deck: list[CARD] = Field(description="The deck in its canonical order (docs/fairness.md).")
    options: dict[str, RuleOption]


class RulesResponse(BaseModel):
    games: dict[str, GameRules] = Field(description="Each game by its kind.")

    @classmethod
    def of_engine(cls, games: dict[str, Any]) -> RulesResponse:
        """The rules as the contract words them, from ``engine.games()`` (whose own words are the
        engine's: a game's ``id``, an option's ``default``)."""
        return cls.model_validate(
            {
                "games": {
                    kind: {
                        **{k: v for k, v in rules.items() if k != "id"},
                        "kind": rules["id"],
                        "options": {
                            name: {
                                **{k: v for k, v in o.items() if k != "default"},
                                "type": "boolean" if isinstance(o["default"], bool) else "integer",
                                "default_value": o["default"],
                            }
                            for name, o in rules["options"].items()
                        },
                    }
                    for kind, rules in games.items()
                }
            }
        )


class BotStreamFrame(
    RootModel[
        Annotated[
            YourTurnNotice | GameFinishedNotice | TournamentGameNotice | MatchFoundNotice | StreamEnd,
            Field(discriminator="type"),
        ]
    ]
):
    """One frame of /v1/bots/me/stream (SSE ``data``, or one NDJSON line): a notice, or the
    ``StreamEnd`` frame of a stream that ends early."""


class GameStreamFrame(RootModel[Annotated[EventEnvelope | StreamEnd, Field(discriminator="type")]]):
    """One frame of a game's stream (SSE ``data``, or one NDJSON line), by its ``type``: ``event``, an
    ``EventEnvelope`` (its ``id``, ``version`` and ``event``; the SSE ``id`` is its ``id``, the SSE
    ``event`` its event's ``type``), or, last, a ``StreamEnd`` (``lagged``, ``resync``,
    ``server_closing``) of a stream that ends before the game does. A client skips a frame of a type it
    does not know, as an event of a type added within v1."""
