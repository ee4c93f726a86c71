"""A page of a list, as a client asks for it: at most ``limit`` items, after ``cursor`` (the
``next_cursor`` the previous page gave, as it came; none for the first page).

The bounds are written here once. REST reads its query parameters into these models
(``service.api.rest.requests.page_query``), the OpenAPI document declares those parameters from them
(``service.api.rest.operation.page_params``), and GraphQL validates its ``limit`` and ``cursor``
arguments by them (``service.api.pages.page_of``), its defaults being :data:`DEFAULT_LIMIT`. A list whose
page differs on purpose has its own subclass, which says why.
"""

from __future__ import annotations

from typing import Any

from annotated_types import Ge, Le, MaxLen, MinLen
from pydantic import BaseModel, ConfigDict, Field

DEFAULT_LIMIT = 50
"""The items a page holds when the request does not say."""
MAX_CURSOR = 200
"""A cursor's length, at most: far above any cursor the server writes (about 60 characters), so that
no list ever decodes a client's megabyte (``service.games.cursors``)."""


class Page(BaseModel):
    """One page of a list: 1 to 100 items (50 unless asked), after a cursor of 1 to 200 characters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: int = Field(DEFAULT_LIMIT, ge=1, le=100, description="At most this many (50).")
    cursor: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_CURSOR,
        description="The `next_cursor` of the previous page, as it came (none: the first page).",
    )

    @classmethod
    def bounds(cls, name: str) -> dict[str, Any]:
        """The bounds of field ``name`` as JSON Schema says them (``minimum``, ``maximum``,
        ``minLength``, ``maxLength``), in that order, read off the field's constraints."""
        said: dict[str, Any] = {}
        for rule in cls.model_fields[name].metadata:
            if isinstance(rule, Ge):
                said["minimum"] = rule.ge
            elif isinstance(rule, Le):
                said["maximum"] = rule.le
            elif isinstance(rule, MinLen):
                said["minLength"] = rule.min_length
            elif isinstance(rule, MaxLen):
                said["maxLength"] = rule.max_length
        order = ("minimum", "maximum", "minLength", "maxLength")
        return {key: said[key] for key in order if key in said}


class TopPage(Page):
    """A ladder's page and a player's list of games: an empty cursor asks for the first page too (the
    top of the ladder), as these two lists have said since they came, so clients may send one."""

    cursor: str | None = Field(
        None,
        max_length=MAX_CURSOR,
        description="The `next_cursor` of the previous page, as it came (none or empty: the top).",
    )


class HistoryPage(Page):
    """An account's rating history: its latest changes, up to 200 in one read. It has no cursor (only
    the ``limit`` is read): a history is read from its newest change, and 200 covers what a client shows."""

    limit: int = Field(DEFAULT_LIMIT, ge=1, le=200, description="Latest changes (50).")
