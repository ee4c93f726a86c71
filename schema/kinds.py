"""The closed sets every part of the contract names the same way (docs/glossary.md): a game's ``kind``,
its ``status``, a seat's ``seat_kind``. One definition each, so that a game's kind is the same enum in a
summary, a rating, an invitation and a webhook, and a generated client has one type for it.

Open to additions within v1 (a new game, a new state): a client treats a value it does not know as its
enum's unknown case (docs/apps.md's generator settings), never as an error."""

from __future__ import annotations

from typing import Literal

GameKind = Literal["five_hundred", "rough", "euchre5"]
"""Which of the three games a game plays."""
GameStatus = Literal["waiting", "active", "finished"]
"""A game's state: ``waiting`` (seats open), ``active``, ``finished``."""
SeatKind = Literal["open", "reserved", "human", "bot"]
"""Who holds a seat: nobody yet (``open``), the player a rematch keeps it for (``reserved``), a person
or a bot account (``human``: an account plays it through the API), or a built-in bot (``bot``)."""
BotLevel = Literal["random", "heuristic", "expert", "learned"]
"""A built-in bot's level (``learned``: the network trained by expert iteration, workers/bots/learned.py)."""
