# mypy: disable-error-code="misc,valid-type,untyped-decorator,no-any-return"
"""The GraphQL types of the bodies both APIs answer with (``schema.games``, ``schema.players``,
``schema.ratings``, ``schema.tournaments``, ``schema.webhooks``), generated from their pydantic models
by :func:`schema.graphql_models.graphql_type_of`: a field added to a model is in both APIs, and a
resolver answers ``build(Model, value)`` with the value REST answers.

Each declaration says only what GraphQL says otherwise than the model: the type's name where GraphQL
has its own (``GameSummary`` is ``Game``), its description where the model has none or says REST's
paths, the fields that are ids besides the usual ones (``id``: a game's is an ``ID``, a stream
event's a position), and the few fields GraphQL types otherwise (:class:`Extra`): a game's options
as the game's own type, a tournament's as its target score, the rules' options as typed ones, a dead
letter's message with its data by type. A model is declared before the models holding it.

GraphQL's own types, which mirror no model: the rule options by kind (GraphQL has no int-or-bool
scalar), the webhook message data's union, and the inputs of createGame."""

from __future__ import annotations

import typing
from typing import Annotated, Any

import strawberry

from schema import games as g
from schema import players as p
from schema import ratings as r
from schema import tournaments as m
from schema import webhooks as w
from schema.graphql_models import (
    OPTIONS_OF_GAME,
    Extra,
    GameOptions,
    OptionsInput,
    build,
    enum_of,
    graphql_type_of,
    input_type,
    read,
)

PAGE_NEXT = "Pass it as `cursor` for the next page; null on the last page. Opaque."

# --- games -----------------------------------------------------------------------------------------

Seat = graphql_type_of(g.SeatInfo, "Seat", description="A seat: `open`, `human` or `bot:<level>`.")
Game = graphql_type_of(
    g.GameSummary,
    "Game",
    description="A game and its seats; `seed` once the match is over (or for the admin).",
    ids=("id", "rematch"),
    extras={
        "options": Extra(
            GameOptions,
            lambda s: build(OPTIONS_OF_GAME[read(s, "game")], read(s, "options")),
            description="The game's rule options.",
        )
    },
)
GamePage = graphql_type_of(g.GameList, "GamePage", description="A page of the open games, newest first.")
NextTurn = graphql_type_of(g.NextTurn)
View = graphql_type_of(
    g.ViewResponse, "View", description="What the caller's seat may see (a spectator's view without a token)."
)
LegalActions = graphql_type_of(g.LegalActionsResponse, "LegalActions")
CreateGameResult = graphql_type_of(g.CreateGameResponse, "CreateGameResult")
JoinResult = graphql_type_of(
    g.JoinResponse,
    "JoinResult",
    description="The seat token is shown once: send it as `Authorization: Bearer <token>`.",
)
LeaveResult = graphql_type_of(
    g.LeaveResponse,
    "LeaveResult",
    description="`left`: the seat is open again; `replaced`: a bot plays it out.",
)
RematchResult = graphql_type_of(
    g.RematchResponse, "RematchResult", description="Your seat in the rematch; the token is shown once."
)
ActionResult = graphql_type_of(g.ActionResponse, "ActionResult")
BotRegistration = graphql_type_of(
    g.BotRegistered,
    "BotRegistration",
    description="A bot account; the API key is shown once and stored only hashed.",
)
BotNotice = graphql_type_of(
    g.BotNotice,
    description="`your_turn` (with the seat's view and legal actions), `game_over` (with winners) or "
    "`tournament_game` (a tournament's game: its seats and their seat tokens, before its first turn).",
)


@strawberry.interface(description="A rule option: its name in `options`, the rule it sets, what it does.")
class RuleOption:
    name: str
    rule: str
    doc: str


@strawberry.type(description="An option whose value is a whole number.")
class IntOption(RuleOption):
    default_int: int
    allowed_ints: list[int]


@strawberry.type(description="An option that is on or off.")
class BoolOption(RuleOption):
    default_bool: bool
    allowed_bools: list[bool]


def rule_options(rules: Any) -> list[RuleOption]:
    """A game's rule options (``GameRules.options``, by name) each as its kind's type: GraphQL has no
    scalar that is a whole number or a boolean."""
    typed: list[RuleOption] = []
    for name, option in read(rules, "options").items():
        said = {"name": name, "rule": option.rule, "doc": option.doc}
        if isinstance(option.default, bool):
            typed.append(BoolOption(**said, default_bool=option.default, allowed_bools=list(option.allowed)))
        else:
            typed.append(IntOption(**said, default_int=option.default, allowed_ints=list(option.allowed)))
    return typed


GameRules = graphql_type_of(
    g.GameRules,
    description="A game: its id, players, deck and rule options.",
    extras={"options": Extra(list[RuleOption], rule_options)},
)

CLIENT_SEED_DOC = g.JoinRequest.model_fields["client_seed"].description
ClientSeed = Annotated[str, strawberry.argument(description=CLIENT_SEED_DOC)]
"""A join's ``clientSeed`` argument (joinSeat, rematch, acceptInvitation), described as REST's."""

