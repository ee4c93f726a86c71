# mypy: disable-error-code="untyped-decorator,arg-type,return-value,list-item,valid-type,no-any-return"
"""Strawberry types of the GraphQL API: the same shapes as the REST models (``schema.games``)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

import engine
from schema import games as game_models
from schema import views
from schema.actions import Action
from schema.graphql_models import (
    OPTIONS_OF_GAME,
    ActionInput,
    Card,
    Event,
    GameAction,
    GameEvent,
    GameOptions,
    GameView,
    LegalAction,
    OptionsInput,
    build,
)

__all__ = [
    "ActionInput",
    "Event",
    "GameAction",
    "GameEvent",
    "GameOptions",
    "GameView",
    "LegalAction",
    "OptionsInput",
]


@strawberry.type(description="A seat: `open`, `human` or `bot:<level>`.")
class Seat:
    seat: int
    kind: str
    name: str
    filled: bool


@strawberry.type(description="A game and its seats; `seed` once the match is over (or for the admin).")
class Game:
    id: strawberry.ID
    game: str
    players: int
    options: GameOptions
    status: str
    version: int
    to_act: int | None
    seats: list[Seat]
    listed: bool
    created_at: float
    winners: list[int] | None
    seed: str | None = strawberry.field(
        description="The match key K (64 hex digits), or the administrator's whole number as a decimal "
        "string; once the match is over, or for the admin (docs/fairness.md)."
    )
    commitment: str | None = strawberry.field(
        default=None, description="SHA-256 of the match key, hex: published from the game's creation on."
    )
    rematch: strawberry.ID | None = strawberry.field(default=None, description="The rematch, once offered.")
    turn_seconds: int | None = strawberry.field(default=None, description="Per-turn time limit, if any.")
    rated: bool = strawberry.field(default=False, description="The match moves its accounts' ratings.")

    @classmethod
    def of(cls, s: game_models.GameSummary) -> Game:
        return cls(
            id=strawberry.ID(s.id),
            game=s.game,
            players=s.players,
            options=build(OPTIONS_OF_GAME[s.game], s.options),
            status=s.status,
            version=s.version,
            to_act=s.to_act,
            seats=[Seat(seat=x.seat, kind=x.kind, name=x.name, filled=x.filled) for x in s.seats],
            listed=s.listed,
            created_at=s.created_at,
            winners=s.winners,
            seed=None if s.seed is None else str(s.seed),
            commitment=s.commitment,
            rematch=None if s.rematch is None else strawberry.ID(s.rematch),
            turn_seconds=s.turn_seconds,
            rated=s.rated,
        )


@strawberry.type(description="A page of the open games, newest first.")
class GamePage:
    games: list[Game]
    next_cursor: str | None = strawberry.field(
        description="Pass it as `cursor` for the next page; null on the last page. Opaque."
    )

    @classmethod
    def of(cls, page: game_models.GameList) -> GamePage:
        return cls(games=[Game.of(s) for s in page.games], next_cursor=page.next_cursor)


@strawberry.type(description="What the caller's seat may see (a spectator's view without a token).")
class View:
    game_id: strawberry.ID
    version: int
    seat: int | None
    status: str
    view: GameView

    legal_actions: list[LegalAction] | None = strawberry.field(
        description="The seat's legal actions when it is its turn; null otherwise (and for a spectator)."
    )

    @classmethod
    def of(cls, v: game_models.ViewResponse) -> View:
        return cls(
            game_id=strawberry.ID(v.game_id),
            version=v.version,
            seat=v.seat,
            status=v.status,
            view=build(views.View, v.view),
            legal_actions=None
            if v.legal_actions is None
            else build(list[views.LegalAction], v.legal_actions),
        )


@strawberry.type(
    description="The caller's next turn, in the answer to its move, when the caller holds the seat to act "
    "(its own again, or another seat of the same bot account): that seat's view and legal actions."
)
class NextTurn:
    seat: int
    version: int
    view: GameView
    legal_actions: list[LegalAction]

    @classmethod
    def of(cls, n: game_models.NextTurn) -> NextTurn:
        return cls(
            seat=n.seat,
            version=n.version,
            view=build(views.View, n.view),
            legal_actions=build(list[views.LegalAction], n.legal_actions),
        )


@strawberry.type
class LegalActions:
    game_id: strawberry.ID
    version: int
    seat: int
    to_act: int | None
    actions: list[LegalAction]

    @classmethod
    def of(cls, la: game_models.LegalActionsResponse) -> LegalActions:
        return cls(
            game_id=strawberry.ID(la.game_id),
            version=la.version,
            seat=la.seat,
            to_act=la.to_act,
            actions=build(list[views.LegalAction], la.actions),
        )


@strawberry.type
class CreateGameResult:
    game: Game
    invite_code: str | None


CLIENT_SEED_DOC = (
    "Your own entropy (up to 64 printable ASCII characters), mixed into every hand's seed (docs/fairness.md)."
)
ClientSeed = Annotated[str, strawberry.argument(description=CLIENT_SEED_DOC)]
"""A join's ``clientSeed`` argument (joinSeat, rematch, acceptInvitation)."""


