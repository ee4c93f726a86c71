"""Every REST endpoint, the one list the routes and the OpenAPI document read: each resource's module
declares its endpoints beside its handlers (:mod:`~service.api.rest.games`,
:mod:`~service.api.rest.bots`, :mod:`~service.api.rest.players`, :mod:`~service.api.rest.ratings`,
:mod:`~service.api.rest.webhooks`, :mod:`~service.api.rest.tournaments`,
:mod:`~service.api.rest.matchmaking`)."""

from __future__ import annotations

from service.api.rest.bots import BOT_OPS
from service.api.rest.games import GAME_OPS
from service.api.rest.matchmaking import MATCHMAKING_OPS
from service.api.rest.operation import Op
from service.api.rest.players import PLAYER_OPS
from service.api.rest.ratings import RATING_OPS
from service.api.rest.tournaments import TOURNAMENT_OPS
from service.api.rest.webhooks import WEBHOOK_OPS

OPS: tuple[Op, ...] = (
    *GAME_OPS,
    *BOT_OPS,
    *PLAYER_OPS,
    *RATING_OPS,
    *WEBHOOK_OPS,
    *TOURNAMENT_OPS,
    *MATCHMAKING_OPS,
)
