"""The OpenAPI 3.1 document of the REST endpoints, generated from their table
(:data:`service.api.rest.endpoints.OPS`): served at /openapi.json, printed by ``atout openapi`` and
committed as openapi/openapi.json, from which clients generate their types (openapi-typescript) and
schemathesis its tests. Pydantic writes the body schemas; this module says the rest (parameters,
problem codes by status, auth, stream frames, links) and shapes the schemas for code generators.

The document is open to additions (docs/apps.md, "Versioning"): no schema an answer holds
is closed (``additionalProperties: false``; request bodies stay closed: the server refuses a field
it does not know), ``Problem.code`` is a string whose known values are listed, not a closed enum,
and each union discriminated by ``type`` says that a client skips a member it does not know. Every
``pattern`` compiles in JavaScript's ``RegExp`` with or without the ``u`` flag (:func:`portable_patterns`),
so that linters and JS tools that compile it without the flag read the document."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, JsonSchemaValue, models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from schema.games import REFERS_TO, Problem, request_options_schemas
from service.api.rest.credentials import credential_codes
from service.api.rest.deprecation import DEPRECATION_HEADERS
from service.api.rest.endpoints import OPS
from service.api.rest.headers import HEADERS, IF_NONE_MATCH, NOT_MODIFIED, answer_headers
from service.api.rest.operation import (
    ANONYMOUS,
    EVERY_OPERATION,
    ID_SCHEMA,
    PATH_PARAM,
    Op,
    not_found_code,
)
from service.api.rest.streams import NDJSON
from service.base.problems import CODES, PROBLEM_JSON

API_VERSION = "1.0.0"
JSON_TYPES = {int: "integer", float: "number", str: "string"}
LAST_BMP = 0xFFFF

TAGS: dict[str, str] = {
    "rules": "The three games and their rule options (docs/rules.md): no credentials.",
    "games": "Create, list, join, leave and rematch games; a game's summary, replay log and event stream.",
    "play": "A seat's view, its legal actions and its moves: one request a move.",
    "players": "Player accounts (guests or linked identities): profile, games, blocks, invitations, notices.",
    "bots": "Bot accounts, their API keys and their turns' stream.",
    "ratings": "Ratings and ladders of players and bots, by game.",
    "tournaments": "Tournaments of bots and players: create, read, follow.",
    "webhooks": "The administrator's webhook endpoints, their delivery logs and dead letters.",
    "matchmaking": "Play now: tickets that find a table by game and rating, parties, bots in empty chairs.",
}
"""The document's top-level ``tags``, each operation's ``tags[0]`` one of them (checked on build)."""

OPEN_CODES = (
    "Stable, and open to additions within /v1: a client that meets a code it does not know treats the "
    "problem by its HTTP `status`. The known codes are `x-extensible-enum` (docs/errors.md)."
)
OPEN_TYPES = (
    "Open to additions within /v1: a client skips a member whose `{name}` it does not know (a new "
    "event or notice type), and reads every other."
)

Refs = Mapping[tuple[Any, JsonSchemaMode], JsonSchemaValue]
"""Each body model's ``$ref`` into components/schemas, by model and mode (as pydantic returns them)."""


def _link(operation_id: str, description: str, game_id: str | None, token: str | None) -> dict[str, Any]:
    """A link without a ``requestBody``: joinGame's body is optional (none takes the first open seat),
    and openapi-generator's parser refuses any ``requestBody`` but a runtime expression."""
    parameters = {} if game_id is None else {"path.game_id": game_id}
    if token is not None:
        parameters["header.Authorization"] = f"Bearer {{{token}}}"
    return {"operationId": operation_id, "description": description, "parameters": parameters}


