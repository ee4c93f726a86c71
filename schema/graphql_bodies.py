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
from schema import matchmaking as mm
from schema import players as p
from schema import ratings as r
from schema import tournaments as m
from schema import webhooks as w
from schema.graphql_models import (
    CONCEPTS,
    OPTIONS_OF_GAME,
    ActionInput,
    Extra,
    GameKind,
    GameOptions,
    OptionsInput,
    build,
    connection_type,
    enum_named,
    enum_of,
    field_values,
    graphql_type,
    graphql_type_of,
    input_type,
    members,
    payload_type,
    read,
    union_interface,
)

BOARDS = typing.get_args(r.LadderPage.model_fields["board"].annotation)
enum_named("LadderBoard", BOARDS, "Which ladder of a game kind: PEOPLE (players) or BOTS (bot accounts).")
CONCEPTS["board"] = ("LadderBoard",)
TOURNAMENT_STATUS = typing.get_args(m.Tournament.model_fields["status"].annotation)
enum_named("TournamentStatus", TOURNAMENT_STATUS, "A tournament's state: RUNNING, FINISHED or STOPPED.")
CONCEPTS["status"] = (*CONCEPTS["status"], "TournamentStatus")
FORMATS = typing.get_args(m.Tournament.model_fields["format"].annotation)
enum_named("TournamentFormat", FORMATS, "How a tournament pairs its entrants: ROUND_ROBIN or SWISS.")
CONCEPTS["format"] = ("TournamentFormat",)
enum_of(p.InvitationsFrom, "InvitationsFrom", "Who may invite you: EVERYONE, or NOBODY.")
OUTCOMES = typing.get_args(g.LeaveResponse.model_fields["outcome"].annotation)
enum_named(
    "LeaveOutcome", OUTCOMES, "What leaving did: LEFT (the seat is open again) or REPLACED (a bot plays it)."
)
CONCEPTS["outcome"] = ("LeaveOutcome",)


def done_payload(name: str, field: str, description: str, said: str) -> type:
    """The payload of a mutation that answers no body in REST (204): the id of what it acted on."""
    namespace = {
        "__annotations__": {field: strawberry.ID},
        "__module__": __name__,
        field: strawberry.field(description=said),
    }
    made: type = strawberry.type(type(name, (), namespace), description=description)
    DONE[made] = field
    return made


DONE: dict[type, str] = {}
"""The payloads of :func:`done_payload`, with their one field."""

# --- games -----------------------------------------------------------------------------------------

Seat = graphql_type_of(g.SeatInfo, "Seat", description="A seat: `open`, `human` or `bot:<level>`.")
Game = graphql_type_of(
    g.GameSummary,
    "Game",
    description="A game and its seats; `seed` once the match is over (or for the admin).",
    extras={
        "options": Extra(
            GameOptions,
            lambda s: build(OPTIONS_OF_GAME[read(s, "kind")], read(s, "options")),
            description="The game's rule options.",
        )
    },
)
GameConnection = connection_type(
    "Game", g.GameList, "games", "The open games, a page at a time, newest first."
)
NextTurn = graphql_type_of(g.NextTurn)
View = graphql_type_of(
    g.ViewResponse, "View", description="What the caller's seat may see (a spectator's view without a token)."
)
LegalActions = graphql_type_of(g.LegalActionsResponse, "LegalActions")
ReplayLog = graphql_type_of(
    g.LogResponse,
    "ReplayLog",
    description="A finished game's replay log and what verifies its deals (docs/fairness.md).",
)
CreateGamePayload = graphql_type_of(
    g.CreateGameResponse,
    "CreateGamePayload",
    description="The game created, and its invite code if unlisted.",
)
JoinGamePayload = graphql_type_of(
    g.JoinResponse,
    "JoinGamePayload",
    description="The seat taken; its token is shown once: send it as `Authorization: Bearer <token>`.",
)
LeaveGamePayload = graphql_type_of(
    g.LeaveResponse,
    "LeaveGamePayload",
    description="`LEFT`: the seat is open again; `REPLACED`: a bot plays it out.",
)
RematchGamePayload = graphql_type_of(
    g.RematchResponse, "RematchGamePayload", description="Your seat in the rematch; the token is shown once."
)
SubmitActionPayload = graphql_type_of(
    g.ActionResponse,
    "SubmitActionPayload",
    description="The move made: the action, its events, the next turn.",
)
RegisterBotPayload = graphql_type_of(
    g.BotRegistered,
    "RegisterBotPayload",
    description="A bot account; the API key is shown once and stored only hashed.",
)
BotSeat = graphql_type_of(g.BotSeat, description="A seat of the bot's, in a game not finished.")
Bot = graphql_type_of(
    g.BotStatus, "Bot", description="The bot account you are (your API key's) and its seats."
)
NOTICE_TYPES = field_values([*members(g.BotNotice), *members(p.PlayerNotice)], "type")
enum_named(
    "NoticeType",
    NOTICE_TYPES,
    "A notice's `type`, on a bot's and a player's streams: open to additions (a client skips a notice "
    "whose type it does not know).",
)
BotNotice = union_interface(
    "BotNotice",
    g.BotNotice,
    "A notice of `botTurns`, by its `type`: `your_turn` (with the seat's view and legal actions), "
    "`game_finished` (with the winners), `tournament_game` (a tournament's game: its seats and their "
    "seat tokens, before its first turn) or `match_found` (Play now seated the bot: the game and its "
    "seat). Open to additions: skip a type you do not know.",
    type_enum="NoticeType",
)
PlayerNotice = union_interface(
    "PlayerNotice",
    p.PlayerNotice,
    "A notice of `myEvents`, by its `type`: `your_turn` (your seat, its view and legal actions: answer "
    "with one submitAction); `invitation` (a table you are invited to: acceptInvitation); "
    "`game_started`; `game_finished` (with the winners); `rematch_offered` (the rematch's id: join it "
    "with `rematch` on the finished game); `reminder` (your turn's clock runs out at `deadlineAt`); "
    "`match_found` (Play now seated you: the game and your seat). Open to additions: skip a type you do "
    "not know.",
    type_enum="NoticeType",
)
graphql_type(g.BotNotice)  # each notice type, implementing the interfaces of the streams it is on
graphql_type(p.PlayerNotice)


