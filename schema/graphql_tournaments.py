# mypy: disable-error-code="untyped-decorator,misc"
"""Strawberry types of tournaments: the same shapes as the REST models of ``schema.tournaments`` (a test
holds each type's fields to its model's), built from them by ``of``."""

from __future__ import annotations

from typing import Any

import strawberry

from schema import tournaments as m


@strawberry.type(description="An entrant: `bot:<level>` (a built-in bot) or `account:<bot_id>`.")
class TournamentEntrant:
    index: int
    kind: str
    name: str


@strawberry.type(description="One game of a tournament: its round, table, duplicate deal and seating.")
class TournamentGame:
    game_id: strawberry.ID
    round: int
    table: int
    deal: int
    seating: int = strawberry.field(
        description="0: entrant `a` at seats 0+2; 1: the same deals, teams swapped."
    )
    a: int
    b: int
    status: str
    a_score: int | None
    b_score: int | None
    hands: int | None
    winner: str | None = strawberry.field(description="`a`, `b` or `tie`; null until the game is over.")
    flagged: list[int] = strawberry.field(description="Entrants the server auto-played (no move in time).")
    replay: str = strawberry.field(description="The game's replay log (REST path).")


@strawberry.type(description="An entrant's line: points per deal with its 95% interval, wins, flags.")
class TournamentStanding:
    rank: int
    entrant: int
    games: int
    deals: int
    points_per_deal: float
    ci95_low: float | None
    ci95_high: float | None
    wins: float
    flagged_games: int


@strawberry.type(description="One entrant's record against another.")
class HeadToHeadRecord:
    entrant: int
    opponent: int
    games: int
    wins: float
    points_per_deal: float


@strawberry.type(
    description="A tournament on duplicate deals: its commitment from the start, its key once over."
)
class Tournament:
    id: strawberry.ID
    name: str
    game: str
    format: str
    status: str
    round: int
    rounds: int
    deals: int
    duplicate: bool = strawberry.field(
        description="Both games of a deal share their cards (luck cancels), or each has its own."
    )
    move_seconds: int
    target_score: int | None = strawberry.field(
        description="The games' target score (`options`); null: the game's."
    )
    commitment: str
    key: str | None
    entrants: list[TournamentEntrant]
    byes: list[int]
    games: list[TournamentGame]
    standings: list[TournamentStanding]
    head_to_head: list[HeadToHeadRecord]
    waiting: str | None = strawberry.field(
        description="Why the next round waits although the last is over: the code of the cap on open "
        "games it waits for (`too_many_games`, `server_full`, `tournaments_full`); retried until it fits."
    )
    created_at: float
    finished_at: float | None

    @classmethod
    def of(cls, x: m.Tournament) -> Tournament:
        return cls(
            id=strawberry.ID(x.id),
            name=x.name,
            game=x.game,
            format=x.format,
            status=x.status,
            round=x.round,
            rounds=x.rounds,
            deals=x.deals,
            duplicate=x.duplicate,
            move_seconds=x.move_seconds,
            target_score=x.options.get("target_score"),
            commitment=x.commitment,
            key=x.key,
            entrants=[TournamentEntrant(**e.model_dump()) for e in x.entrants],
            byes=x.byes,
            games=[
                TournamentGame(**{**g.model_dump(), "game_id": strawberry.ID(g.game_id)}) for g in x.games
            ],
            standings=[TournamentStanding(**s.model_dump()) for s in x.standings],
            head_to_head=[HeadToHeadRecord(**h.model_dump()) for h in x.head_to_head],
            waiting=x.waiting,
            created_at=x.created_at,
            finished_at=x.finished_at,
        )


@strawberry.type(
    description="One event of a tournament's stream: `tournament_created`, `round_started`, `game_finished`, "
    "`round_finished` (standings) or `tournament_finished` (the key revealed)."
)
class TournamentEvent:
    id: str
    type: str
    tournament_id: strawberry.ID
    round: int | None
    rounds: int | None
    game_ids: list[strawberry.ID] | None
    game: TournamentGame | None
    standings: list[TournamentStanding] | None
    status: str | None
    commitment: str | None
    key: str | None

    @classmethod
    def of(cls, n: dict[str, Any]) -> TournamentEvent:
        x = m.TournamentEvent.model_validate(n)
        return cls(
            id=x.id,
            type=x.type,
            tournament_id=strawberry.ID(x.tournament_id),
            round=x.round,
            rounds=x.rounds,
            game_ids=None if x.game_ids is None else [strawberry.ID(g) for g in x.game_ids],
            game=None
            if x.game is None
            else TournamentGame(**{**x.game.model_dump(), "game_id": strawberry.ID(x.game.game_id)}),
            standings=None
            if x.standings is None
            else [TournamentStanding(**s.model_dump()) for s in x.standings],
            status=x.status,
            commitment=x.commitment,
            key=x.key,
        )