# OpenAPI links: how a client (and schemathesis' stateful runs) goes from one answer to the next
# call, e.g. create -> join -> act with the seat token the join returned.
_CREATED = "$response.body#/game/game_id"
_JOINED, _SEAT_TOKEN = "$response.body#/game_id", "$response.body#/token"
LINKS: dict[str, dict[str, Any]] = {
    "createGame": {
        "JoinGame": _link("joinGame", "Take the first open seat of the new game.", _CREATED, None),
        "GetGame": _link("getGame", "The new game.", _CREATED, None),
        "GetSpectatorView": _link("getView", "The new game as a spectator sees it.", _CREATED, None),
    },
    "joinGame": {
        "JoinAgain": _link("joinGame", "Take another seat (all taken: it starts).", _JOINED, None),
        "GetView": _link("getView", "The seat's view, with its token.", _JOINED, _SEAT_TOKEN),
        "GetLegalActions": _link("getLegalActions", "The seat's legal actions.", _JOINED, _SEAT_TOKEN),
        "SubmitAction": _link("submitAction", "Act for the seat.", _JOINED, _SEAT_TOKEN),
        "LeaveGame": _link("leaveGame", "Give the seat up.", _JOINED, _SEAT_TOKEN),
        "RematchGame": _link("rematchGame", "The rematch, once the match is over.", _JOINED, _SEAT_TOKEN),
        "GetReplayLog": _link("getReplayLog", "The replay log, once it is over.", _JOINED, _SEAT_TOKEN),
    },
    "rematchGame": {
        "GetView": _link("getView", "The seat's view of the rematch.", _CREATED, _SEAT_TOKEN),
    },
    "registerBot": {
        "GetBot": _link("getBot", "The bot account, with its API key.", None, "$response.body#/api_key"),
    },
}


async def openapi_json(request: Request) -> Response:
    return JSONResponse(openapi_document())


def without_null_defaults(schema: Any) -> Any:
    """``schema`` without its ``"default": null`` entries. A null default says nothing that the
    field's being optional does not, and code generators (openapi-typescript) read a field with a
    default as one the server always fills in, so a request type would require it."""
    if isinstance(schema, dict):
        return {k: without_null_defaults(v) for k, v in schema.items() if not (k == "default" and v is None)}
    if isinstance(schema, list):
        return [without_null_defaults(v) for v in schema]
    return schema