DealInput = input_type(
    "DealInput",
    (g.ExplicitDeal,),
    "An explicit first deal (administrator only): each seat's cards, the kitty.",
)
CreateGameInput = input_type(
    "CreateGameInput",
    (g.NewGame,),
    None,
    overrides={
        "options": (OptionsInput, None),
        "seed": (
            str,
            "A decimal string (beyond GraphQL's 32-bit Int); administrator only (403 admin_required).",
        ),
        "deal": (DealInput, None),
    },
)

# --- players ---------------------------------------------------------------------------------------

PlayerCreated = graphql_type_of(
    p.PlayerCreated, description="A guest player, just created: the token is shown once."
)
Identity = graphql_type_of(
    p.Identity, description="An identity of the app's identity provider: the issuer and the subject."
)
Me = graphql_type_of(p.Me, description="The player you are (your bearer token's).")
MyGame = graphql_type_of(p.MyGame, description="One of your games, as your list shows it.")
MyGamesPage = graphql_type_of(p.MyGamesPage, description="A page of your games.")
Invitation = graphql_type_of(
    p.Invitation, description="An invitation to a table: accept it to join, even a private table."
)
PlayerNotice = graphql_type_of(
    p.PlayerNotice,
    description="A notice of `myEvents`. `your_turn`: your seat, its view and legal actions (answer with "
    "one submitAction); `invitation`: a table you are invited to (acceptInvitation); `game_started`; "
    "`game_over` (with the winners); `rematch_offered` (the rematch's id: join it with `rematch` on the "
    "old game); `reminder`: your turn's clock runs out at `deadline`.",
)

# --- ratings ---------------------------------------------------------------------------------------

Rating = graphql_type_of(
    r.RatingInfo,
    "Rating",
    description="An account's rating in one game kind (openskill: Plackett-Luce, Weng-Lin).",
)
LadderEntry = graphql_type_of(r.LadderEntry, description="A place on a ladder.")
LadderPage = graphql_type_of(r.LadderPage, description="A page of a ladder, best first.")
LadderPosition = graphql_type_of(
    r.LadderPosition, description="An account's place on its ladder, with its neighbours either side."
)
RatingChange = graphql_type_of(r.RatingChange, description="One rated match's change to an account's rating.")
RatingHistory = graphql_type_of(
    r.RatingHistory, description="An account's rating and its latest changes, newest first."
)

# --- tournaments -----------------------------------------------------------------------------------

TournamentEntrant = graphql_type_of(
    m.TournamentEntrant, description="An entrant: `bot:<level>` (a built-in bot) or `account:<bot_id>`."
)
TournamentGame = graphql_type_of(m.TournamentGame)
TournamentStanding = graphql_type_of(
    m.TournamentStanding,
    description="An entrant's line: points per deal with its 95% interval, wins, flags.",
)
HeadToHeadRecord = graphql_type_of(m.HeadToHeadRecord, description="One entrant's record against another.")
Tournament = graphql_type_of(
    m.Tournament,
    ids=("id",),
    extras={
        "options": Extra(
            int | None,
            lambda t: read(t, "options").get("target_score"),
            name="target_score",
            description="The games' target score (`options`); null: the game's.",
        )
    },
)
TournamentEvent = graphql_type_of(
    m.TournamentEvent,
    description="One event of a tournament's stream: `tournament_created`, `round_started`, "
    "`game_finished`, `round_finished` (standings) or `tournament_finished` (the key revealed).",
)

# --- webhooks --------------------------------------------------------------------------------------

WebhookEventType = enum_of(w.EventType, "WebhookEventType", "What a webhook message is about (its `type`).")
Webhook = graphql_type_of(w.Webhook, ids=("id",))
WebhookRegistration = graphql_type_of(
    w.WebhookRegistered,
    "WebhookRegistration",
    description="A new endpoint and its signing secret, shown this once.",
)
WebhookDelivery = graphql_type_of(w.WebhookDelivery)
WebhookDeliveryPage = graphql_type_of(
    w.WebhookDeliveryPage, description="A page of an endpoint's delivery log, newest first."
)
DATA_TYPES: dict[str, Any] = {event: graphql_type_of(model) for event, model in w.DATA_OF.items()}
WebhookData = Annotated[
    typing.Union[tuple(DATA_TYPES.values())],  # noqa: UP007 (made at run time, in DATA_OF's order)
    strawberry.union("WebhookData", description="A message's facts, by its type."),
]
WebhookPayload = graphql_type_of(
    w.YourTurnMessage,  # the four messages have one shape but their data's type: one type, its data a union
    "WebhookPayload",
    description="A webhook message as it was sent (its body): `type`, `timestamp`, `data`.",
    extras={
        "type": Extra(WebhookEventType, lambda message: WebhookEventType(read(message, "type"))),
        "data": Extra(
            WebhookData,
            lambda message: build(w.DATA_OF[read(message, "type")], read(message, "data")),
            description="The message's facts: its type's data.",
        ),
    },
)
DeadLetter = graphql_type_of(
    w.DeadLetter,
    ids=("id",),
    extras={"payload": Extra(WebhookPayload, lambda dead: build(w.YourTurnMessage, read(dead, "payload")))},
)
DeadLetterPage = graphql_type_of(w.DeadLetterPage, description="A page of the dead letters, newest first.")
Redelivery = graphql_type_of(w.Redelivery, description="A dead letter enqueued again, with its message id.")
