"""A page's ``limit`` and ``cursor``, as REST's query or GraphQL's arguments give them, validated by its
model (``schema.pages``): one rule and one refusal for both APIs, 422 ``invalid_request`` naming the
parameter in ``errors``."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError

from schema.pages import Page
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.cursors import not_a_cursor

P = TypeVar("P", bound=Page)


def page_of(model: type[P], raw: dict[str, Any], where: tuple[str, ...] = ()) -> P:
    """``raw`` (the parameters given; an absent one takes its default) as a page of ``model``; 422
    ``invalid_request`` otherwise. ``where`` locates the parameters in the problem's ``errors``
    (REST's ``("query",)``; none for GraphQL's arguments). A cursor out of bounds is "not a cursor"
    (as a list refuses one it did not write); a limit out of bounds, or not a whole number, says them."""
    try:
        return model.model_validate(raw, strict=True)
    except ValidationError as exc:
        name = str(exc.errors()[0]["loc"][0])
    if name == "cursor":
        raise not_a_cursor((*where, name))
    bounds = model.bounds(name)
    low, high = bounds.get("minimum"), bounds.get("maximum")
    if where == ("query",):
        said = Text(
            "Query parameter {name} must be a whole number from {low} to {high}.",
            name=name,
            low=low,
            high=high,
        )
    else:
        said = Text("{name} must be from {low} to {high}.", name=name, low=low, high=high)
    issue = {"loc": [*where, name], "msg": f"must be {low}..{high}", "type": "value_error"}
    raise ProblemError("invalid_request", said, errors=[issue])
