"""A tournament as both APIs show it (``schema.tournaments.Tournament``), made from its stored record:
its games with their replay links, the standings with their intervals and the head-to-head records,
computed by ``workers.tournament`` from the finished games. Pure: no store, no settings."""

from __future__ import annotations

from typing import Any

from schema.tournaments import (
    HeadToHeadRecord,
    Tournament,
    TournamentEntrant,
    TournamentGame,
    TournamentStanding,
)
from service.store.keys import STATUS_FINISHED
from workers import tournament as t

RUNNING, FINISHED, STOPPED = "running", "finished", "stopped"


def game_of(stored: dict[str, Any]) -> dict[str, Any]:
    """A tournament game as the contract shows it (``schema.tournaments.TournamentGame``), in the
    tournament and in its ``game_finished`` event alike: the stored game with its replay link."""
    return {**stored, "replay": f"/v1/games/{stored['game_id']}/log"}


def tournament_view(record: dict[str, Any]) -> Tournament:
    """A tournament as the contract shows it, from its stored record: the key only once it is over,
    the standings and head-to-head computed from its finished games (workers.tournament)."""
    n = len(record["entrants"])
    outcomes = finished_outcomes(record)
    over = record["status"] != RUNNING
    return Tournament(
        tournament_id=record["id"],
        name=record["name"],
        kind=record["game"],
        format=record["format"],
        status=record["status"],
        round=record["round"],
        rounds=record["rounds"],
        deals=record["deals"],
        duplicate=record.get("duplicate", True),  # a tournament created before the option: duplicate
        move_seconds=record["move_seconds"],
        options=record["options"],
        commitment=record["commitment"],
        key=record["key"] if over else None,
        entrants=[
            TournamentEntrant(index=i, entrant=e["kind"], name=e["name"])  # stored as `kind`: the entrant
            for i, e in enumerate(record["entrants"])
        ],
        byes=record["byes"],
        games=[TournamentGame(**game_of(g)) for g in record["games"]],
        standings=[
            TournamentStanding(
                rank=s.rank, entrant=s.entrant, games=s.games, deals=s.deals,
                points_per_deal=s.points_per_deal, ci95_low=_finite(s.low), ci95_high=_finite(s.high),
                wins=s.wins, flagged_games=s.flagged_games,
            )
            for s in t.standings(n, outcomes)
        ],
        head_to_head=[
            HeadToHeadRecord(entrant=x, opponent=y, games=h.games, wins=h.wins,
                             points_per_deal=h.points_per_deal)
            for (x, y), h in sorted(t.head_to_head(outcomes).items())
        ],
        waiting=None if over else record.get("waiting"),
        created_at=record["created_at"],  # POSIX seconds, stored: moments in the contract
        finished_at=record["finished_at"],
    )  # fmt: skip


def _finite(x: float) -> float | None:
    return x if x == x and abs(x) != float("inf") else None


def finished_outcomes(record: dict[str, Any]) -> list[t.Outcome]:
    """The finished games of ``record`` as the scoring reads them (standings, Swiss pairings)."""
    return [
        t.Outcome(
            g["round"], g["table"], g["deal"], g["seating"], g["a"], g["b"], g["a_score"], g["b_score"],
            g["hands"], g["winner"], tuple(g.get("flagged", ())), g["game_id"],
        )
        for g in record["games"]
        if g["status"] == STATUS_FINISHED
    ]  # fmt: skip
