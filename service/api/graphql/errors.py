"""Every GraphQL error gets an ``extensions.code``: a resolver's REST problem keeps its code, and the
errors graphql-core or a fault raise are given one, so a client can sort every error it gets."""

from __future__ import annotations

import re
from typing import Any

from graphql import GraphQLError
from graphql.validation.validate import ValidationAbortedError

from service.api.problems import problem_error
from service.base.problems import ProblemError
from service.base.texts import Text
from service.store.faults import store_fault

INTERNAL = Text("Something went wrong on our side; the error was logged.")
# What graphql-core wraps when it refuses variables or literals (a scalar's parse_value raising).
PRE_EXECUTION_FAULTS = (GraphQLError, ValueError, TypeError)
# graphql-core's hint at the end of a message: ' Did you mean "games"?'
SUGGESTION = re.compile(r" Did you mean .*\?$", re.DOTALL)


def coded(error: GraphQLError) -> GraphQLError:
    """Give ``error`` an ``extensions.code`` when it has none, so a client can sort every error.

    A ProblemError raised by a resolver keeps its code; an error before execution (a document or
    variables graphql-core refuses) is ``invalid_query``; anything else is a fault of ours:
    ``internal_error``, its message replaced (``AtoutSchema.process_errors`` logged it already).
    Changes the error in place, and leaves a coded one alone, so it may run more than once.
    """
    if (error.extensions or {}).get("code"):
        return error
    original = error.original_error
    if isinstance(original, ProblemError):
        problem = original
    elif isinstance(error, ValidationAbortedError) and "Too many validation errors" not in error.message:
        problem = ProblemError(
            "query_too_complex",
            "Validation gave up on this document: it compares the same fields too many times (a field "
            "repeated, or fragments selecting the same fields spread side by side); select each field once.",
        )
    elif original is not None and (fault := store_fault(original, "graphql")) is not None:
        problem = fault  # Redis down or full: store_unavailable / server_full, never redis-py's text
    elif error.path is None and (original is None or isinstance(original, PRE_EXECUTION_FAULTS)):
        problem = ProblemError("invalid_query", Text.verbatim(error.message))
    else:
        problem = ProblemError("internal_error", INTERNAL)
    error.message = problem.detail
    error.extensions = problem_error(problem).extensions
    return error


def code_errors(result: Any) -> None:
    """:func:`coded` on every error of ``result`` (an execution result, or anything without errors)."""
    for error in getattr(result, "errors", None) or ():
        coded(error)


def drop_suggestions(result: Any) -> None:
    """Strip graphql-core's "Did you mean …?" from the messages of ``result``: with introspection off,
    they would name the schema's fields and types all the same."""
    for error in getattr(result, "errors", None) or ():
        error.message = SUGGESTION.sub("", error.message)