@strawberry.interface(description="A rule option: its name in `options`, the rule it sets, what it does.")
class RuleOption:
    name: str = strawberry.field(description="Its name in a game's `options`.")
    rule: str = strawberry.field(description="The docs/rules.md id of the rule it sets.")
    doc: str = strawberry.field(description="What it does.")


@strawberry.type(description="An option whose value is a whole number.")
class IntOption(RuleOption):
    default_int: int = strawberry.field(description="Its value unless a game says otherwise.")
    allowed_ints: list[int] = strawberry.field(description="The values it may take.")


@strawberry.type(description="An option that is on or off.")
class BoolOption(RuleOption):
    default_bool: bool = strawberry.field(description="Its value unless a game says otherwise.")
    allowed_bools: list[bool] = strawberry.field(description="The values it may take.")


def rule_options(rules: Any) -> list[RuleOption]:
    """A game's rule options (``GameRules.options``, by name) each as its kind's type: GraphQL has no
    scalar that is a whole number or a boolean."""
    typed: list[RuleOption] = []
    for name, option in read(rules, "options").items():
        said = {"name": name, "rule": option.rule, "doc": option.doc}
        default = option.default_value
        if isinstance(default, bool):
            typed.append(BoolOption(**said, default_bool=default, allowed_bools=list(option.allowed)))
        else:
            typed.append(IntOption(**said, default_int=default, allowed_ints=list(option.allowed)))
    return typed


GameRules = graphql_type_of(
    g.GameRules,
    description="A game: its id, players, deck and rule options.",
    extras={
        "options": Extra(list[RuleOption], rule_options, description="The game's rule options, by kind.")
    },
)

GAME_ID = {"game_id": "The game."}
JoinGameInput = input_type("JoinGameInput", (g.JoinRequest,), "Which seat to take, and how.", ids=GAME_ID)
LeaveGameInput = input_type("LeaveGameInput", (), "The game whose seat you give up.", ids=GAME_ID)
RematchGameInput = input_type(
    "RematchGameInput", (g.RematchRequest,), "The finished game whose rematch you offer or join.", ids=GAME_ID
)
SubmitActionInput = input_type(
    "SubmitActionInput",
    (g.ActionRequest,),
    "The move: the action for the caller's seat, and the version it was chosen at.",
    ids=GAME_ID,
    overrides={"action": (ActionInput, None)},
    more={
        "idempotency_key": (
            str,
            "REST's Idempotency-Key (1 to 200 characters): the same key again answers the first move's "
            "answer, never a second move.",
        )
    },
)
RegisterBotInput = input_type("RegisterBotInput", (g.RegisterBotRequest,), "The bot account to register.")
DeleteBotInput = input_type("DeleteBotInput", (), "The bot account to delete.", ids={"bot_id": "The bot."})

