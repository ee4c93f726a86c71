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
- The rendered reference at ``/reference`` (REST: Redoc's page from ``redocly build-docs``) and
  ``/reference/graphql`` (a static page from the SDL), built by ``make openapi`` into
  ``service/static/reference`` (committed: see service/api/rest_reference.py and graphql_reference.py).
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

STATIC = Path(__file__).resolve().parent.parent / "static"  # service/static, shipped as package data
VENDOR = STATIC / "vendor"

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",  # no inline script and no eval: every script is a file under /static
        "style-src 'self' 'unsafe-inline'",  # Swagger UI and GraphiQL set inline styles
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",  # the API, its event streams and the GraphQL WebSocket, same origin
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "Referrer-Policy": "no-referrer",  # a table's address holds its invite code
}
"""The headers of every page: the pages load nothing from elsewhere, so the policy is strict (no
other origin, no inline script, never framed: a framed table could be clickjacked into moves)."""


REFERENCE_HEADERS = PAGE_HEADERS | {
    "Content-Security-Policy": f"{CONTENT_SECURITY_POLICY}; worker-src 'self' blob:"
}
"""Redoc's search runs in a worker its bundle makes from a blob: code the page's own script (from the
service) wrote, so allowing it lets in no other origin's code."""


def page_response(name: str, headers: dict[str, str] = PAGE_HEADERS) -> HTMLResponse:
    return HTMLResponse(page(name), headers=headers)


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
    return page_response("docs.html")


async def play(request: object) -> Response:
    """The reference web table: one page; the game to sit at is in its query (``?game=…``)."""
    return page_response("play/index.html")


async def tournament_page(request: object) -> Response:
    """A tournament's standings, live: the tournament is in its query (``?id=…``)."""
    return page_response("play/standings.html")


async def rest_reference(request: object) -> Response:
    """The REST reference (Redoc), pre-rendered: readable before its script hydrates it."""
    return page_response("reference/index.html", REFERENCE_HEADERS)


async def graphql_reference(request: object) -> Response:
    """The GraphQL reference: every operation and type of the SDL on one page, no script."""
    return page_response("reference/graphql.html")


def graphiql_page() -> HTMLResponse:
    return page_response("graphiql.html")


def routes() -> list[BaseRoute]:
    return [
        Route("/docs", swagger_ui, include_in_schema=False),
        Route("/reference", rest_reference, include_in_schema=False),
        Route("/reference/graphql", graphql_reference, include_in_schema=False),
        Route("/play", play, include_in_schema=False),
        Route("/play/tournament", tournament_page, include_in_schema=False),
        Mount("/static/swagger", StaticFiles(directory=swagger_ui_assets()), name="swagger-assets"),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
