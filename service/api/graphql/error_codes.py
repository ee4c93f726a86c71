"""``ErrorCode``: the problem codes of the catalogue as a GraphQL enum, so the committed
schema/schema.graphql (and the TypeScript generated from it) lists every code a GraphQL error's
``extensions.code`` can carry. Its values are UPPER_CASE, as every GraphQL enum's (docs/glossary.md),
each standing for the code's wire string, which ``extensions.code`` carries as REST's ``code`` does
(``NOT_FOUND`` ↔ ``not_found``): one code in both APIs, compared as sent. Nothing returns the type
(GraphQL types no error); the schema declares it."""

from __future__ import annotations

import enum

import strawberry

from service.base.catalogue import CATALOGUE

# members built from the catalogue (mypy can only type an Enum() of literal members)
_CODES: type[enum.Enum] = enum.Enum("ErrorCode", [(code.upper(), code) for code in CATALOGUE])  # type: ignore[misc]

ErrorCode = strawberry.enum(
    _CODES,
    description="The stable `code` of a problem, UPPER_CASE: a GraphQL error's `extensions.code` is one "
    "of these in lower case, as REST's problem+json sends it (`NOT_FOUND`: `not_found`); open to "
    "additions (treat an unknown code by its HTTP status). What each means and what to do: docs/errors.md.",
)
