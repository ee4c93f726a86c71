"""Tournaments' bodies: the creation request and the tournament as it is read (entrants, rounds, games
with their replay links, standings with intervals, head-to-head), both APIs' contract.

Entrants are named by kind: ``bot:<level>`` a built-in bot (no account), ``account:<bot_id>`` a bot
account, which plays through its stream (``tournament_game`` then ``your_turn`` notices). An entrant is
typed, not free text: the pattern :data:`ENTRANT` (the JSON Schema ``pattern`` of each item, and the
check, with a message saying what is allowed), because an entrant's kind becomes the seat's kind and
name of every game it plays: an unknown level would be a seat nobody plays, and free text a seat name
past the display rule (schema/display.py). Which accounts may be entered is the service's check
(service/games/tournaments.py: the administrator enters any, a bot account itself only)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, RootModel
from pydantic_core import PydanticCustomError

import engine
from schema.actions import Model
from schema.display import DisplayText
from schema.moments import Moment
from schema.views import StreamEnd

LEVELS = ("random", "heuristic", "expert", "learned")
"""The built-in bots' levels (workers.bots.LEVELS, which the schema does not import: it runs them)."""
ENTRANT = rf"^(bot:({'|'.join(LEVELS)})|account:[A-Za-z0-9_-]{{1,64}})$"
_ENTRANT = re.compile(ENTRANT)


def _entrant(value: str) -> str:
    """An entrant of the form :data:`ENTRANT`; the refusal says what is allowed, never echoes the value
    (it may be long, or hold characters no log should show)."""
    if not _ENTRANT.fullmatch(value):  # not match: Python's `$` also matches before a final newline
        raise PydanticCustomError(
            "invalid_entrant",
            "must be `bot:random`, `bot:heuristic`, `bot:expert`, `bot:learned` or `account:<bot_id>` (a bot "
            "account's id)",
        )
    return value


Entrant = Annotated[
    str,
    AfterValidator(_entrant),
    Field(
        description="`bot:<level>` (a built-in bot: `random`, `heuristic` or `expert`) or "
        "`account:<bot_id>`.",
        json_schema_extra={"pattern": ENTRANT, "maxLength": 72},
    ),
]


def _target_scores() -> str:
    """The target scores each partnership game takes, from the engine's own option (one truth)."""
    said = []
    for game, title in (("five_hundred", "Le 500"), ("rough", "Le Rough")):
        allowed = engine.game(game).option_specs["target_score"].allowed
        said.append(f"{title} ({game}): {', '.join(str(v) for v in allowed)}")
    return "; ".join(said)


TARGET_SCORES = _target_scores()


class CreateTournamentRequest(Model):
    kind: Literal["five_hundred", "rough"] = Field(
        description="A partnership game: each entrant holds one team's two seats (euchre5 has no teams)."
    )
    format: Literal["round_robin", "swiss"] = "round_robin"
    rounds: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Swiss: the rounds to play. Round robin: omit (every pairing once).",
    )
    deals: int = Field(default=1, ge=1, le=16, description="Duplicate deals a pairing plays: two games each.")
    duplicate: bool = Field(
        default=True,
        description="True: both games of a deal deal the same cards, the teams swapped, so luck cancels; "
        "each entrant then holds both halves of the cards, so only entrants trusted not to remember "
        "(built-in bots, your own bots) should play it. False: each game its own cards, no entrant sees a "
        "deal twice (strangers' bots), the luck left to the intervals.",
    )
    entrants: list[Entrant] = Field(
        min_length=2,
        max_length=64,
        description="`bot:random`, `bot:heuristic`, `bot:expert` (a built-in bot; enter one several times "
        "to have several) or `account:<bot_id>` (a bot account, once at most; its name, under the display "
        "rule, is the seats' name). The administrator may enter any bot account; a bot account may "
        "enter itself and built-in bots only (403 entrant_not_allowed): another account's consent is "
        "the administrator's to arrange. Anything else: 422 invalid_request (type `invalid_entrant`).",
        examples=[["bot:random", "bot:heuristic", "account:abc123"]],
    )
    move_seconds: int = Field(
        default=10,
        ge=1,
        le=3600,
        description="Time budget a move for a bot account: past it the server plays the move (a heuristic "
        "bot) and the game is flagged for that entrant.",
    )
    target_score: int | None = Field(
        default=None,
        ge=200,
        le=2000,
        description="The games' target score (shorter tournaments); default the game's. One the game "
        f"takes: {TARGET_SCORES} (another: 422 invalid_options).",
    )
    name: DisplayText = Field(default="", max_length=100)


