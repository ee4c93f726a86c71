"""``GET /problems/{code}``: the catalogue entry a problem's ``type`` names.

Every problem answered carries ``type: /problems/<code>`` (service/base/problems.py), a reference
relative to the answer's URL, so a client (or a person) that follows it reaches this route on the
same server: the code's status, whether and when to retry, its titles, what it means and what to do
(service/base/catalogue.py, the source of docs/errors.md). Public and static: no credential, no Redis.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from service.base.problems import CODES, TYPE_PREFIX, ProblemError
from service.base.texts import Text

MAX_CODE = 64  # the longest code is far shorter: a longer path is refused before any lookup


async def problem_type(request: Request) -> Response:
    code = str(request.path_params["code"])
    entry = CODES.get(code) if len(code) <= MAX_CODE else None
    if entry is None:
        raise ProblemError(
            "not_found",
            Text("There is no problem code {code!r}; docs/errors.md lists them all.", code=code[:MAX_CODE]),
        )
    body = {
        "type": TYPE_PREFIX + entry.code,
        "code": entry.code,
        "status": entry.status,
        "retry": str(entry.retry),
        "title": entry.title,
        "title_fr": entry.title_fr,
        "meaning": entry.meaning,
        "action": entry.action,
        **({"reserved": entry.reserved} if entry.reserved else {}),
    }
    return JSONResponse(body, headers={"Cache-Control": "public, max-age=86400"})


def routes() -> list[BaseRoute]:
    return [Route(TYPE_PREFIX + "{code}", problem_type, include_in_schema=False)]
