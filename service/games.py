"""The server loop's one object: every concern of :mod:`service.core` composed.

REST (:mod:`service.rest`) and GraphQL (:mod:`service.graphql`) call :class:`Games`; the logic
lives in one module per concern: :mod:`service.lobby` (create, list, join, leave, rematch),
:mod:`service.play` (view, legal actions, act, replay log), :mod:`service.bot_accounts`
(registration, turn notices) and :mod:`service.events` (following a game's events).
"""

from __future__ import annotations

from service.bot_accounts import BotAccounts
from service.core import ENGINE_CODES, Caller, EnqueueBot, ScheduleTimer, engine_problem, new_game_id
from service.events import EventDelivery
from service.lobby import Lobby
from service.play import Play

__all__ = [
    "ENGINE_CODES",
    "Caller",
    "EnqueueBot",
    "Games",
    "ScheduleTimer",
    "engine_problem",
    "new_game_id",
]


class Games(Lobby, Play, BotAccounts, EventDelivery):
    """Games as REST and GraphQL see them: one instance per process, state in Redis only."""