@strawberry.type(description="The seat token is shown once: send it as `Authorization: Bearer <token>`.")
class JoinResult:
    game_id: strawberry.ID
    seat: int
    token: str
    started: bool


@strawberry.type(description="`left`: the seat is open again; `replaced`: a bot plays it out.")
class LeaveResult:
    game_id: strawberry.ID
    seat: int
    outcome: str


@strawberry.type(description="Your seat in the rematch; the token is shown once.")
class RematchResult:
    game: Game
    seat: int
    token: str
    started: bool


@strawberry.type
class ActionResult:
    game_id: strawberry.ID
    version: int
    seat: int
    action: GameAction
    events: list[Event]
    to_act: int | None
    status: str
    winners: list[int] | None
    replayed: bool
    next_turn: NextTurn | None = strawberry.field(
        description="When the caller holds the seat to act next: its view and legal actions (no other "
        "request needed). Null when another player is to act or the match is over."
    )

    @classmethod
    def of(cls, r: game_models.ActionResponse, replayed: bool) -> ActionResult:
        return cls(
            game_id=strawberry.ID(r.game_id),
            version=r.version,
            seat=r.seat,
            action=build(Action, r.action),
            events=build(list[views.EventOfMove], r.events),
            to_act=r.to_act,
            status=r.status,
            winners=r.winners,
            replayed=replayed,
            next_turn=None if r.next_turn is None else NextTurn.of(r.next_turn),
        )


def game_event(delivered: dict[str, Any]) -> GameEvent:
    """An event of a game's stream as its typed GraphQL object."""
    return build(views.StreamEvent, delivered)


@strawberry.input(description="An explicit first deal (administrator only): each seat's cards, the kitty.")
class DealInput:
    dealer: int
    hands: list[list[Card]]
    kitty: list[Card] = strawberry.field(default_factory=list)


@strawberry.input
class CreateGameInput:
    game: str
    options: OptionsInput | None = None
    seats: list[str] | None = None
    seed: str | None = strawberry.field(
        default=None, description="A decimal string; administrator only (403 admin_required otherwise)."
    )
    deal: DealInput | None = None
    listed: bool = True
    turn_seconds: int | None = strawberry.field(
        default=None,
        description="Per-turn time limit (5 s to 30 days: 2592000 s); a bot plays when it runs out, and a "
        "player with a clock of an hour or more gets a reminder before.",
    )
    timeouts_to_bot: int | None = strawberry.field(
        default=None, description="After this many timed-out turns in a row a bot takes the seat over."
    )
    rated: bool = strawberry.field(
        default=False,
        description="A rated game: identities only (players, bot accounts, built-in bots, each once); its "
        "end moves their ratings (`ladder`).",
    )


@strawberry.type(description="A bot account; the API key is shown once and stored only hashed.")
class BotRegistration:
    bot_id: strawberry.ID
    name: str
    api_key: str


@strawberry.type(
    description="`your_turn` (with the seat's view and legal actions), `game_over` (with winners) or "
    "`tournament_game` (a tournament's game: its seats and their seat tokens, before its first turn)."
)
class BotNotice:
    id: str
    type: str
    game_id: strawberry.ID
    version: int
    seat: int | None
    view: GameView | None
    legal_actions: list[LegalAction] | None
    winners: list[int] | None
    tournament_id: strawberry.ID | None = strawberry.field(description="With tournament_game.")
    seats: list[int] | None = strawberry.field(description="With tournament_game: the bot's seats.")
    tokens: list[str] | None = strawberry.field(
        description="With tournament_game: the seat token of each of `seats`, in order."
    )

    @classmethod
    def of(cls, n: dict[str, Any]) -> BotNotice:
        return cls(
            id=n["id"],
            type=n["type"],
            game_id=strawberry.ID(n["game_id"]),
            version=n["version"],
            seat=n.get("seat"),
            view=build(views.View, n.get("view")),
            legal_actions=build(list[views.LegalAction], n.get("legal_actions")),
            winners=n.get("winners"),
            tournament_id=strawberry.ID(n["tournament_id"]) if n.get("tournament_id") else None,
            seats=n.get("seats"),
            tokens=n.get("tokens"),
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


@strawberry.type(description="A game: its id, players, deck and rule options.")
class GameRules:
    id: str
    name: str
    players: int
    teams: bool
    deck: list[Card]
    options: list[RuleOption]

    @classmethod
    def every(cls) -> list[GameRules]:
        found = []
        for rules in engine.games().values():
            options: list[RuleOption] = []
            for name, option in rules["options"].items():
                said = {"name": name, "rule": option["rule"], "doc": option["doc"]}
                if isinstance(option["default"], bool):
                    options.append(
                        BoolOption(
                            **said, default_bool=option["default"], allowed_bools=list(option["allowed"])
                        )
                    )
                else:
                    options.append(
                        IntOption(**said, default_int=option["default"], allowed_ints=list(option["allowed"]))
                    )
            found.append(
                cls(
                    id=rules["id"],
                    name=rules["name"],
                    players=rules["players"],
                    teams=rules["teams"],
                    deck=list(rules["deck"]),
                    options=options,
                )
            )
        return found
