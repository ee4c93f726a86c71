"""The notice a matched ticket ends with (``match_found``), on a player's and a bot's streams (a ticket
that expires says so when read: ``status`` ``expired``): apart from
schema/matchmaking.py so that the notice unions (schema/games.py, schema/players.py) take them without
importing the games' models back."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schema.kinds import GameKind


class MatchFoundNotice(BaseModel):
    """A ticket of yours was matched: the game and your seat, already started. Act with your own
    credential (a player's or a bot's API key): your seat is yours, no seat token needed."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    type: Literal["match_found"]
    ticket_id: str = Field(description="The ticket matched (yours, or your party leader's).")
    game_id: str
    kind: GameKind
    version: int = Field(description="The game's version when you were seated (it has started).")
    seat: int = Field(description="Your seat.")
