"""``ErrorCode``: the problem codes of the catalogue as a GraphQL enum, so the committed
schema/schema.graphql (and the TypeScript generated from it) lists every value a GraphQL error's
``extensions.code`` can take. The values are the codes themselves, lower-case as REST sends them:
``extensions.code`` stays that plain string. Nothing returns the type; the schema declares it."""

from __future__ import annotations

import enum

import strawberry

from service.base.catalogue import CATALOGUE

# members built from the catalogue (mypy can only type an Enum() of literal members)
_CODES: type[enum.Enum] = enum.Enum("ErrorCode", [(code, code) for code in CATALOGUE])  # type: ignore[misc]

ErrorCode = strawberry.enum(
    _CODES,
    description="The stable `code` of a problem: a GraphQL error's `extensions.code` is one of these "
    "(the same codes as REST's problem+json; what each means and what to do: docs/errors.md).",
)
