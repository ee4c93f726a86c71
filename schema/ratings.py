"""Answer bodies of ratings and ladders (REST and GraphQL alike): a ladder's page, an account's place on
its ladder with its neighbours, an account's rating and its history (service/games/ratings.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schema.kinds import GameKind
from schema.moments import Moment

ACCOUNT_ID = r"^(player|bot|builtin):[A-Za-z0-9_-]{1,64}$"
"""A rated account: ``player:<id>``, ``bot:<id>`` (a bot account) or ``builtin:<level>`` (a built-in bot)."""


class RatingInfo(BaseModel):
    account_id: str = Field(description="`player:<id>`, `bot:<id>` (a bot account) or `builtin:<level>`.")
    kind: GameKind
    rating: float = Field(description="The display rating: mu - 3*sigma (openskill's ordinal).")
    mu: float = Field(description="The estimated skill (Plackett-Luce, Weng-Lin); 25 at the start.")
    sigma: float = Field(description="The uncertainty of mu; 25/3 at the start, smaller with each match.")
    matches: int = Field(description="Rated matches of this game kind that counted (weight above 0).")
    provisional: bool = Field(description="Fewer rated matches than the server's threshold (10 by default).")


class LadderEntry(RatingInfo):
    rank: int = Field(description="1 for the best on this ladder.")
    name: str = Field(description="The player's or bot account's name; a built-in bot's level.")


class LadderPage(BaseModel):
    kind: GameKind
    board: Literal["people", "bots"]
    total: int = Field(description="Accounts on this ladder.")
    entries: list[LadderEntry] = Field(description="Best first.")
    next_cursor: str | None = Field(
        description="Send it back as `cursor` for the next page; null on the last page. Opaque."
    )


class LadderPosition(BaseModel):
    kind: GameKind
    board: Literal["people", "bots"]
    account_id: str
    rank: int
    entries: list[LadderEntry] = Field(description="The account and its neighbours either side, best first.")


class RatingChange(BaseModel):
    game_id: str = Field(description="The rated game.")
    rated_at: Moment = Field(description="When the game was rated (its end).")
    mu: float
    sigma: float
    ordinal: float = Field(description="The display rating after this match.")
    delta: float = Field(description="The display rating's change.")
    rank: int = Field(description="The account's place in the match (1 first; a leaver comes last).")
    left: bool = Field(description="The account gave its seat up during the match.")
    weight: float = Field(description="How much the match counted (1; less for repeated pairings).")


class RatingHistory(BaseModel):
    rating: RatingInfo
    history: list[RatingChange] = Field(description="Newest first.")
