"""The one ASGI layer between the server and the routes: the request id, metrics, the client's
address, input limits and the 503 for a Redis fault raised outside the routes.

One layer rather than four because each layer costs an await and a wrapped ``send`` per request, and
the action path is measured against the bare endpoint (``bench/api.py``). It is pure ASGI rather than
a ``BaseHTTPMiddleware``: it must not buffer responses (SSE, NDJSON) and lets WebSockets through
(it only records their client address and request id).

Request id: the client's ``X-Request-ID`` when it is sane (``logs.REQUEST_ID_PATTERN``), else a
fresh one; set for the whole request (every log line carries it, a problem names it in
``instance``) and echoed in the response's ``X-Request-ID``. The language of the answers' texts is
set alike, from ``Accept-Language`` (``service.base.languages``: English or French).

Input limits: a body over ``max_body_bytes`` is refused *before* the application reads it whole: at
once from ``Content-Length``, or, for a chunked upload, as soon as the bytes received pass the limit
(413 ``payload_too_large``); a POST body that is not ``application/json`` is 415
``unsupported_media_type`` (GraphQL clients send application/json too); a body not all sent within
``body_timeout`` seconds of its first read is 408 ``request_timeout`` (a slow upload holds a
request, and its connection, only that long).

WebSockets (GraphQL subscriptions): at most ``ws_per_address`` open at once per client address
(429 ``too_many_connections``, as an HTTP answer to the upgrade where the server can send one), and
at most ``ws_messages_per_second`` messages a second from each (a token bucket holding two seconds'
worth; past it the socket is closed with 1008). The size of one message is capped by the server
itself, before anything parses it (``service.runtime.http_server``).

The client address is the peer's, or the one a trusted proxy forwarded (uvicorn's proxy headers,
``ATOUT_TRUSTED_PROXIES``), counted per IPv4 address or IPv6 /64 (``service.base.addresses``).

Every answer carries ``X-Content-Type-Options: nosniff``: no JSON answer or script is ever read by a
browser as anything else.

CORS (:class:`BrowserCORS`, the layer outside this one) runs only for a request that carries an
``Origin``, which a browser's cross-origin call does; a bot, a server or curl sends none. Starlette's
CORS layer answered those too, wrapping every ``send`` to add the one header it adds without an
Origin, ``Vary: Origin`` (so a shared cache never serves a browser a copy made without its CORS
headers): with ``vary_origin`` this layer adds it instead, merged as Starlette merges it, in the pass
over the headers it makes anyway.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.metrics import route_template
from service.api.problems import problem_response
from service.base import languages, logs
from service.base.addresses import address_key
from service.base.counters import Metrics
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.quotas import client_address
from service.store.faults import store_fault

log = logs.get_logger("atout.http")

JSON_MEDIA_TYPE = b"application/json"
_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})
NOSNIFF = (b"x-content-type-options", b"nosniff")
WS_POLICY_VIOLATION = 1008
ORIGIN = b"origin"
VARY = b"vary"


def has_origin(scope: Scope) -> bool:
    return any(name == ORIGIN for name, _ in scope["headers"])  # ASGI header names are lower-case


class BrowserCORS:
    """Starlette's ``CORSMiddleware`` (built with ``options``) for a request with an ``Origin``: its
    preflight answers and its headers, as before. Any other request goes straight to ``app``, whose
    :class:`EdgeMiddleware` (``vary_origin``) adds the ``Vary: Origin`` CORS would have added."""

    def __init__(self, app: ASGIApp, /, **options: Any) -> None:
        self.app = app
        self.cors = CORSMiddleware(app, **options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and has_origin(scope):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def _request_id(scope: Scope) -> tuple[str, tuple[bytes, bytes], str, bool]:
    """The request's id (the client's when sane, else new), its response header, the language its
    ``Accept-Language`` asks for (``service.base.languages``), and whether it has an ``Origin``: one
    pass over the headers."""
    raw = accepted = None
    origin = False
    for name, value in scope["headers"]:  # ASGI header names are lower-case
        if name == logs.REQUEST_ID_HEADER and raw is None:
            raw = value
        elif name == languages.ACCEPT_LANGUAGE_HEADER:
            accepted = value
        elif name == ORIGIN:
            origin = True
    rid = logs.incoming_request_id(raw) or logs.new_request_id()
    return rid, (logs.REQUEST_ID_HEADER, rid.encode("ascii")), languages.from_header(accepted), origin


def with_vary_origin(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with ``Origin`` added to ``Vary`` as Starlette's CORS layer adds it to an answer
    without an Origin: the values of every ``Vary`` joined in the first one's place, else at the end."""
    found = [i for i, (name, _) in enumerate(headers) if name == VARY]
    if not found:
        return [*headers, (VARY, b"Origin")]
    joined = b", ".join([*(headers[i][1] for i in found), b"Origin"])
    kept = [header for i, header in enumerate(headers) if i not in found[1:]]
    kept[found[0]] = (VARY, joined)
    return kept


class EdgeMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        metrics: Metrics | None = None,
        access_log: bool = False,
        max_body_bytes: int = 65_536,
        body_timeout: float = 30.0,
        ws_per_address: int = 16,
        ws_messages_per_second: int = 20,
        vary_origin: bool = False,
    ) -> None:
        self.app = app
        self.vary_origin = vary_origin  # BrowserCORS outside: add its Vary: Origin here
        self.metrics = metrics
        self.access_log = access_log
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        self.ws_per_address = ws_per_address
        self.ws_messages_per_second = ws_messages_per_second
        self.websockets: dict[str, int] = {}  # open WebSockets per client address key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http":
            if kind == "websocket":
                await self._websocket(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        client = scope.get("client")
        client_address.set(address_key(str(client[0])) if client else "")
        rid, rid_header, language, origin = _request_id(scope)
        vary = self.vary_origin and not origin
        rid_token = logs.request_id.set(rid)
        language_token = languages.language.set(language)
        method = scope["method"]
        started_at = time.perf_counter()
        status = 0  # no response started yet

        async def tracking_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", ()), rid_header, NOSNIFF]
                message = {**message, "headers": with_vary_origin(headers) if vary else headers}
                if self.metrics is not None:
                    self.metrics.observe(route_template(scope), method, time.perf_counter() - started_at)
            await send(message)

        try:
            if method in _NO_BODY:
                await self.app(scope, receive, tracking_send)
            else:
                refusal = self._refusal(scope)
                if refusal is not None:
                    await self._refuse(scope, tracking_send, refusal)
                    return
                await self.app(scope, self._limited(receive), tracking_send)
        except ProblemError as error:
            # The routes' exception handlers answer a ProblemError raised while reading the body; this
            # is for anything that reads it outside them.
            if status or error.code not in {"payload_too_large", "request_timeout"}:
                raise
            await self._refuse(scope, tracking_send, error)
        except Exception as exc:
            # A Redis fault outside the routes (a rate limiter counting in Redis): the routes' 503.
            fault = store_fault(exc, "edge")
            if fault is None or status:
                raise
            log.warning("store_fault", path=scope.get("path", ""), error=type(exc).__name__, code=fault.code)
            await problem_response(fault, scope.get("path"))(scope, receive, tracking_send)
        finally:
            if self.metrics is not None:
                route = route_template(scope)
                self.metrics.count(route, method, status or 500)
                if self.access_log:
                    ms = round((time.perf_counter() - started_at) * 1000, 2)
                    log.info("request", method=method, route=route, status=status or 500, ms=ms)
            logs.request_id.reset(rid_token)
            languages.language.reset(language_token)

    def _refusal(self, scope: Scope) -> ProblemError | None:
        """413 from ``Content-Length`` or 415 from the content type, before any byte is read."""
        length_header = content_type = transfer_encoding = None
        for name, value in scope["headers"]:  # ASGI header names are lower-case
            if name == b"content-length":
                length_header = value
            elif name == b"content-type":
                content_type = value
            elif name == b"transfer-encoding":
                transfer_encoding = value
        try:
            length = int(length_header) if length_header is not None else None
        except ValueError:
            length = None
        if length is not None and length > self.max_body_bytes:
            return self._too_large()
        chunked = transfer_encoding is not None and b"chunked" in transfer_encoding.lower()
        if scope["method"] == "POST" and (chunked or (length is not None and length > 0)):
            media = (content_type or b"").split(b";", 1)[0].strip().lower()
            if media != JSON_MEDIA_TYPE:
                shown = media.decode("latin-1") or "none"
                return ProblemError(
                    "unsupported_media_type",
                    Text(
                        "Send the body as JSON with `Content-Type: application/json` (got {shown}).",
                        shown=shown,
                    ),
                )
        return None

    def _limited(self, receive: Receive) -> Receive:
        """``receive`` that raises 413 as soon as the bytes received pass the limit (chunked uploads),
        and 408 when the body is not all in within ``body_timeout`` seconds of its first read."""
        received = 0
        deadline: float | None = None
        complete = False

        async def limited_receive() -> Message:
            nonlocal received, deadline, complete
            if complete:  # after the body: a wait for the disconnect, which has no deadline
                return await receive()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.body_timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise ProblemError(
                    "request_timeout",
                    Text(
                        "The request body was not all sent within {seconds:g} seconds.",
                        seconds=self.body_timeout,
                    ),
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise self._too_large()
                complete = not message.get("more_body", False)
            return message

        return limited_receive

    # --- WebSockets ------------------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One GraphQL WebSocket: counted against its address's cap, its messages against their rate."""
        client = scope.get("client")
        address = address_key(str(client[0])) if client else ""
        client_address.set(address)  # the creator of a game, for its quota
        rid, _, language, _ = _request_id(scope)
        logs.request_id.set(rid)  # the connection's: its subscriptions' errors
        languages.language.set(language)  # the upgrade's Accept-Language: its errors' language
        held = self.websockets.get(address, 0)
        if held >= self.ws_per_address:
            await self._refuse_websocket(
                scope,
                receive,
                send,
                ProblemError(
                    "too_many_connections",
                    Text(
                        "This address holds {held} WebSockets to this server (at most {most}); "
                        "run several subscriptions on one socket.",
                        held=held,
                        most=self.ws_per_address,
                    ),
                    headers={"Retry-After": "5"},
                ),
            )
            return
        self.websockets[address] = held + 1
        guard = _MessageRate(receive, send, self.ws_messages_per_second)
        try:
            await self.app(scope, guard.receive, guard.send)
        finally:
            left = self.websockets.get(address, 1) - 1
            if left > 0:
                self.websockets[address] = left
            else:
                self.websockets.pop(address, None)

    @staticmethod
    async def _refuse_websocket(scope: Scope, receive: Receive, send: Send, error: ProblemError) -> None:
        """Refuse the upgrade: with an HTTP problem answer where the server offers the ASGI
        ``websocket.http.response`` extension, else a plain close (the server answers 403)."""
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        log.info("websocket_refused", code=error.code)
        if "websocket.http.response" in scope.get("extensions", {}):
            response = problem_response(error, scope.get("path"))
            await send(
                {
                    "type": "websocket.http.response.start",
                    "status": response.status_code,
                    "headers": response.raw_headers,
                }
            )
            await send({"type": "websocket.http.response.body", "body": response.body})
        else:
            await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": error.code})

    def _too_large(self) -> ProblemError:
        return ProblemError(
            "payload_too_large",
            Text(
                "The request body is larger than {limit} bytes; send a smaller one.",
                limit=self.max_body_bytes,
            ),
            limit=self.max_body_bytes,
        )

    @staticmethod
    async def _refuse(scope: Scope, send: Send, error: ProblemError) -> None:
        response = problem_response(error, scope.get("path"), {"Connection": "close"})

        async def no_body() -> Message:  # the refused body is never read
            return {"type": "http.disconnect"}

        await response(scope, no_body, send)


class _MessageRate:
    """A WebSocket's messages from the client, at most ``per_second`` on average (a bucket of two
    seconds' worth): past it the socket is closed with 1008 and the application is told the client
    left, so a flood costs one message's work, not one parse each."""

    def __init__(self, receive: Receive, send: Send, per_second: int) -> None:
        self._receive = receive
        self._send = send
        self.rate = float(per_second)
        self.capacity = 2.0 * per_second
        self.tokens = self.capacity
        self.last = time.monotonic()
        self.closed = False

    async def receive(self) -> Message:
        if self.closed:
            return {"type": "websocket.disconnect", "code": WS_POLICY_VIOLATION}
        message = await self._receive()
        if message["type"] != "websocket.receive":
            return message
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return message
        self.closed = True
        log.info("websocket_flood", per_second=self.rate)
        await self._send(
            {"type": "websocket.close", "code": WS_POLICY_VIOLATION, "reason": "too many messages"}
        )
        return {"type": "websocket.disconnect", "code": WS_POLICY_VIOLATION}

    async def send(self, message: Message) -> None:
        if not self.closed:  # the application may still answer the last message it read
            await self._send(message)
