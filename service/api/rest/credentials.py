"""Each REST operation takes the credentials its :class:`~service.api.rest.operation.Op` declares (the
OpenAPI document's ``security``, one scheme per kind: docs/credentials.md), and no other: a credential
of a kind it does not declare is refused here, before the handler, by the kind the credential shows
(:meth:`service.games.core.Credentials.kind_of`, no store read).

- a credential the server can name (the administrator's, a bot's ``atb_`` key, a player's ``atp_``
  token or JWT) but the operation does not take: 403 ``credential_not_accepted`` (the credential may be
  good: a client must not drop it), or ``admin_required`` where only the administrator acts;
- anything else, which only a seat token could be, where the operation takes no seat token: 401
  ``invalid_token``.

Whether a credential of a declared kind holds (a key revoked, a seat given up, the seat of another)
is the handler's to decide, as before."""

from __future__ import annotations

from starlette.requests import Request

from service.api.rest.operation import ADMIN_ONLY, Op
from service.api.rest.requests import bearer, games_of
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.core import ADMIN_TOKEN, BOT_KEY, CREDENTIAL_KINDS, PLAYER_TOKEN, SEAT_TOKEN


def credential_of(request: Request, op: Op) -> str | None:
    """The bearer token of the request: its ``Authorization``, or a stream's ``access_token`` query
    parameter (for EventSource clients, which cannot set a header)."""
    token = bearer(request)
    if token is None and op.stream:
        return request.query_params.get("access_token") or None
    return token


def check_credential(request: Request, op: Op) -> None:
    """Refuse a credential of a kind ``op`` does not declare; a call without one goes on to the handler
    (which answers 401 ``missing_token`` where a credential is needed)."""
    if not op.auth:
        return  # a public operation: no credential is read
    token = credential_of(request, op)
    if token is None:
        return
    kind = games_of(request).credentials.kind_of(token)
    if kind in op.auth:
        return
    if op.auth == ADMIN_ONLY:
        raise ProblemError("admin_required", "This operation needs the administrator token.")
    accepted = ", ".join(f"`{k}`" for k in op.auth if k in CREDENTIAL_KINDS)
    if kind == SEAT_TOKEN:
        raise ProblemError(
            "invalid_token",
            Text("This token is not a credential this operation takes ({accepted}).", accepted=accepted),
        )
    raise ProblemError(
        "credential_not_accepted",
        Text("This operation takes {accepted}, not a `{kind}`.", accepted=accepted, kind=kind),
    )


def credential_codes(op: Op) -> tuple[str, ...]:
    """The problem codes :func:`check_credential` may answer for ``op`` (the OpenAPI document lists
    them with the op's own)."""
    if not op.auth:
        return ()
    if op.auth == ADMIN_ONLY:
        return ("admin_required",)
    named = any(kind not in op.auth for kind in (PLAYER_TOKEN, BOT_KEY, ADMIN_TOKEN))
    return (
        *(("invalid_token",) if SEAT_TOKEN not in op.auth else ()),
        *(("credential_not_accepted",) if named else ()),
    )
