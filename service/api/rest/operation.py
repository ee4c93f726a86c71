"""What declares a REST endpoint (:class:`Op`, :class:`Param`) and the problem codes many of them share:
apart from the resources' modules, each of which declares its endpoints beside its handlers
(:mod:`service.api.rest.games` ``GAME_OPS`` …), gathered in :mod:`service.api.rest.endpoints`."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from schema.pages import Page
from service.api.rest.deprecation import Deprecation
from service.base.problems import CODES
from service.games.core import ADMIN_TOKEN, BOT_KEY, ID, PLAYER_TOKEN, SEAT_TOKEN, check_id
from service.store.keys import RESUME_AFTER_PATTERN

Endpoint = Callable[[Request], Awaitable[Response]]
"""A REST handler: a request in, a response out."""


PATH_PARAM = re.compile(r"\{(\w+)\}")
ID_SCHEMA: dict[str, Any] = {"type": "string", "pattern": f"^{ID.pattern}$", "minLength": 1, "maxLength": 64}
"""Every id the server gives (games, bots, tournaments, invitations, webhooks, dead letters) is at most
64 URL-safe characters: a path id that is not is refused before any handler reads it (the contract
says so, and no store key is ever built from a client's megabyte)."""


def check_path_ids(request: Request, names: tuple[str, ...]) -> None:
    """A path id of ``names`` that no id of this server can be is answered as an unknown one, by the
    games layer's own check (:func:`service.games.core.check_id`, which GraphQL's reads meet too): 404
    with the resource's own code (``game_id``: ``game_not_found``, ``webhook_id``: ``webhook_not_found``
    …; ``not_found`` where the resource has none), so a client handles both the same way."""
    for name in names:
        check_id(name, str(request.path_params.get(name, "")), not_found_code(name))


def not_found_code(name: str) -> str:
    """The 404 code of the resource a path id ``name`` names (``<resource>_id``)."""
    code = f"{name.removesuffix('_id')}_not_found"
    return code if code in CODES else "not_found"


@dataclass(frozen=True)
class Param:
    """A query or header parameter an endpoint reads; a path parameter (named by the path already) is
    declared only to give it the schema the server checks it against."""

    name: str
    where: str  # "query", "header" or "path"
    schema: dict[str, Any]
    description: str


PAGE_TYPES = {"limit": "integer", "cursor": "string"}


def page_params(
    model: type[Page] = Page,
    names: tuple[str, ...] = ("limit", "cursor"),
    limit: str | None = None,
    cursor: str | None = None,
) -> tuple[Param, ...]:
    """The query parameters ``names`` of a page of ``model`` (``schema.pages``, which REST reads them
    into): their bounds from the model's, their descriptions from its fields unless the operation says
    what ``limit`` or ``cursor`` means for its list."""
    said = {"limit": limit, "cursor": cursor}
    return tuple(
        Param(
            name,
            "query",
            {"type": PAGE_TYPES[name], **model.bounds(name)},
            said[name] or model.model_fields[name].description or "",
        )
        for name in names
    )


@dataclass(frozen=True)
class Op:
    """One endpoint: the handler that serves it and what the OpenAPI document says of it. ``errors`` are
    the problem codes it may answer (grouped by status in the document, which adds EVERY_OPERATION's to
    each); ``stream`` marks a Server-Sent Events answer, whose ``response`` is the model of one event;
    ``deprecation`` marks an operation on its way out (service/api/rest/deprecation.py: the document
    says ``deprecated: true`` and its answers carry ``Deprecation`` and ``Sunset``). ``headers`` names
    the headers of :data:`service.api.rest.headers.HEADERS` its success answer carries besides every
    answer's (``X-Request-ID``)."""

    method: str
    path: str
    endpoint: Endpoint
    operation_id: str
    summary: str
    tag: str
    response: type[BaseModel] | None
    status: int = 200
    request: type[BaseModel] | None = None
    errors: tuple[str, ...] = ()
    auth: tuple[str, ...] = ()  # the credentials it takes (:data:`ANONYMOUS`, the kinds); () : none
    params: tuple[Param, ...] = ()
    stream: bool = False
    description: str = ""
    deprecation: Deprecation | None = None
    headers: tuple[str, ...] = ()

    def path_ids(self) -> tuple[str, ...]:
        """The path parameters that are ids (:data:`ID_SCHEMA`): those the op does not type itself."""
        typed = {p.name for p in self.params if p.where == "path"}
        return tuple(name for name in PATH_PARAM.findall(self.path) if name not in typed)


ANONYMOUS = "anonymous"
"""In an op's ``auth``: it answers a call without a credential too (the OpenAPI ``{}`` requirement)."""
IN_A_SEAT = (SEAT_TOKEN, PLAYER_TOKEN, BOT_KEY)
"""The credentials that act in a seat: its seat token (anonymous play), or its account's own
credential (a player's, a bot's API key), which holds every seat its account was seated in."""
ANY_CREDENTIAL = (ANONYMOUS, *IN_A_SEAT, ADMIN_TOKEN)
"""A game's reads: anyone (a spectator), what each credential sees decided by ALL-7."""
ADMIN_ONLY = (ADMIN_TOKEN,)
PLAYER_ONLY = (PLAYER_TOKEN,)
BOT_ONLY = (BOT_KEY,)

EVERY_OPERATION = ("store_unavailable",)
GAME = ("game_not_found",)
# Any POST body: too large (413) or not application/json (415), refused by service.api.limits.
UPLOAD = ("payload_too_large", "unsupported_media_type")
BODY = ("malformed_body", "invalid_request", *UPLOAD)
LIMITED = "rate_limited"  # service.api.ratelimit
SEAT = ("missing_token", "invalid_token", "seat_not_held")  # acting in a seat (an account: one of its own)
CREDENTIAL = ("missing_token", "invalid_token")
STREAMS = ("too_many_streams", "server_full")  # the caps on open streams (service.store.fanout)
CAPPED = ("too_many_games", "server_full")  # service.games.quotas: caps on unfinished games


# Where a stream resumes: after a stream id (Redis's ``<ms>-<seq>``), or from the start when empty, as
# service.store.keys.RESUME_AFTER_PATTERN accepts it.
RESUME_SCHEMA = {"type": "string", "pattern": RESUME_AFTER_PATTERN.pattern, "examples": ["1733140000000-0"]}
RESUME = "Resume after this {} id; empty or absent: from the start."


def stream_params(item: str, credential: str | None) -> tuple[Param, ...]:
    """What every stream reads: where it resumes (``Last-Event-ID``, or ``last_event_id`` for a
    client that cannot set a header), the credential in the query for an EventSource (``credential``
    names it; None: a public stream), and ``follow``."""
    token = (Param("access_token", "query", {"type": "string"}, f"{credential}, for EventSource clients."),)
    return (
        Param("Last-Event-ID", "header", RESUME_SCHEMA, RESUME.format(item)),
        Param("last_event_id", "query", RESUME_SCHEMA, "Same as the Last-Event-ID header, which wins."),
        *(token if credential else ()),
        Param("follow", "query", {"type": "boolean"}, f"false: send the {item}s so far, then end."),
    )
