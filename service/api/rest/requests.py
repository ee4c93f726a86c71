"""What every REST handler does with its request and its answer: find the games, read the bearer token,
parse a JSON body, a whole-number query parameter or a page (refusals as problem+json), answer a model
as JSON. Kept apart from the handlers so that each of them stays a parse, a call to :class:`Games`, an
answer."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from schema.games import ActionResponse
from schema.pages import Page
from service.api.limits import parse_json
from service.api.pages import page_of
from service.api.problems import invalid_request
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games import Games

M = TypeVar("M", bound=BaseModel)
P = TypeVar("P", bound=Page)


def games_of(request: Request) -> Games:
    games: Games = request.app.state.games
    return games


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProblemError("invalid_token", "Send the token as `Authorization: Bearer <token>`.")
    return token.strip()


async def parse_body(request: Request, model: type[M]) -> M:
    raw = await request.body()
    settings = request.app.state.settings
    if not raw:
        data: Any = {}  # no body: every field at its default (a required one is then missing)
    else:
        data = parse_json(raw, settings.max_json_depth, settings.max_int_digits)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc) from None


# A whole number in a query: ASCII digits only (Python's int() also reads "1_0", " 5" and other
# scripts' digits, which the document's `integer` does not mean).
WHOLE = re.compile(r"[-+]?[0-9]{1,12}")
# A boolean in a query, spelled as pydantic (and schemathesis) read one, in any case.
BOOLEANS = {"true": True, "1": True, "yes": True, "y": True, "t": True, "on": True,
            "false": False, "0": False, "no": False, "n": False, "f": False, "off": False}  # fmt: skip


def int_query(request: Request, name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    value = int(raw) if WHOLE.fullmatch(raw) else low - 1
    if not low <= value <= high:
        raise ProblemError(
            "invalid_request",
            Text(
                "Query parameter {name} must be a whole number from {low} to {high}.",
                name=name,
                low=low,
                high=high,
            ),
            errors=[{"loc": ["query", name], "msg": f"must be {low}..{high}", "type": "value_error"}],
        )
    return value


def page_query(request: Request, model: type[P], names: tuple[str, ...] = ("limit", "cursor")) -> P:
    """The page the query asks for (``names`` of ``model``'s fields, the others at their defaults): a
    whole number in ASCII digits, as :func:`int_query` reads one; refusals as ``page_of`` says them."""
    raw: dict[str, Any] = {}
    for name in names:
        value = request.query_params.get(name)
        if value is not None:
            whole = model.model_fields[name].annotation is int and WHOLE.fullmatch(value)
            raw[name] = int(value) if whole else value
    return page_of(model, raw, ("query",))


def bool_query(request: Request, name: str, default: bool) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    value = BOOLEANS.get(raw.lower())
    if value is None:
        raise ProblemError(
            "invalid_request",
            Text("Query parameter {name} must be true or false.", name=name),
            errors=[{"loc": ["query", name], "msg": "must be true or false", "type": "bool_parsing"}],
        )
    return value


def ok(model: BaseModel, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The model as JSON, serialized by pydantic-core in one step (no intermediate dict); a move's
    answer is the text its commit already made for the Idempotency-Key (ActionResponse.json_text)."""
    return Response(
        # warnings off: responses are built with model_construct from the engine's trusted dicts, which
        # the typed fields (schema/views/) describe but do not hold as model instances
        model.json_text() if isinstance(model, ActionResponse) else model.model_dump_json(warnings=False),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )
