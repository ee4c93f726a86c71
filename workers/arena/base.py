"""What every part of the arena shares: the JSON and outcome types, the two errors and ``Player``.

A module of its own so that the sides (``sides``, ``command``), the match loop (``match``) and
the figures (``result``) can all name them without importing one another, and so that
``ArenaError``, raised by a side as it is built and by ``run``, is defined once below both.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

JSON = dict[str, Any]
SideName = Literal["A", "B"]
Outcome = Literal["A", "B", "tie"]
MAX_HANDS = 500
"""Hands after which a match without a winner stops as a tie (Le 500 and Le Rough deal again
when nobody bids, F5-9, RG-8, so bots that never bid would play forever)."""


class ArenaError(ValueError):
    """The arena cannot run as asked (unknown game or level, bad options, a command that cannot start)."""


class BotFailure(Exception):
    """An external bot did not give a usable answer: the match is forfeited."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class Player(Protocol):
    """One seat's decision maker for one match."""

    external: bool
    """True when its answers are untrusted: an illegal one is a forfeit, not a bug."""

    def decide(self, view: JSON, legal: list[JSON]) -> JSON: ...

    def close(self) -> None: ...
