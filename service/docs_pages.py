"""The interactive docs, served whole by the service: Swagger UI at ``/docs`` and GraphiQL at
``/graphql`` (a browser's GET), with every script and style sheet under ``/static`` — nothing is
fetched from a CDN, so the pages work on a machine that reaches only itself.

Where the assets come from, each pinned:
- Swagger UI 5 (it reads OpenAPI 3.1): the ``swagger_ui`` package from PyPI (``swagger-ui-py``),
  a dependency; its ``static`` folder is served as is.
- GraphiQL 3 with React 18: no Python package carries them, so ``make vendor`` copies their
  browser builds from the npm packages pinned in ``package-lock.json`` into
  ``service/static/vendor`` (committed, with their licences; tests/service/test_docs_pages.py
  checks they are byte for byte those packages' files).
- Our own small pages and scripts: ``service/static``; the reference web table at ``/play``
  (``service/static/play``: plain ES modules over the public API, no build step).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "static"
VENDOR = STATIC / "vendor"


def swagger_ui_assets() -> Path:
    """The ``static`` folder of the installed ``swagger_ui`` package (found without importing it:
    its ``__init__`` loads web-framework adapters we do not use)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed (pip install -e .)")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@cache
def page(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


async def swagger_ui(request: object) -> Response:
    return HTMLResponse(page("docs.html"))


async def play(request: object) -> Response:
    """The reference web table: one page; the game to sit at is in its query (``?game=…``)."""
    return HTMLResponse(page("play/index.html"))


def graphiql_html() -> str:
    return page("graphiql.html")


def routes() -> list[BaseRoute]:
    return [
        Route("/docs", swagger_ui, include_in_schema=False),
        Route("/play", play, include_in_schema=False),
        Mount("/static/swagger", StaticFiles(directory=swagger_ui_assets()), name="swagger-assets"),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
