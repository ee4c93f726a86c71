"""The settings of players (guests and identified by their app's JWTs), their games index, invitations and
turn reminders:
a part of :class:`service.base.settings.Settings`, kept in a module of its own so each stays short."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.base.issuers import Issuers

DAY = 24 * 3600


class PlayerSettings(BaseSettings):
    """Environment variables ``ATOUT_PLAYER_*``, ``ATOUT_INVITATION*``, ``ATOUT_REMINDER_*``, ``ATOUT_JWT_*``
    and ``ATOUT_JWKS_*``."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    player_idle_ttl: int = Field(
        default=365 * DAY,
        ge=60,
        description="Seconds a player (guest or identified) is kept without a request of theirs; then "
        "the account expires like a deleted one.",
    )
    player_max_games: int = Field(
        default=300,
        ge=1,
        le=10_000,
        description="Games one player's list holds (finished ones are dropped first); a join beyond it "
        "gets 429 too_many_games.",
    )
    invitation_ttl: int = Field(
        default=7 * DAY, ge=60, description="Seconds an invitation to a table stays open."
    )
    invitations_per_player: int = Field(
        default=100, ge=1, description="Open invitations one player may hold; one more gets 429."
    )
    invitations_per_inviter: int = Field(
        default=3,
        ge=1,
        description="Open invitations one player may hold from one inviter (so nobody fills another's "
        "list alone); one more gets 429 too_many_pending_invitations. Inviting again to the same table "
        "refreshes the invitation instead.",
    )
    invitations_per_hour: int = Field(
        default=30,
        ge=1,
        description="Invitations one player may send in an hour, to everyone together (refreshed ones "
        "count); one more gets 429 too_many_invitations_sent.",
    )
    player_notices_per_sender: int = Field(
        default=10,
        ge=1,
        description="Notices one player's invitations and rematch offers may put on another player's "
        "stream in an hour; past it the invitation still lands in the list, without a notice.",
    )
    player_max_blocks: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="Players one player may block (refuse invitations from); one more gets 409 "
        "too_many_blocks (refusing everyone's is the `invitations` preference).",
    )
    reminder_min_turn_seconds: int = Field(
        default=3600,
        ge=1,
        description="A turn clock this long or longer sends the player a `reminder` before it runs out "
        "(when a quarter of it is left, at most a day before).",
    )
    # --- players signed in by their app (service/identity/, docs/operations.md "Identity from your app") ---
    jwt_issuers: Issuers = Field(
        default=[],
        description="JSON list of the issuers whose bearer JWTs say who a player is: `issuer`, `audience`, "
        "`jwks_url` or `keys` (PEM public keys or a JWKS), `algorithms` (RS256, ES256, EdDSA: default all).",
    )
    jwt_leeway_seconds: int = Field(
        default=60, ge=0, le=300, description="Seconds of clock skew allowed on a JWT's exp, nbf and iat."
    )
    jwks_refetch_seconds: int = Field(
        default=30, ge=1, le=3600, description="Least seconds between two fetches of an issuer's JWKS."
    )
    jwks_max_age_seconds: int = Field(
        default=3600, ge=1, le=DAY, description="Seconds an issuer's fetched keys are used before a refresh."
    )
    jwks_fetch_timeout: float = Field(
        default=5.0, gt=0, le=60, description="Seconds one JWKS fetch may take in all (connect and read)."
    )
    jwks_max_bytes: int = Field(
        default=65_536, ge=1024, le=1_048_576, description="Largest JWKS document read, in bytes."
    )
