"""REST under /v1: one table of endpoints gives both the Starlette routes and the OpenAPI document.

- :mod:`~service.api.rest.requests`: what every handler does with a request (token, body, query) and
  its answer;
- :mod:`~service.api.rest.games`, :mod:`~service.api.rest.bots`, :mod:`~service.api.rest.players`,
  :mod:`~service.api.rest.ratings`, :mod:`~service.api.rest.webhooks`,
  :mod:`~service.api.rest.tournaments`: one module per resource, its handlers and the table of its
  endpoints (``GAME_OPS`` …) side by side;
- :mod:`~service.api.rest.streams`: the SSE and NDJSON streams (a game's events, a bot's turns);
- :mod:`~service.api.rest.endpoints`: every endpoint declared once (:data:`OPS`), gathered from the
  resources' tables;
- :mod:`~service.api.rest.routing`: the Starlette routes read from the table;
- :mod:`~service.api.rest.openapi`: the OpenAPI document read from the table.
"""

from __future__ import annotations

from service.api.rest.endpoints import OPS
from service.api.rest.openapi import openapi_document
from service.api.rest.routing import routes

__all__ = ["OPS", "openapi_document", "routes"]
