"""Every REST endpoint: the games' and bots' (:mod:`service.api.rest.table`), the players'
(:mod:`service.api.rest.player_ops`), the ratings' (:mod:`service.api.rest.rating_ops`), the webhooks'
(:mod:`service.api.rest.webhook_table`) and the tournaments' (:mod:`service.api.rest.tournament_table`),
the one list the routes and the OpenAPI document read."""

from __future__ import annotations

from service.api.rest.operation import Op
from service.api.rest.player_ops import PLAYER_OPS
from service.api.rest.rating_ops import RATING_OPS
from service.api.rest.table import GAME_OPS
from service.api.rest.tournament_table import TOURNAMENT_OPS
from service.api.rest.webhook_table import WEBHOOK_OPS

OPS: tuple[Op, ...] = (*GAME_OPS, *PLAYER_OPS, *RATING_OPS, *WEBHOOK_OPS, *TOURNAMENT_OPS)
