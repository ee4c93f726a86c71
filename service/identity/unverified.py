"""What a JWT says before its signature is checked: enough to choose whose keys check it, nothing
believed.

The header's ``alg`` and ``kid`` and the claims' ``iss`` pick the issuer, refuse an algorithm it may
not use and find the key; everything else is read again from the verified token. Both readings use
the same JSON parser, so a token with a key written twice reads the same both times.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from service.base.problems import ProblemError
from service.base.texts import Text

MAX_TOKEN_CHARS = 8192
"""Longest JWT read (a provider's ID token is ~1 KB; the request header cap is 16 KiB)."""
MAX_HEADER_CHARS = 1024
"""Longest header segment :func:`looks_like_jwt` decodes (joserfc refuses headers over 512 bytes)."""
_SEGMENT = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Unverified:
    """The header and claims of a JWT whose signature is not checked yet."""

    alg: str
    kid: str | None
    issuer: str


def looks_like_jwt(token: str) -> bool:
    """Whether ``token`` has the shape of a JWT (three base64url parts, the first a JSON header
    naming its ``alg``), checked without any key: the service's own tokens (``atb_…``, ``atp_…``, seat
    tokens) have no dots. A JWT with an empty signature (``alg: none``) still looks like one, so that
    it is refused as a JWT rather than as an unknown opaque token."""
    parts = token.split(".")
    if len(parts) != 3 or not all(_SEGMENT.fullmatch(part) for part in parts):
        return False
    if not parts[0] or not parts[1] or len(parts[0]) > MAX_HEADER_CHARS:
        return False
    header = _decode(parts[0])
    return isinstance(header, dict) and isinstance(header.get("alg"), str)


def read_unverified(token: str) -> Unverified:
    """The algorithm, key id and issuer a JWT names; ``token_malformed`` when it is not a JWT whose
    header names a string ``alg`` and whose claims name a string ``iss``."""
    if len(token) > MAX_TOKEN_CHARS:
        raise ProblemError(
            "token_malformed",
            Text("The bearer token is longer than {most} characters.", most=MAX_TOKEN_CHARS),
        )
    if not looks_like_jwt(token):
        raise ProblemError(
            "token_malformed",
            "The bearer token is not a JWT: three base64url parts, the first a JSON header naming its alg.",
        )
    header_part, claims_part, _signature = token.split(".")
    header, claims = _decode(header_part), _decode(claims_part)
    assert isinstance(header, dict)
    if not isinstance(claims, dict):
        raise ProblemError("token_malformed", "The JWT's claims are not a JSON object.")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise ProblemError("token_malformed", "The JWT's kid is not a string.")
    issuer = claims.get("iss")
    if not isinstance(issuer, str) or not issuer:
        raise ProblemError("token_malformed", "The JWT does not name its issuer (iss).")
    return Unverified(alg=header["alg"], kid=kid, issuer=issuer)


def _decode(segment: str) -> Any:
    """A base64url segment's JSON, or None when it is not (nesting too deep included)."""
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        return json.loads(raw)
    except (binascii.Error, ValueError, RecursionError):
        return None
