"""REST routes under /v1."""

from __future__ import annotations

from starlette.routing import BaseRoute


def routes() -> list[BaseRoute]:
    return []


def openapi_document() -> dict[str, object]:
    return {"openapi": "3.1.0", "info": {"title": "Atout", "version": "1"}, "paths": {}}
