"""The server loop's one object: every concern of :mod:`service.games.core` composed.

REST (:mod:`service.api.rest`) and GraphQL (:mod:`service.api.graphql`) call :class:`Games`; the logic
lives in one module per concern: :mod:`service.games.lobby` (create, list, join, leave, rematch),
:mod:`service.games.play` (view, legal actions, act, replay log), :mod:`service.games.bot_accounts`
(registration, turn notices), :mod:`service.games.players` (guests, identities, a player's games),
:mod:`service.games.invitations`, :mod:`service.games.ratings` (rated matches and the ladders),
:mod:`service.games.events` (following a game's events), :mod:`service.games.tournaments` and
:mod:`service.games.webhooks` (the administrator's webhook endpoints, and ``emit_webhook``).
"""

from __future__ import annotations

from service.games.bot_accounts import BotAccounts
from service.games.core import ENGINE_CODES, Caller, EnqueueBot, ScheduleTimer, engine_problem, new_game_id
from service.games.events import EventDelivery
from service.games.invitations import Invitations
from service.games.play import Play
from service.games.ratings import RatingViews
from service.games.tournaments import EnqueueTournament, Tournaments
from service.games.webhooks import EnqueueWebhook, Webhooks

__all__ = [
    "ENGINE_CODES",
    "Caller",
    "EnqueueBot",
    "EnqueueTournament",
    "EnqueueWebhook",
    "Games",
    "ScheduleTimer",
    "engine_problem",
    "new_game_id",
]


class Games(Invitations, RatingViews, Play, BotAccounts, EventDelivery, Webhooks, Tournaments):
    """Games as REST and GraphQL see them: one instance per process, state in Redis only."""
