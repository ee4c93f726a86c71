"""HTTP caching of the REST answers (RFC 9110, RFC 9111): strong ETags, ``304 Not Modified`` on a
matching ``If-None-Match``, and the ``Cache-Control`` each kind of answer may be stored under.

Why: a phone that polls a game's view pays for every byte; with the ETag of its copy it gets an empty
304 while nothing changed. A game's ETag is built from its version and what the writes that keep the
version change (:meth:`service.store.records.GameRecord.revision`), so deciding a 304 needs the record
the handler reads anyway and no view is built. Who asks is part of it (a seat, the administrator or a
spectator), so two different views of one game never share an ETag; and so is the shape of the
answers (:data:`EPOCH`), so a deploy that changes a body never answers 304 to a copy of the old one.

Preconditions are weighed after the answer is known to be a 2xx (RFC 9110 §13.2.2): the token is
checked first, and a 304 never tells a caller anything its 401 would have hidden.
"""

from __future__ import annotations

import hashlib
import json
import re

from starlette.requests import Request
from starlette.responses import Response

import engine
from schema.games import GameSummary, LegalActionsResponse, LogResponse, RulesResponse, ViewResponse
from service.games import Caller
from service.store.records import GameRecord

RULES = "public, max-age=3600"
"""The rules change only with a deploy: an hour in any cache, then revalidated with their ETag."""
FINISHED = "public, max-age=31536000, immutable"
"""A finished match's log is the same for everyone, for good (the match cannot change any more)."""
REVALIDATE = "no-cache"
"""A game or a spectator's view: stored, but checked with its ETag before every use."""
PRIVATE = "private, no-cache"
"""What a seat's (or the administrator's) token shows: never in a shared cache, revalidated."""
NO_STORE = "no-store"
"""A problem answer: it says how things stood at that moment (a 401, a 404, a 429, a 503)."""
VARY = "Authorization"
"""An answer that depends on the token: a cache keeps one copy per token."""

EPOCH = hashlib.sha256(
    json.dumps(
        [
            [m.model_json_schema(mode="serialization") for m in (GameSummary, ViewResponse, LogResponse)],
            LegalActionsResponse.model_json_schema(mode="serialization"),
            RulesResponse.model_json_schema(mode="serialization"),
            engine.games(),
        ],
        sort_keys=True,
        default=str,
    ).encode()
).hexdigest()[:12]
"""The shape of the answers and the rules: part of every game ETag (see the module's docstring)."""

# One element of an If-None-Match list: an entity-tag, weak or not, and its separator (RFC 9110 §8.8.3).
_ELEMENT = re.compile(r'[ \t]*(?:W/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)')
_EMPTY_ELEMENT = re.compile(r"[ \t]*,")


def viewer(caller: Caller) -> str:
    """Whose answer it is: ``admin``, ``seat<i>`` or ``spectator``."""
    if caller.admin:
        return "admin"
    return "spectator" if caller.seat is None else f"seat{caller.seat}"


def game_etag(record: GameRecord, resource: str, caller: Caller) -> str:
    """The strong ETag of ``resource`` (``game``, ``view``, ``actions``) of ``record`` as ``caller``
    sees it: ``"<version>-<digest>"``."""
    return _tag(record.version, resource, viewer(caller), record.revision())


def log_etag(record: GameRecord) -> str:
    """The ETag of the replay log: the same for every reader (the log shows all of it to each), and
    changed by a move only (the administrator may read it before the end)."""
    return _tag(record.version, "log", "anyone", record.status)


def _tag(version: int, *facts: str) -> str:
    digest = hashlib.sha256("\0".join((EPOCH, *facts)).encode()).hexdigest()[:20]
    return f'"{version}-{digest}"'


def content_etag(body: bytes) -> str:
    """A strong ETag naming exactly these bytes (for an answer that is not a game's)."""
    return f'"{hashlib.sha256(body).hexdigest()[:24]}"'


def none_match(header_values: list[str], etag: str) -> bool:
    """Whether ``If-None-Match`` (its field lines) names ``etag``: ``*``, or a list of entity-tags
    compared weakly (``W/"x"`` matches ``"x"``: RFC 9110 §13.1.2). A list that cannot be parsed matches
    from its first malformed element on nothing: the client gets the whole answer, never a wrong 304."""
    field = ",".join(header_values).strip(" \t")
    if field == "*":
        return True
    opaque = etag.removeprefix("W/")
    position = 0
    while position < len(field):
        element = _ELEMENT.match(field, position)
        if element is None:
            empty = _EMPTY_ELEMENT.match(field, position)  # "a, , b": empty list elements are allowed
            if empty is None:
                return False
            position = empty.end()
            continue
        if element.group(1) == opaque:
            return True
        position = element.end()
    return False


def headers(etag: str, cache_control: str, vary: bool = True) -> dict[str, str]:
    """The validator and caching headers of an answer (a 200 and its 304 alike: RFC 9110 §15.4.5)."""
    out = {"ETag": etag, "Cache-Control": cache_control}
    if vary:
        out["Vary"] = VARY
    return out


def not_modified(request: Request, etag: str, cache_control: str, vary: bool = True) -> Response | None:
    """An empty ``304 Not Modified`` when the request's ``If-None-Match`` names ``etag``, else None (the
    handler answers in full). Call it once every refusal has been decided."""
    if not none_match(request.headers.getlist("if-none-match"), etag):
        return None
    return Response(status_code=304, headers=headers(etag, cache_control, vary))


def for_caller(caller: Caller) -> str:
    """The Cache-Control of a game's answer: private when a token showed it (a seat's view, the
    administrator's seed), else stored and revalidated."""
    return PRIVATE if caller.admin or caller.seat is not None else REVALIDATE
