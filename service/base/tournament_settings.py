"""The settings of tournaments (service/games/tournaments.py, workers/jobs/tournaments.py): a part of
:class:`service.base.settings.Settings`, kept in a module of its own so each stays short."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DAY = 24 * 3600


class TournamentSettings(BaseSettings):
    """Environment variables ``ATOUT_TOURNAMENT_*``."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    tournament_poll_seconds: float = Field(
        default=1.0,
        ge=0.1,
        le=60,
        description="Seconds between two checks of a tournament's round (an RQ job each): how soon the next "
        "round starts once the last game of a round is over.",
    )
    tournament_max_seconds: int = Field(
        default=DAY,
        ge=60,
        le=30 * DAY,
        description="Seconds a tournament may run; past them it stops (`stopped`), scored on the games "
        "finished, and its key is revealed. Bounds the checks a tournament can cost.",
    )
    tournament_ttl: int = Field(
        default=30 * DAY,
        ge=3600,
        description="Seconds a tournament's record (standings, games, key) is kept after its last change.",
    )
    tournament_max_games: int = Field(
        default=4000,
        ge=2,
        le=100_000,
        description="Games one tournament may play in all (entrants, rounds and deals multiplied); a larger "
        "one is refused (422 invalid_tournament).",
    )
    tournament_account_max_games: int = Field(
        default=400,
        ge=2,
        le=100_000,
        description="Games a tournament a bot account creates may play in all (the administrator's: "
        "`tournament_max_games`); a larger one is refused (422 invalid_tournament).",
    )
    tournament_max_running_games: int = Field(
        default=2000,
        ge=1,
        le=1_000_000,
        description="Tournament games the whole server runs at once (every tournament's, the "
        "administrator's too), besides the caps on unfinished games every game counts against "
        "(`ATOUT_MAX_OPEN_GAMES_PER_CREATOR` for a bot account's tournaments, `ATOUT_MAX_OPEN_GAMES`). "
        "A round is admitted whole: one larger than this is refused at creation (422 invalid_tournament); "
        "a first round that does not fit yet gets 503 tournaments_full, a later one waits until it fits.",
    )
    tournament_account_running: int = Field(
        default=2,
        ge=1,
        le=100,
        description="Tournaments one bot account may have running at once; one more gets 429 "
        "too_many_tournaments.",
    )