class TournamentEntrant(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int
    entrant: str = Field(description="As entered: `bot:<level>` or `account:<bot_id>`.")
    name: str


class TournamentGame(BaseModel):
    """One game: its round, table, duplicate deal and seating, who held seats 0+2 (``a``) and 1+3."""

    model_config = ConfigDict(extra="forbid")
    game_id: str
    round: int
    table: int
    deal: int
    seating: int = Field(
        description="0: the pairing's first entrant at seats 0+2; 1: the same deals, teams swapped."
    )
    a: int = Field(description="The entrant at seats 0+2 (index into `entrants`).")
    b: int = Field(description="The entrant at seats 1+3.")
    status: Literal["active", "finished", "expired"] = Field(
        description="`active`, `finished`, or `expired` (gone before its end: it counts as no game)."
    )
    a_score: int | None = Field(default=None, description="Once finished: the team at seats 0+2's score.")
    b_score: int | None = Field(default=None, description="Once finished: the team at seats 1+3's score.")
    hands: int | None = Field(default=None, description="Once finished: the hands played.")
    winner: Literal["a", "b", "tie"] | None = Field(default=None, description="Once finished.")
    flagged: list[int] = Field(
        default_factory=list, description="Entrants the server auto-played (no move in time)."
    )
    replay: str = Field(description="The game's replay log (REST path), complete once the game is over.")


class TournamentStanding(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rank: int
    entrant: int
    games: int
    deals: int = Field(description="Complete duplicate deals (both seatings played).")
    points_per_deal: float = Field(
        description="Mean team score difference per hand over its duplicate deals."
    )
    ci95_low: float | None = Field(description="95% interval (Student's t); null with fewer than two deals.")
    ci95_high: float | None
    wins: float = Field(description="Games won, a tie counting half.")
    flagged_games: int


class HeadToHeadRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entrant: int
    opponent: int
    games: int
    wins: float
    points_per_deal: float


class Tournament(BaseModel):
    """A tournament as it stands: its commitment from the start, its key once it ends (verify every game)."""

    model_config = ConfigDict(extra="forbid")
    tournament_id: str
    name: str
    kind: Literal["five_hundred", "rough"]
    format: Literal["round_robin", "swiss"]
    status: Literal["running", "finished", "stopped"]
    round: int = Field(description="The round being played (the last one once over).")
    rounds: int
    deals: int
    duplicate: bool = Field(
        description="Both games of a deal share their cards (luck cancels), or each has its own."
    )
    move_seconds: int
    options: dict[str, int]
    commitment: str = Field(description="SHA-256 of the tournament key, published at creation.")
    key: str | None = Field(
        description="The tournament key (hex) once it is over: every game's match key is "
        "HMAC-SHA256(key, 'atout-tournament/v1' || u32be(round) || u32be(table) || u32be(deal)), or when "
        "not `duplicate` HMAC-SHA256(key, 'atout-tournament/v1/seating' || u32be(round) || u32be(table) "
        "|| u32be(deal) || u32be(seating))."
    )
    entrants: list[TournamentEntrant]
    byes: list[int] = Field(
        default_factory=list, description="Swiss: the entrant sitting out each round so far."
    )
    games: list[TournamentGame]
    standings: list[TournamentStanding]
    head_to_head: list[HeadToHeadRecord]
    waiting: str | None = Field(
        default=None,
        description="Why the next round has not started although the last one is over: the code of the "
        "cap on open games it waits for (`too_many_games`, the creator's; `server_full`; "
        "`tournaments_full`). It is retried every `ATOUT_TOURNAMENT_POLL_SECONDS` until it fits, or "
        "the tournament runs out of time (`stopped`). Null otherwise.",
    )
    created_at: Moment
    finished_at: Moment | None = Field(description="When it finished or stopped; null while it runs.")


class _TournamentEventBase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="The stream id: send it back as Last-Event-ID to resume.")
    tournament_id: str


class TournamentCreated(_TournamentEventBase):
    """The tournament's first event: its commitment (the hash of its key, docs/fairness.md) and rounds."""

    type: Literal["tournament_created"]
    commitment: str
    rounds: int


class RoundStarted(_TournamentEventBase):
    """A round's games were created: their ids."""

    type: Literal["round_started"]
    round: int
    game_ids: list[str]


class TournamentGameFinished(_TournamentEventBase):
    """One of the tournament's games is over: its seats, winners and result."""

    type: Literal["game_finished"]
    game: TournamentGame


class RoundFinished(_TournamentEventBase):
    """Every game of a round is over: the standings after it."""

    type: Literal["round_finished"]
    round: int
    standings: list[TournamentStanding]


class TournamentFinished(_TournamentEventBase):
    """The tournament ended (every round played, or stopped at its time limit): its key revealed, so
    that anyone checks every deal against the commitment, and the final standings."""

    type: Literal["tournament_finished"]
    status: Literal["finished", "stopped"]
    commitment: str
    key: str | None = Field(description="The tournament's key (hex); null: not revealed.")
    standings: list[TournamentStanding]


TournamentEvent = Annotated[
    TournamentCreated | RoundStarted | TournamentGameFinished | RoundFinished | TournamentFinished,
    Field(discriminator="type"),
]
"""One event of /v1/tournaments/{id}/events, by its ``type`` (open to additions: skip a type you do
not know). Delivered at least once."""


class TournamentStreamFrame(
    RootModel[
        Annotated[
            TournamentCreated
            | RoundStarted
            | TournamentGameFinished
            | RoundFinished
            | TournamentFinished
            | StreamEnd,
            Field(discriminator="type"),
        ]
    ]
):
    """One frame of /v1/tournaments/{id}/events (SSE ``data``, or one NDJSON line): an event, or the
    ``StreamEnd`` frame of a stream that ends early."""
