"""What every resolver reads off its GraphQL context (built by ``AtoutGraphQL.get_context``): the Games
service, the caller's bearer token and whom the rate limits count; the REST problem a call raises,
turned into the GraphQL error with the same ``extensions.code``; and the arguments validated by the
REST body's model (:func:`parsed`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Optional, TypeVar

import strawberry
from pydantic import BaseModel, ValidationError
from strawberry.types import Info

from schema.pages import Page
from service.api.pages import page_of
from service.api.problems import invalid_request, problem_error
from service.api.ratelimit import Client
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games import Games
from service.games.cursors import not_a_cursor

INPUT = "What the mutation takes: its REST twin's request body, and the ids of its path."
R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)


def parsed(model: type[M], raw: dict[str, Any]) -> M:
    """A mutation's arguments (``raw``, by their REST names) validated by the REST body's ``model``: the
    same rules, and the same 422 ``invalid_request`` with the fields in ``errors`` (a test holds every
    mutation to its REST twin's model: tests/service/test_graphql_twins.py)."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise problem_error(invalid_request(exc)) from None


async def guarded(call: Callable[[], Awaitable[R]]) -> R:
    """Await ``call``; a ProblemError it raises (a missing game, a wrong token…) is re-raised as the
    GraphQL error of the same code, without the ProblemError chained to it."""
    try:
        return await call()
    except ProblemError as error:
        raise problem_error(error) from None


def games_of(info: Info) -> Games:
    games: Games = info.context["games"]
    return games


def client_of(info: Info) -> Client:
    """Whom the rate limits count this request against (built once by ``AtoutGraphQL.get_context``)."""
    client: Client = info.context["client"]
    return client


def token_of(info: Info) -> str | None:
    """The caller's bearer token: from the HTTP ``Authorization`` header, else (a subscription over a
    WebSocket) from the ``connection_init`` payload; ``None`` when none was sent."""
    context = info.context
    params = context.get("connection_params") or {}
    header = None
    request = context.get("request")
    if request is not None:
        header = request.headers.get("authorization")
    header = header or params.get("Authorization") or params.get("authorization")
    if not header:
        return None
    scheme, _, token = str(header).partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise problem_error(
            ProblemError("invalid_token", "Send the token as `Authorization: Bearer <token>`.")
        )
    return token.strip()


P = TypeVar("P", bound=Page)


def connection_page(model: type[P], first: int, after: str | None) -> P:
    """A connection's ``first`` and ``after`` read as REST's page (``limit``, ``cursor``) by its model
    (``schema.pages``): the same bounds and the same 422 ``invalid_request``, naming GraphQL's
    argument (``first``, ``after``) in its message and ``errors``."""
    try:
        return page_of(model, {"limit": first, "cursor": after})
    except ProblemError as error:
        if (error.extra.get("errors") or [{}])[0].get("loc") == ["cursor"]:
            raise problem_error(not_a_cursor(("after",))) from None
        bounds = model.bounds("limit")
        low, high = bounds.get("minimum"), bounds.get("maximum")
        issue = {"loc": ["first"], "msg": f"must be {low}..{high}", "type": "value_error"}
        said = Text("{name} must be from {low} to {high}.", name="first", low=low, high=high)
        raise problem_error(ProblemError("invalid_request", said, errors=[issue])) from None


def root_field(resolver: Any, kind: Any, description: str, **more: Any) -> Any:
    """A root query field, nullable: a missing or refused one is null with its error, and the other
    fields of the query still answer (GitHub's and Shopify's convention)."""
    return strawberry.field(
        resolver=resolver,
        graphql_type=Optional[kind],  # noqa: UP045 (a runtime annotation)
        description=description,
        **more,
    )
