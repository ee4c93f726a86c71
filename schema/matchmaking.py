"""Play now: the matchmaking tickets and parties of /v1/matchmaking. The notice a ticket ends with
(``match_found``) is in schema/match_notices.py; the pure matching is
service/games/matching.py; the part that runs it, service/games/matchmaking.py."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from schema.actions import Model
from schema.games import OPTIONS_RULE, GameOptions
from schema.kinds import GameKind
from schema.moments import Moment

TicketStatus = Literal["waiting", "matched", "cancelled", "expired"]


class CreateTicketRequest(Model):
    """A ticket to play a game of ``kind`` now, with strangers or a party, at the first table that fits."""

    kind: GameKind
    rated: bool = Field(
        default=False,
        description="A rated game (its end moves the ratings): matched by rating, the window widening with "
        'the wait (docs/apps.md, "Matchmaking"). Casual pools fill fastest.',
    )
    options: dict[str, Any] | None = Field(
        default=None,
        description="The rule options wanted (as a create request's, checked the same: 422 "
        f"invalid_options); null or absent: any options, the table's or the game's. {OPTIONS_RULE}",
    )
    party_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Queue your party whole (you must lead it): its members sit at one table, partners "
        "opposite in a partnership game.",
    )
    bots_for_the_rest: bool = Field(
        default=False,
        description="A private table at once: you (and your party) and built-in bots for the other "
        "chairs, no strangers. Casual only, unless the server allows bots in rated games.",
    )


class Ticket(BaseModel):
    """A ticket and where it is: waiting in its pool, matched (its game and your seat), cancelled or
    expired. Only its owner reads it."""

    ticket_id: str
    kind: GameKind
    rated: bool
    options: GameOptions | None = Field(description="The options asked; null: any.")
    party_id: str | None
    members: list[str] = Field(description="The accounts it seats (yours first, then your party's).")
    status: TicketStatus
    created_at: Moment
    expires_at: Moment = Field(description="When a ticket still waiting expires (its status `expired`).")
    estimate_seconds: int = Field(
        description="A rough wait from the pool's depth and the server's bot fill; 0 once matched."
    )
    game_id: str | None = Field(description="The game it was matched into; null until then.")
    seat: int | None = Field(description="Your seat in that game; null until then.")


class CreatePartyRequest(Model):
    """A party for ``kind``: its leader (you) queues it whole."""

    kind: GameKind


class JoinPartyRequest(Model):
    invite_code: str = Field(min_length=1, max_length=64, description="The code the party's leader shares.")


class Party(BaseModel):
    """Friends who queue together: its leader and members (at most the seats of its game)."""

    party_id: str
    kind: GameKind
    leader: str = Field(description="The account that leads it (queues its ticket).")
    members: list[str] = Field(description="Every member, the leader first.")
    invite_code: str | None = Field(
        description="For its leader: what a friend sends to join; null for others."
    )
    created_at: Moment
