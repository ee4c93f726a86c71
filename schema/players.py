"""Request and answer bodies of players (REST and GraphQL alike): a guest's creation, the player's own
record, their list of games, invitations, and the frames of the player's stream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from schema.actions import Model
from schema.display import DisplayText
from schema.games import CLIENT_SEED, GameFinishedNotice, YourTurnNotice
from schema.kinds import GameKind, GameStatus
from schema.match_notices import MatchFoundNotice
from schema.moments import Moment
from schema.views import StreamEnd

LOCALE = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"
"""A BCP 47 language tag in its common forms (``fr``, ``fr-CA``, ``en-US``)."""

PLAYER_ID = r"^[A-Za-z0-9]{1,64}$"


class NewPlayerRequest(Model):
    name: DisplayText = Field(default="", max_length=40, description="Shown at the tables you join.")
    locale: str = Field(default="", max_length=35, pattern=f"({LOCALE})|^$", description="e.g. `fr-CA`.")


class PlayerCreated(BaseModel):
    player_id: str
    name: str
    token: str = Field(
        description="Shown once, stored only hashed: send it as `Authorization: Bearer <token>` to join "
        "tables and play them from any device, and to read /v1/me."
    )


class Identity(BaseModel):
    issuer: str
    subject: str


InvitationsFrom = Literal["everyone", "nobody"]
"""Who may invite a player: everyone (but the players they block), or nobody."""


class Me(BaseModel):
    player_id: str
    name: str
    locale: str
    guest: bool = Field(description="True until the player is linked to an identity of the app's provider.")
    identity: Identity | None = Field(description="The linked identity; null for a guest.")
    created_at: Moment
    invitations: InvitationsFrom = Field(
        description="Who may invite you: `everyone` (but the players you block) or `nobody`."
    )


def me_of(pid: str, player: Mapping[str, str]) -> Me:
    """The player ``pid`` as the API shows them, from their stored record (REST and GraphQL alike)."""
    issuer = player.get("issuer", "")
    identity = {"issuer": issuer, "subject": player.get("subject", "")} if issuer else None
    return Me.model_validate(
        {
            "player_id": pid,
            "name": player.get("name", ""),
            "locale": player.get("locale", ""),
            "guest": not issuer,
            "identity": identity,
            "created_at": player.get("created_at", "0"),  # POSIX seconds, stored: a moment here
            "invitations": "nobody" if player.get("invitations") == "nobody" else "everyone",
        }
    )


class UpdateMeRequest(Model):
    name: DisplayText | None = Field(default=None, min_length=1, max_length=40)
    locale: str | None = Field(default=None, max_length=35, pattern=LOCALE)
    invitations: InvitationsFrom | None = Field(
        default=None, description="Who may invite you: `everyone` (but the players you block) or `nobody`."
    )


class LinkIdentityRequest(Model):
    identity_token: str = Field(
        min_length=1, max_length=8192, description="A JWT of a trusted issuer naming the identity to link."
    )


class MyGame(BaseModel):
    game_id: str
    kind: GameKind
    status: GameStatus
    version: int
    seat: int = Field(description="Your seat.")
    to_act: int | None
    your_turn: bool
    updated_at: Moment = Field(description="When the game last moved.")


class MyGamesPage(BaseModel):
    games: list[MyGame] = Field(description="Your turn first, then games waiting or in play, then finished.")
    next_cursor: str | None = Field(
        description="Send it back as `cursor` for the next page; null on the last page. Opaque."
    )


class InviteRequest(Model):
    player_id: str = Field(max_length=64, pattern=PLAYER_ID, description="The player to invite.")


class BlockRequest(Model):
    player_id: str = Field(
        max_length=64, pattern=PLAYER_ID, description="The player whose invitations you refuse from now on."
    )


class BlockList(BaseModel):
    players: list[str] = Field(description="The ids of the players you block, in order.")


class Invitation(BaseModel):
    invitation_id: str
    game_id: str
    kind: GameKind
    from_player_id: str = Field(description="The inviting player's id.")
    from_name: str = Field(description="Their name now (empty if they deleted their account).")
    expires_at: Moment


class InvitationList(BaseModel):
    invitations: list[Invitation]


class AcceptInvitationRequest(Model):
    seat: int | None = Field(default=None, ge=0, le=4, description="The first open seat if omitted.")
    client_seed: str = Field(default="", max_length=64, pattern=CLIENT_SEED, description="As in a join.")


class InvitationNotice(BaseModel):
    """You are invited to a table: accept it with POST /v1/me/invitations/{invitation_id}/accept."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["invitation"]
    game_id: str
    kind: GameKind = Field(description="The game played at the table.")
    invitation_id: str
    from_player_id: str = Field(description="The inviting player's id.")
    from_name: str = Field(description="Their name now (empty if they deleted their account).")
    expires_at: Moment


class GameStartedNotice(BaseModel):
    """A game you hold a seat in has started (its last seat was taken)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["game_started"]
    game_id: str
    version: int


class RematchOfferedNotice(BaseModel):
    """A finished game of yours has a rematch: join it with POST …/rematch of the finished game."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["rematch_offered"]
    game_id: str = Field(description="The finished game.")
    rematch_id: str = Field(description="The rematch's game id.")


class ReminderNotice(BaseModel):
    """Your turn has been waiting: its clock runs out at ``deadline_at``."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["reminder"]
    game_id: str
    version: int
    seat: int = Field(description="Your seat to act.")
    deadline_at: Moment = Field(description="When the turn's clock runs out.")


PlayerNotice = Annotated[
    YourTurnNotice
    | InvitationNotice
    | GameStartedNotice
    | GameFinishedNotice
    | RematchOfferedNotice
    | ReminderNotice
    | MatchFoundNotice,
    Field(discriminator="type"),
]
"""One notice of /v1/me/events, by its ``type`` (open to additions: skip a type you do not know):
``your_turn``, ``invitation``, ``game_started``, ``game_finished``, ``rematch_offered``, ``reminder``,
``match_found``."""


class PlayerStreamFrame(
    RootModel[
        Annotated[
            YourTurnNotice
            | InvitationNotice
            | GameStartedNotice
            | GameFinishedNotice
            | RematchOfferedNotice
            | ReminderNotice
            | MatchFoundNotice
            | StreamEnd,
            Field(discriminator="type"),
        ]
    ]
):
    """One frame of /v1/me/events (SSE ``data``, or one NDJSON line): a notice, or the ``StreamEnd``
    frame of a stream that ends early."""
