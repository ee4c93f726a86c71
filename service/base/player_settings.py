"""The settings of players (guests and identified), their games index, invitations and turn reminders:
a part of :class:`service.base.settings.Settings`, kept in a module of its own so each stays short."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DAY = 24 * 3600


class PlayerSettings(BaseSettings):
    """Environment variables ``ATOUT_PLAYER_*``, ``ATOUT_INVITATION_*`` and ``ATOUT_REMINDER_*``."""

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
    reminder_min_turn_seconds: int = Field(
        default=3600,
        ge=1,
        description="A turn clock this long or longer sends the player a `reminder` before it runs out "
        "(when a quarter of it is left, at most a day before).",
    )