def typed_enums(schema: Any) -> Any:
    """``schema`` with each ``enum`` that has no ``type`` given the type of its values: code generators
    read the type, not the values (openapi-python-client refuses a bare enum of booleans, and with it
    the whole request body). An enum of both booleans is just a boolean; of one, a ``const``."""
    if isinstance(schema, list):
        return [typed_enums(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    shaped = {k: typed_enums(v) for k, v in schema.items()}
    values = shaped.get("enum")
    kinds = {type(v) for v in values} if isinstance(values, list) else set()
    if "type" in shaped or len(kinds) != 1 or not isinstance(values, list):
        return shaped
    kind = kinds.pop()
    if kind is bool:
        only = {"const": values[0]} if len(set(values)) == 1 else {}
        return {**{k: v for k, v in shaped.items() if k != "enum"}, "type": "boolean", **only}
    return {**shaped, "type": JSON_TYPES[kind]} if kind in JSON_TYPES else shaped


def defaults_in_words(schema: dict[str, Any]) -> dict[str, Any]:
    """A request body's schema with each property's default said in its description instead: code
    generators (openapi-typescript by default) make a property with a ``default`` required, as if
    the server always sent it, and the client would have to send what the server fills in itself."""
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        if "default" in prop:
            prop = {k: v for k, v in prop.items() if k != "default"}
            said = f"Default: `{json.dumps(schema['properties'][name]['default'])}`."
            prop["description"] = f"{prop['description']} {said}" if prop.get("description") else said
        properties[name] = prop
    return {**schema, "properties": properties} if properties else schema


def _parameters(op: Op) -> list[dict[str, Any]]:
    parameters: list[dict[str, Any]] = []
    typed = {p.name: p for p in op.params if p.where == "path"}  # a path parameter the server checks
    for name in PATH_PARAM.findall(op.path):
        given = typed.get(name)
        schema = given.schema if given else ID_SCHEMA
        described = {"description": given.description} if given else {}
        parameters.append({"name": name, "in": "path", "required": True, "schema": schema, **described})
    for p in op.params:
        if p.where != "path":
            parameters.append({"name": p.name, "in": p.where, "required": False, "schema": p.schema,
                               "description": p.description})  # fmt: skip
    if "ETag" in op.headers:
        parameters.append(IF_NONE_MATCH)
    return parameters


def _stream_frame(response: type[BaseModel], ref: JsonSchemaValue) -> dict[str, Any]:
    """One frame of a stream, as OpenAPI 3.2's itemSchema would say it (and schemathesis reads it):
    `data` is JSON text holding one event. Generators keep no ``contentSchema``: the description names
    the event's schema, which each of them emits as a type (the NDJSON form references it)."""
    name = response.__name__
    return {
        "type": "object",
        "description": f"Server-Sent Events, one frame each: `data` is one `{name}` (#/components/schemas/"
        f"{name}, the schema of each NDJSON line) as JSON, `id` the event's id (send it back as "
        "Last-Event-ID), `event` its type; a frame that ends the stream early has no `id` and sets "
        "`retry` (ms).",
        "properties": {
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": ref},
            "event": {"type": "string"},
            "id": {"type": "string"},
            "retry": {"type": "integer"},
        },
        "required": ["data"],
    }


def sse_frame_name(response: type[BaseModel]) -> str:
    """The component name of a stream's Server-Sent Events frame (``GameStreamFrame``:
    ``GameStreamSseFrame``): named, as every schema of the document, so no generator makes one up."""
    return f"{response.__name__.removesuffix('Frame')}SseFrame"


def _sse_frames(refs: Refs) -> dict[str, Any]:
    """The schema of each stream's SSE frame (:func:`_stream_frame`), by :func:`sse_frame_name`."""
    return {
        sse_frame_name(op.response): _stream_frame(op.response, refs[(op.response, "serialization")])
        for op in OPS
        if op.stream and op.response
    }


def _responses(op: Op, refs: Refs) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    if op.response:
        media = "text/event-stream" if op.stream else "application/json"
        ref = refs[(op.response, "serialization")]
        named = {"$ref": f"#/components/schemas/{sse_frame_name(op.response)}"}
        content_schema = named if op.stream else ref
        responses[str(op.status)] = {
            "description": op.summary,
            "headers": answer_headers(op.status, own=op.headers),
            "content": {media: {"schema": content_schema}},
        }
        if op.stream:  # each NDJSON line one event (the event models are used: code generators type them)
            responses[str(op.status)]["content"][NDJSON] = {"schema": ref}
    elif op.status == 204:
        responses["204"] = {"description": op.summary, "headers": answer_headers(204, own=op.headers)}
    if op.operation_id in LINKS:
        responses[str(op.status)]["links"] = LINKS[op.operation_id]
    if "ETag" in op.headers:  # the same validators as the answer it stands for (caching.py)
        responses["304"] = {"description": NOT_MODIFIED, "headers": answer_headers(304, own=op.headers)}
    by_status: dict[int, list[str]] = {}
    # Any call may meet the store down (503 store_unavailable, with Retry-After): say so everywhere.
    # A path id no id of ours can be is a 404 before the handler (operation.check_path_ids).
    # A credential of a kind the op does not declare is refused before it too (credentials.py).
    ids = (not_found_code(name) for name in op.path_ids())
    every = tuple(dict.fromkeys((*EVERY_OPERATION, *ids, *credential_codes(op))))
    for code in (*op.errors, *(c for c in every if c not in op.errors)):
        by_status.setdefault(CODES[code].status, []).append(code)
    for status, codes in sorted(by_status.items()):
        responses[str(status)] = {
            "description": "Problem: " + ", ".join(f"`{c}`" for c in codes),
            "headers": answer_headers(status, tuple(codes)),
            "content": {PROBLEM_JSON: {"schema": refs[(Problem, "serialization")]}},
        }
    return responses


def _security(op: Op) -> list[dict[str, list[str]]]:
    """One requirement per credential kind the op takes (``{}``: none needed); ``[]`` said outright
    for a public op, which reads no credential."""
    return [{} if kind == ANONYMOUS else {kind: []} for kind in op.auth]


def _operation(op: Op, refs: Refs) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": op.operation_id,
        "summary": op.summary,
        "tags": [op.tag],
        "parameters": _parameters(op),
    }
    # spectral:oas wants every operation described: the summary says it where nothing more is to say
    operation["description"] = op.description or f"{op.summary}."
    if op.deprecation is not None:
        operation["deprecated"] = True
    if op.request:
        operation["requestBody"] = {
            # no body reads as {} (parse_body): a body is required only where a field is
            "required": any(field.is_required() for field in op.request.model_fields.values()),
            "content": {"application/json": {"schema": refs[(op.request, "validation")]}},
        }
    operation["responses"] = _responses(op, refs)
    if op.deprecation is not None:  # every answer of it, problems included (deprecation.announcing)
        for response in operation["responses"].values():
            response.setdefault("headers", {}).update(
                {name: {"$ref": f"#/components/headers/{name}"} for name in DEPRECATION_HEADERS}
            )
    operation["security"] = _security(op)
    return operation


SECURITY_SCHEMES: dict[str, Any] = {
    "seatToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat token: the `token` of joinGame or rematchGame joined without a credential "
        "(anonymous play), shown once. It acts in that one seat of that one game.",
    },
    "playerToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A player's credential: the guest token of createPlayer (`atp_…`), or a JWT of an "
        "identity provider the operator trusts (ATOUT_JWT_ISSUERS); both name the player. It acts in "
        "every seat its player holds.",
    },
    "botKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "A bot account's API key: the `api_key` of registerBot (`atb_…`), shown once. It "
        "acts in every seat its bot holds (joined with it, or given by a tournament).",
    },
    "adminToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "The administrator token (`ATOUT_ADMIN_TOKEN`).",
    },
}


