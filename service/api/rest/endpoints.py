"""Every REST endpoint: the games' and bots' (:mod:`service.api.rest.table`) and the players'
(:mod:`service.api.rest.player_ops`), the one list the routes and the OpenAPI document read."""

from __future__ import annotations

from service.api.rest.player_ops import PLAYER_OPS
from service.api.rest.table import GAME_OPS, Op

OPS: tuple[Op, ...] = (*GAME_OPS, *PLAYER_OPS)
