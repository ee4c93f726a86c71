"""Problems as RFC 9457 ``application/problem+json``: a stable ``code``, a title and an actionable detail.

The same codes are used by REST (the body) and GraphQL (``extensions.code``); the catalogue of
codes is ``service.base.catalogue``, and ``title`` and ``detail`` are in English or French as the
request's ``Accept-Language`` asks (``service.base.languages``, ``service.base.texts``). Every problem names
the request it answers in ``instance`` (``urn:atout:request:<id>``, the id of the ``X-Request-ID``
header and of the request's log lines), and every one is counted (``atout_errors_total``).

This module holds what every layer raises: the codes and :class:`ProblemError`. Answering one over
HTTP is ``service.api.problems``; turning a Redis fault into one is ``service.store.faults``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.base import languages, logs
from service.base.catalogue import CATALOGUE
from service.base.error_codes import ErrorCode
from service.base.texts import Text

PROBLEM_JSON = "application/problem+json"
INSTANCE_PREFIX = "urn:atout:request:"
TYPE_PREFIX = "/problems/"
"""A problem's ``type`` is ``/problems/<code>``: a relative reference (RFC 9457 §3.1.1), resolved
against the answer's own URL, so it names the catalogue entry on the very server that answered
(``GET /problems/<code>``, service/api/problem_types.py) whatever host or proxy it is reached
through, and it is the same string on every deployment, for clients that compare it."""

CODES: Mapping[str, ErrorCode] = CATALOGUE
"""Every code with its HTTP status and titles (``service.base.catalogue``, docs/errors.md)."""


class ProblemError(Exception):
    """An expected failure that the client can act on.

    ``detail`` is a :class:`~service.base.texts.Text` (a plain string is a sentence without values):
    the ``title`` and ``detail`` read off the error are in the language of the request being served
    (``service.base.languages``), and ``str(error)`` is the English, for logs."""

    def __init__(
        self, code: str, detail: str | Text, *, headers: Mapping[str, str] | None = None, **extra: Any
    ) -> None:
        self.text = detail if isinstance(detail, Text) else Text(detail)
        super().__init__(str(self.text))
        self.code = code
        self.status = CODES[code].status
        self.extra = extra
        self.headers = dict(headers or {})  # e.g. Retry-After on a 429 or a 503

    @property
    def title(self) -> str:
        return CODES[self.code].title_in(languages.language.get())

    @property
    def detail(self) -> str:
        return self.text.render()

    def to_dict(self, instance: str | None = None) -> dict[str, Any]:
        """The problem+json body, in the request's language; ``instance`` is the request's id
        (``instance`` given here is used only outside a request, where no id is bound)."""
        instance = request_instance() or instance
        body: dict[str, Any] = {
            "type": TYPE_PREFIX + self.code,
            "title": self.title,
            "status": self.status,
            "code": self.code,
            "detail": self.detail,
        }
        if instance:
            body["instance"] = instance
        body.update(self.extra)
        return body


def request_instance() -> str | None:
    """``urn:atout:request:<id>`` for the request being served, None outside one."""
    rid = logs.request_id.get()
    return INSTANCE_PREFIX + rid if rid else None