DealInput = input_type(
    "DealInput",
    (g.ExplicitDeal,),
    "An explicit first deal (administrator only): each seat's cards, the kitty.",
)
CreateGameInput = input_type(
    "CreateGameInput",
    (g.NewGame,),
    "The game to create: its kind, its options (`options: {rough: {targetScore: 300}}`), its seats.",
    overrides={
        "kind": (GameKind, "Which game to create."),
        "options": (OptionsInput, None),
        "seed": (
            str,
            "A decimal string (beyond GraphQL's 32-bit Int); administrator only (403 admin_required).",
        ),
        "deal": (DealInput, None),
    },
)

# --- players ---------------------------------------------------------------------------------------

CreatePlayerPayload = graphql_type_of(
    p.PlayerCreated,
    "CreatePlayerPayload",
    description="A guest player, just created: the token is shown once.",
)
Identity = graphql_type_of(
    p.Identity, description="An identity of the app's identity provider: the issuer and the subject."
)
Me = graphql_type_of(p.Me, description="The player you are (your bearer token's).")
MyGame = graphql_type_of(p.MyGame, description="One of your games, as your list shows it.")
MyGameConnection = connection_type(
    "MyGame",
    p.MyGamesPage,
    "games",
    "Your games, a page at a time: your turn first, then waiting or active, then finished.",
)
Invitation = graphql_type_of(
    p.Invitation, description="An invitation to a table: accept it to join, even a private table."
)
UpdateMePayload = payload_type("UpdateMePayload", p.Me, "You, changed.")
LinkIdentityPayload = payload_type("LinkIdentityPayload", p.Me, "You, linked to the identity.")
InvitePlayerPayload = payload_type("InvitePlayerPayload", p.Invitation, "The invitation sent.")
AcceptInvitationPayload = payload_type(
    "AcceptInvitationPayload",
    g.JoinResponse,
    "The seat taken at the invitation's table; its token is shown once.",
)
CreatePlayerInput = input_type("CreatePlayerInput", (p.NewPlayerRequest,), "The guest player to create.")
UpdateMeInput = input_type("UpdateMeInput", (p.UpdateMeRequest,), "What to change (omitted: unchanged).")
LinkIdentityInput = input_type("LinkIdentityInput", (p.LinkIdentityRequest,), "The identity to link.")
InvitePlayerInput = input_type(
    "InvitePlayerInput", (p.InviteRequest,), "Whom to invite to which table.", ids=GAME_ID
)
INVITATION_ID = {"invitation_id": "The invitation."}
AcceptInvitationInput = input_type(
    "AcceptInvitationInput", (p.AcceptInvitationRequest,), "The invitation to accept.", ids=INVITATION_ID
)
DeclineInvitationInput = input_type(
    "DeclineInvitationInput", (), "The invitation to decline.", ids=INVITATION_ID
)
BlockPlayerInput = input_type("BlockPlayerInput", (p.BlockRequest,), "The player to block.")
UnblockPlayerInput = input_type(
    "UnblockPlayerInput", (), "The player to unblock.", ids={"player_id": "The player."}
)


# --- ratings ---------------------------------------------------------------------------------------

Rating = graphql_type_of(
    r.RatingInfo,
    "Rating",
    description="An account's rating in one game kind (openskill: Plackett-Luce, Weng-Lin).",
)
LadderEntry = graphql_type_of(r.LadderEntry, description="A place on a ladder.")
LadderConnection = connection_type(
    "Ladder", r.LadderPage, "entries", "A ladder, a page at a time, best first."
)
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
    extras={
        "options": Extra(
            int | None,
            lambda t: read(t, "options").get("target_score"),
            name="target_score",
            description="The games' target score (`options`); null: the game's.",
        )
    },
)
CreateTournamentPayload = payload_type("CreateTournamentPayload", m.Tournament, "The tournament created.")
CreateTournamentInput = input_type(
    "CreateTournamentInput", (m.CreateTournamentRequest,), "The tournament to create."
)
TournamentEvent = union_interface(
    "TournamentEvent",
    m.TournamentEvent,
    "One event of a tournament's stream, by its `type`: `tournament_created` (commitment, rounds), "
    "`round_started` (its games), `game_finished` (a game's result), `round_finished` (standings) or "
    "`tournament_finished` (the key revealed). Open to additions: skip a type you do not know.",
)
graphql_type(m.TournamentEvent)  # each event type, implementing the interface

# --- webhooks --------------------------------------------------------------------------------------

