"""Request and answer bodies of players (REST and GraphQL alike): a guest's creation, the player's own
record, their list of games, invitations, and the frames of the player's stream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from schema.actions import Model
from schema.display import DisplayText
from schema.games import CLIENT_SEED
from schema.views import LegalAction, StreamEnd, View

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
    identity: Identity | None = None
    created_at: float
    invitations: InvitationsFrom = Field(
        description="Who may invite you: `everyone` (but the players you block) or `nobody`."
    )


def me_of(pid: str, player: Mapping[str, str]) -> Me:
    """The player ``pid`` as the API shows them, from their stored record (REST and GraphQL alike)."""
    issuer = player.get("issuer", "")
    return Me(
        player_id=pid,
        name=player.get("name", ""),
        locale=player.get("locale", ""),
        guest=not issuer,
        identity=Identity(issuer=issuer, subject=player.get("subject", "")) if issuer else None,
        created_at=float(player.get("created_at", "0")),
        invitations="nobody" if player.get("invitations") == "nobody" else "everyone",
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
    game: str
    status: Literal["waiting", "active", "finished"]
    version: int
    seat: int = Field(description="Your seat.")
    to_act: int | None
    your_turn: bool
    updated_at: float


class MyGamesPage(BaseModel):
    games: list[MyGame] = Field(description="Your turn first, then games waiting or in play, then over.")
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
    game: str
    from_player: str = Field(description="The inviting player's id.")
    from_name: str = Field(description="Their name now (empty if they deleted their account).")
    expires_at: float


class InvitationList(BaseModel):
    invitations: list[Invitation]


class AcceptInvitationRequest(Model):
    seat: int | None = Field(default=None, ge=0, le=4, description="The first open seat if omitted.")
    client_seed: str = Field(default="", max_length=64, pattern=CLIENT_SEED, description="As in a join.")


class PlayerNotice(BaseModel):
    """One notice of /v1/me/events. ``your_turn``: the seat, its view and legal actions (answer with one
    POST …/actions); ``invitation``: a table you are invited to; ``game_started``, ``game_over`` (with
    the winners), ``rematch_offered`` (the rematch's id: join it with POST …/rematch of the old game);
    ``reminder``: your turn's clock runs out at ``deadline``."""

    model_config = ConfigDict(extra="forbid")
    id: str
    type: Literal["your_turn", "invitation", "game_started", "game_over", "rematch_offered", "reminder"]
    game_id: str
    game: str | None = Field(default=None, description="With invitation: the game played at the table.")
    version: int | None = None
    seat: int | None = Field(default=None, description="With your_turn and reminder: your seat to act.")
    view: View | None = Field(default=None, description="With your_turn: that seat's view.")
    legal_actions: list[LegalAction] | None = Field(default=None, description="With your_turn.")
    winners: list[int] | None = Field(default=None, description="With game_over.")
    invitation_id: str | None = Field(default=None, description="With invitation.")
    from_player: str | None = Field(default=None, description="With invitation.")
    from_name: str | None = Field(default=None, description="With invitation.")
    expires_at: float | None = Field(default=None, description="With invitation.")
    rematch_id: str | None = Field(default=None, description="With rematch_offered.")
    deadline: float | None = Field(default=None, description="With reminder: when the turn's clock runs out.")


class PlayerStreamFrame(RootModel[Annotated[PlayerNotice | StreamEnd, Field(discriminator="type")]]):
    """One frame of /v1/me/events (SSE ``data``, or one NDJSON line): a notice, or the ``StreamEnd``
    frame of a stream that ends early."""
