"""The sides a match is played between: ``Builtin`` levels, an external ``Command``, a Python ``Function``,
a bot class (``BotClass``, ``module:Class``: ``workers.arena.bot_class``).

A side is a description (a level, a command line, a function) that makes a fresh ``Player`` for
each seat it holds in each match, so that no state, and no card, passes from one seat or match
to another. The in-process sides are here; the external program, with its process and its
timeouts, is ``workers.arena.command``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from workers import bots
from workers.arena.base import JSON, ArenaError, Player
from workers.arena.bot_class import BotClass
from workers.arena.command import Command


@dataclass(frozen=True)
class Builtin:
    """A strategy of ``workers.bots``; ``playouts`` makes ``expert`` deterministic."""

    level: str
    budget_s: float = 0.2
    playouts: int | None = None

    def __post_init__(self) -> None:
        if self.level not in bots.LEVELS:
            raise ArenaError(f"unknown bot level {self.level!r}; known: {', '.join(bots.LEVELS)}")

    @property
    def name(self) -> str:
        return self.level

    def player(self, seat: int, rng: random.Random) -> Player:
        return _BuiltinPlayer(self, rng)


@dataclass(frozen=True)
class Function:
    """An in-process Python bot, ``fn(view, legal_actions, rng) -> action``; its answers are checked."""

    fn: Callable[[JSON, list[JSON], random.Random], JSON]
    name: str = "function"

    def player(self, seat: int, rng: random.Random) -> Player:
        return _FunctionPlayer(self.fn, rng)


Side = Builtin | Command | Function | BotClass


class _BuiltinPlayer:
    external = False

    def __init__(self, side: Builtin, rng: random.Random) -> None:
        self.side, self.rng = side, rng

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        s = self.side
        return bots.choose(s.level, view, legal, self.rng, budget_s=s.budget_s, playouts=s.playouts)

    def close(self) -> None:
        pass


class _FunctionPlayer:
    external = True

    def __init__(self, fn: Callable[[JSON, list[JSON], random.Random], JSON], rng: random.Random) -> None:
        self.fn, self.rng = fn, rng

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        return self.fn(view, legal, self.rng)

    def close(self) -> None:
        pass
