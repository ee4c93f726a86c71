"""The settings of rated games and their ladders: a part of :class:`service.base.settings.Settings`, kept in
a module of its own so each stays short (service/games/ratings.py reads them)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class RatingSettings(BaseSettings):
    """Environment variables ``ATOUT_RATING_*``."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    rating_provisional_matches: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="A rating is provisional (flagged on the ladder) until this many rated matches of the "
        "game kind.",
    )
    rating_repeat_full: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Rated matches between the very same accounts within 24 hours that count in full; "
        "each further one counts half as much as the one before.",
    )
    rating_repeat_max: int = Field(
        default=6,
        ge=1,
        le=100,
        description="Past this many rated matches between the very same accounts within 24 hours, a match "
        "does not move their ratings at all (it is still recorded in their history, with weight 0).",
    )
    rating_turn_seconds: int = Field(
        default=86_400,
        ge=5,
        le=30 * 86_400,
        description="The turn clock of a rated game created without `turn_seconds`: when it runs out a bot "
        "plays the move, so a rated match cannot be stalled until it expires unrated.",
    )
    rating_timeouts_to_bot: int = Field(
        default=3,
        ge=1,
        le=100,
        description="The `timeouts_to_bot` of a rated game created without one: after this many timed-out "
        "turns in a row a bot takes the seat for good, and its account is rated as having left.",
    )
    rating_history_length: int = Field(
        default=200,
        ge=1,
        le=10_000,
        description="Rating changes kept per account and game kind (the oldest are dropped).",
    )
    rating_newcomer_weight: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="The share of its change an established account's rating moves by in a rated match "
        "against a provisional opponent (the provisional account moves in full): a win over a fresh guest "
        "or bot account, which costs one request, is worth little (service/games/ratings.py).",
    )
    rated_identities: Literal["any", "identified"] = Field(
        default="any",
        description="Who sits at a rated table: `any` identity (a guest player, a player of a trusted "
        "issuer, a bot account), or `identified` (never a guest player: only players signed in with a "
        "trusted issuer's JWT, bot accounts and built-in bots).",
    )
