"""The Starlette routes of the REST endpoints, read from their table
(:data:`service.api.rest.endpoints.OPS`), with GET /openapi.json beside them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from service.api.rest.credentials import check_credential
from service.api.rest.deprecation import announcing
from service.api.rest.endpoints import OPS
from service.api.rest.openapi import openapi_json
from service.api.rest.operation import Endpoint, Op, check_path_ids

HOT_PATHS = {"/v1/games/{game_id}/actions", "/v1/games/{game_id}/view"}


def _dispatch(by_method: dict[str, Endpoint]) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await by_method[method](request)

    return endpoint


def _endpoint(op: Op) -> Endpoint:
    """The op's handler, its path ids then its credential's kind checked first (a kind it does not
    declare is refused: :mod:`service.api.rest.credentials`); a deprecated op's announces its
    deprecation on every answer, those refusals included (outermost)."""
    endpoint = op.endpoint
    ids = op.path_ids()

    async def checked(request: Request) -> Response:
        check_path_ids(request, ids)
        check_credential(request, op)
        return await endpoint(request)

    guarded = checked if ids or op.auth else endpoint
    return guarded if op.deprecation is None else announcing(op.deprecation, guarded)


def routes(ops: tuple[Op, ...] = OPS) -> list[BaseRoute]:
    """One route per path, so a 405's Allow header lists every method of the resource."""
    paths: dict[str, dict[str, Endpoint]] = {}
    for op in sorted(ops, key=lambda op: op.path not in HOT_PATHS):  # the router tries routes in order
        paths.setdefault(op.path, {})[op.method] = _endpoint(op)
    return [
        *(Route(path, _dispatch(by_method), methods=list(by_method)) for path, by_method in paths.items()),
        Route("/openapi.json", openapi_json, include_in_schema=False),
    ]
