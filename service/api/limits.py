"""Input limits past the ASGI edge (body size and content type are checked in ``service.api.edge``): a
JSON parser that cannot be made to fail with a 500 (a display name is checked by the ``DisplayText`` of
the request models, which GraphQL's arguments go through too)."""

from __future__ import annotations

import json
import re
from typing import Any

from service.base.problems import ProblemError
from service.base.texts import Text

# --- JSON ---------------------------------------------------------------------------------------


def deeper_than(value: Any, max_depth: int) -> bool:
    """Whether arrays and objects nest more than ``max_depth`` levels in a parsed value: walked level
    by level (no recursion), stopping at the first level past the limit."""
    level = [value] if isinstance(value, (dict, list)) else []
    for _ in range(max_depth):
        if not level:
            return False
        below: list[Any] = []
        for node in level:
            for child in node.values() if isinstance(node, dict) else node:
                if isinstance(child, (dict, list)):
                    below.append(child)
        level = below
    return bool(level)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _too_deep(max_depth: int) -> ProblemError:
    """The refusal of a body nested too deep: built when one is refused, not for every body."""
    return ProblemError(
        "malformed_body",
        Text("The JSON is nested more than {depth} levels deep; send a flatter body.", depth=max_depth),
    )


def parse_json(raw: bytes | str, max_depth: int = 32, max_int_digits: int = 30) -> Any:
    """``json.loads`` that answers bad input with a problem, never a RecursionError or ValueError 500.

    Nesting deeper than ``max_depth`` is ``malformed_body`` (400): no body of this API is nested
    more than a few levels, and code that walks the value (validation, logging) may recurse on it;
    past the interpreter's recursion limit the parser itself gives up (RecursionError, caught). An
    integer with more than ``max_int_digits`` digits is ``invalid_request`` (422): it is well-formed
    JSON but no field of this API accepts such a value (Python refuses to convert over 4300 digits,
    and converting is quadratic below that). ``NaN`` and ``Infinity`` are not JSON: malformed.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw

    def parse_int(text: str) -> int:
        digits = len(text.lstrip("-"))
        if digits > max_int_digits:
            raise _IntTooLong(digits)
        return int(text)

    try:
        value = json.loads(data, parse_int=parse_int, parse_constant=_reject_constant)
    except RecursionError:  # the C parser stops at the interpreter's recursion limit, cleanly
        raise _too_deep(max_depth) from None
    except _IntTooLong as exc:
        raise ProblemError(
            "invalid_request",
            Text(
                "body: an integer has {digits} digits; at most {most} are accepted.",
                digits=exc.digits,
                most=max_int_digits,
            ),
            errors=[{"loc": ["body"], "msg": f"at most {max_int_digits} digits", "type": "int_too_long"}],
        ) from None
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ProblemError(
            "malformed_body", Text("The body must be a JSON object: {error}.", error=Text.verbatim(str(exc)))
        ) from None
    # Fewer brackets than the limit cannot nest past it: ordinary bodies skip the walk.
    if data.count(b"[") + data.count(b"{") > max_depth and deeper_than(value, max_depth):
        raise _too_deep(max_depth)
    # Only a \uD800-\uDFFF escape can make a string that is not Unicode (a lone surrogate): Python
    # decodes it, but cannot encode it again (for Redis, a log line, an answer that quotes it).
    if _SURROGATE_ESCAPE.search(data) and lone_surrogate(value):
        raise ProblemError(
            "malformed_body",
            "The body holds a lone UTF-16 surrogate (an escape \\uD800-\\uDFFF without its pair): "
            "send text as valid Unicode.",
        )
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def lone_surrogate(value: Any) -> bool:
    """Whether any string (or object key) in a parsed value cannot be encoded as UTF-8; walked level by
    level, as :func:`deeper_than`."""
    level = [value]
    while level:
        below: list[Any] = []
        for node in level:
            if isinstance(node, str):
                if not _encodable(node):
                    return True
            elif isinstance(node, dict):
                if not all(_encodable(key) for key in node):
                    return True
                below.extend(node.values())
            elif isinstance(node, list):
                below.extend(node)
        level = below
    return False


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _IntTooLong(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits
