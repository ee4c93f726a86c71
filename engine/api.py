"""The engine's public face: functions over a ``Match``, the same for the three games.

``apply`` is pure (the match passed in is never changed); ``push`` is the in-place fast
path the search bots and benchmarks use, and ``apply`` is exactly ``copy`` + ``push``, so
the two cannot disagree.
"""

from __future__ import annotations

import json
import random
from typing import Any

from . import actions as act
from .actions import Action, Move
from .base import Game
from .cards import cards_of, mask_of
from .errors import IllegalAction
from .match import JSON, Match

FORMAT = "atout.match/1"
"""Version tag of the JSON form; ``from_json`` refuses any other."""


def game(game_id: str) -> Game:
    """The rules of a game id (python-chess style registry)."""
    try:
        return Game.registry[game_id]
    except KeyError:
        known = ", ".join(sorted(Game.registry))
        raise IllegalAction(
            f"unknown game {game_id!r}; known games: {known}", rule="ALL-1", code="unknown_game"
        ) from None


def games() -> dict[str, JSON]:
    """Every game id with its player count, teams, deck and options (defaults, allowed values)."""
    return {gid: g.describe() for gid, g in sorted(Game.registry.items())}


def new_match(game_id: str, seed: int = 0, options: JSON | None = None, deal: JSON | None = None) -> Match:
    """A new match, first hand dealt. ``deal`` is an explicit first deal (ALL-3)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise IllegalAction(f"seed must be a whole number, got {seed!r}", rule="ALL-3", code="invalid_seed")
    return game(game_id).new_match(seed, options, deal)


def legal_moves(m: Match) -> list[Move]:
    """The legal actions of the seat to act, as records (fast path; discards as a template)."""
    return Game.registry[m.game].legal_moves(m)


def random_move(m: Match, rng: random.Random) -> Action:
    """A uniformly random legal action of the seat to act (a random set for a discard).

    The random bot, the property tests and the benchmark all draw moves this way.
    """
    move = rng.choice(legal_moves(m))
    if isinstance(move, act.DiscardTemplate):
        return act.Discard(mask_of(rng.sample(cards_of(move.cards), move.count)))
    return move


def legal_actions(m: Match, seat: int) -> list[JSON]:
    """The legal actions of ``seat`` in their JSON form; [] when it is not that seat's turn."""
    if seat != m.to_act:
        return []
    return [a.to_json() for a in legal_moves(m)]


def push(m: Match, seat: int, action: Action | JSON) -> Match:
    """Apply ``action`` in place and return ``m``; ``m.events`` holds what it caused.

    On ``IllegalAction`` the match is unchanged: every check precedes the first write.
    """
    if action.__class__ not in act.ACTION_TYPES:
        action = act.parse(action)
    Game.registry[m.game].push(m, seat, action)  # type: ignore[arg-type]
    return m


def apply(m: Match, seat: int, action: Action | JSON) -> Match:
    """The match after ``seat`` takes ``action``; ``m`` itself is unchanged."""
    parsed = act.parse(action)
    nxt = m.copy()
    Game.registry[m.game].push(nxt, seat, parsed)
    return nxt


def view(m: Match, seat: int | None) -> JSON:
    """What ``seat`` may see (None: a spectator) and nothing else (RULES.md ALL-7)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < m.players):
        raise IllegalAction(f"seat must be 0..{m.players - 1} or None", rule="ALL-1", code="malformed_action")
    return Game.registry[m.game].view(m, seat)


def event_for(event: JSON, seat: int | None) -> JSON | None:
    """The event as ``seat`` may see it: private events reach only the seats they name."""
    seats = event.get("visible_to")
    if seats is None:
        return event
    if seat is None or seat not in seats:
        return None
    return event


def to_json(m: Match) -> str:
    """The versioned JSON form of a match; ``from_json`` gives back an identical match."""
    return json.dumps({"format": FORMAT, **Game.registry[m.game].state_json(m)}, separators=(",", ":"))


def from_json(text: str | bytes) -> Match:
    data: Any = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a match in format {FORMAT}")
    return game(data["game"]).state_from_json(data)