WebhookEventType = enum_of(w.EventType, "WebhookEventType", "What a webhook message is about (its `type`).")
Webhook = graphql_type_of(w.Webhook)
RegisterWebhookPayload = graphql_type_of(
    w.WebhookRegistered,
    "RegisterWebhookPayload",
    description="A new endpoint and its signing secret, shown this once.",
)
WebhookDelivery = graphql_type_of(w.WebhookDelivery, ids=("delivery_id",))
WebhookDeliveryConnection = connection_type(
    "WebhookDelivery",
    w.WebhookDeliveryPage,
    "deliveries",
    "An endpoint's delivery log, a page at a time, newest first.",
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
        "type": Extra(
            WebhookEventType,
            lambda message: WebhookEventType(read(message, "type")),
            description="What the message is about.",
        ),
        "data": Extra(
            WebhookData,
            lambda message: build(w.DATA_OF[read(message, "type")], read(message, "data")),
            description="The message's facts: its type's data.",
        ),
    },
)
DeadLetter = graphql_type_of(
    w.DeadLetter,
    ids=("dead_letter_id",),
    extras={
        "payload": Extra(
            WebhookPayload,
            lambda dead: build(w.YourTurnMessage, read(dead, "payload")),
            description="The message as it was sent.",
        )
    },
)
DeadLetterConnection = connection_type(
    "DeadLetter", w.DeadLetterPage, "dead_letters", "The dead letters, a page at a time, newest first."
)
RedeliverDeadLetterPayload = graphql_type_of(
    w.Redelivery,
    "RedeliverDeadLetterPayload",
    description="A dead letter enqueued again, with its message id.",
)
UpdateWebhookPayload = payload_type("UpdateWebhookPayload", w.Webhook, "The endpoint, paused or resumed.")
RegisterWebhookInput = input_type(
    "RegisterWebhookInput", (w.RegisterWebhookRequest,), "The endpoint to register."
)
UpdateWebhookInput = input_type(
    "UpdateWebhookInput",
    (w.UpdateWebhookRequest,),
    "Pause or resume an endpoint.",
    ids={"webhook_id": "The endpoint."},
)
DeleteWebhookInput = input_type(
    "DeleteWebhookInput", (), "The endpoint to delete.", ids={"webhook_id": "The endpoint."}
)
RedeliverDeadLetterInput = input_type(
    "RedeliverDeadLetterInput",
    (),
    "The dead letter to deliver again.",
    ids={"dead_letter_id": "The dead letter."},
)

# --- the payloads of the mutations REST answers 204 ------------------------------------------------

DeleteBotPayload = done_payload("DeleteBotPayload", "bot_id", "The bot account deleted.", "The bot deleted.")
DeleteMePayload = done_payload(
    "DeleteMePayload", "player_id", "Your account, deleted.", "Your player id, now gone."
)
DeclineInvitationPayload = done_payload(
    "DeclineInvitationPayload", "invitation_id", "The invitation declined.", "The invitation declined."
)
BlockPlayerPayload = done_payload(
    "BlockPlayerPayload", "player_id", "The player blocked.", "The player blocked."
)
UnblockPlayerPayload = done_payload(
    "UnblockPlayerPayload",
    "player_id",
    "The player unblocked (also when they were not blocked).",
    "The player.",
)
DeleteWebhookPayload = done_payload(
    "DeleteWebhookPayload",
    "webhook_id",
    "The endpoint deleted, with its delivery log.",
    "The endpoint deleted.",
)

# --- matchmaking (Play now) --------------------------------------------------------------------------

Ticket = graphql_type_of(mm.Ticket, ids=("ticket_id",))
Party = graphql_type_of(mm.Party, ids=("party_id",))
CreateTicketPayload = payload_type("CreateTicketPayload", mm.Ticket, "The ticket queued.")
CancelTicketPayload = payload_type("CancelTicketPayload", mm.Ticket, "The ticket, cancelled.")
CreatePartyPayload = payload_type("CreatePartyPayload", mm.Party, "The party, with its invite code.")
JoinPartyPayload = payload_type("JoinPartyPayload", mm.Party, "The party you joined.")
CreateTicketInput = input_type(
    "CreateTicketInput",
    (mm.CreateTicketRequest,),
    "The ticket to queue: its game, rated or casual, the options wanted (none: any), your party.",
    overrides={"kind": (GameKind, "Which game to play."), "options": (OptionsInput, None)},
)
CancelTicketInput = input_type(
    "CancelTicketInput", (), "The waiting ticket to cancel.", ids={"ticket_id": "The ticket's id."}
)
CreatePartyInput = input_type(
    "CreatePartyInput",
    (mm.CreatePartyRequest,),
    "The party's game.",
    overrides={"kind": (GameKind, "Which game the party plays.")},
)
JoinPartyInput = input_type(
    "JoinPartyInput",
    (mm.JoinPartyRequest,),
    "The party to join and its invite code.",
    ids={"party_id": "The party's id."},
)