def _models() -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    """Every model the document names: each op's request (validation) and answer (serialization)."""
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(Problem, "serialization")]
    for op in OPS:
        if op.request:
            models.append((op.request, "validation"))
        if op.response:
            models.append((op.response, "serialization"))
    return models


def _refs_in(schema: Any) -> set[str]:
    """The names of the component schemas ``schema`` refers to directly."""
    if isinstance(schema, list):
        return set().union(*map(_refs_in, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    own = {ref.rpartition("/")[2]} if isinstance(ref, str) and "/schemas/" in ref else set()
    return own.union(*(_refs_in(v) for k, v in schema.items() if k != "$ref"))


def _reachable(roots: set[str], schemas: Mapping[str, Any]) -> set[str]:
    """``roots`` and every schema they reach through ``$ref``s."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += _refs_in(schemas[name])
    return seen


def _answered(paths: Mapping[str, Any], schemas: Mapping[str, Any]) -> set[str]:
    """Every schema a client decodes: those the answers (stream frames and problems included) reach."""
    roots: set[str] = set()
    for item in paths.values():
        for operation in item.values():
            roots |= _refs_in(operation["responses"])
    return _reachable(roots, schemas)


def referred(schema: Any) -> Any:
    """``schema`` with each stand-in (``REFERS_TO``) made the ``$ref`` it names, keeping its
    description: the create requests' options, named components the document adds."""
    if isinstance(schema, dict):
        if REFERS_TO in schema:
            return {"$ref": schema[REFERS_TO], "description": schema.get("description", "")}
        return {key: referred(value) for key, value in schema.items()}
    if isinstance(schema, list):
        return [referred(item) for item in schema]
    return schema


def open_to_additions(schema: Any) -> Any:
    """``schema`` (one a client decodes) with no object in it closed (``additionalProperties: false``)
    and each union in it discriminated by ``type`` saying that a member of a new type is skipped: a
    strict decoder generated from the document (Swift, Kotlin) must not fail on what /v1 may add."""
    if isinstance(schema, list):
        return [open_to_additions(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    opened = {
        k: open_to_additions(v) for k, v in schema.items() if not (k == "additionalProperties" and v is False)
    }
    key = opened.get("discriminator", {}).get("propertyName")
    if key == "type":
        said = OPEN_TYPES.format(name=key)
        opened["description"] = f"{opened['description']} {said}" if opened.get("description") else said
    return opened


def portable_patterns(schema: Any) -> Any:
    """``schema`` without the ``pattern``s that hold a character outside the Basic Multilingual Plane.
    JSON Schema reads a pattern as ECMA-262 with the ``u`` flag, but linters (spectral:oas, ajv-formats)
    and other JS tools compile it without the flag, where such a character is two UTF-16 units and a
    class range of them does not compile; no pattern reads the same in both (nor in Python's ``re``).
    The server keeps checking (schema/display.py: the names' rule, said in the description, refused
    with a 422 ``invalid_request`` of type ``unsafe_character``)."""
    if isinstance(schema, list):
        return [portable_patterns(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    pattern = schema.get("pattern")
    astral = isinstance(pattern, str) and any(ord(char) > LAST_BMP for char in pattern)
    return {k: portable_patterns(v) for k, v in schema.items() if not (astral and k == "pattern")}


def _problem_code(problem: dict[str, Any]) -> None:
    """``Problem.code``: a string with its known values listed (docs/errors.md), not a closed enum."""
    code = problem["properties"]["code"]
    code.pop("enum", None)
    code["description"] = OPEN_CODES
    code["x-extensible-enum"] = list(CODES)


def _tags() -> list[dict[str, str]]:
    used = {op.tag for op in OPS}
    if used - set(TAGS):
        raise ValueError(f"operations tagged with no description in TAGS: {sorted(used - set(TAGS))}")
    return [{"name": name, "description": description} for name, description in TAGS.items() if name in used]


def _request_bodies(refs: Mapping[Any, JsonSchemaValue], schemas: Mapping[str, Any]) -> set[str]:
    """The names of the request bodies' schemas, and of the members of a body that is one of several
    (CreateGameRequest, by game): their defaults are said in words (:func:`defaults_in_words`)."""
    names = {refs[(op.request, "validation")]["$ref"].rpartition("/")[2] for op in OPS if op.request}
    return names | {
        member["$ref"].rpartition("/")[2] for name in names for member in schemas[name].get("oneOf", [])
    }


def openapi_document() -> dict[str, Any]:
    """The document of every endpoint in :data:`OPS`: what GET /openapi.json answers and ``atout openapi``
    prints (test_contracts checks that openapi/openapi.json is this, byte for byte)."""
    refs, defs = models_json_schema(_models(), ref_template="#/components/schemas/{model}")
    _problem_code(defs["$defs"]["Problem"])  # the catalogue: docs/errors.md
    request_bodies = _request_bodies(refs, defs.get("$defs", {}))
    paths: dict[str, dict[str, Any]] = {}
    for op in OPS:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, refs)
    shaped = referred(
        portable_patterns(
            typed_enums(
                without_null_defaults(
                    {**defs.get("$defs", {}), **_sse_frames(refs), **request_options_schemas()}
                )
            )
        )
    )
    answered = _answered(paths, shaped)
    schemas = {
        name: open_to_additions(schema) if name in answered else schema for name, schema in shaped.items()
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Atout",
            "version": API_VERSION,
            "license": {"name": "MIT", "identifier": "MIT"},
            "contact": {"name": "The Atout maintainers"},
            "description": "Le 500, Le Rough and five-handed euchre for app and bot developers. "
            "Errors are application/problem+json with a stable `code`. Open to additions within /v1: "
            "ignore a field you do not know in an answer, skip an event or notice of a type you do not "
            "know, and treat an unknown problem `code` by its HTTP status.",
        },
        # relative: the service that serves this document (GET /openapi.json) is the one it describes
        "servers": [{"url": "/", "description": "This service (`make serve` runs it on localhost:8000)."}],
        "tags": _tags(),
        "paths": paths,
        "components": {
            "schemas": {
                name: defaults_in_words(schema) if name in request_bodies else schema
                for name, schema in schemas.items()
            },
            "headers": {**HEADERS, **DEPRECATION_HEADERS},
            "securitySchemes": SECURITY_SCHEMES,
        },
    }
