"""The HTTP server's settings and the guards uvicorn lacks, in one place for ``atout serve`` and tests.

uvicorn covers most of what a server exposed to the Internet needs, given the right settings
(:func:`server_options`): WebSocket messages capped at ``ATOUT_WS_MAX_MESSAGE_BYTES`` *after*
decompression and permessage-deflate off by default (a 16 KB deflated frame no longer inflates to
16 MB before anything reads it), idle kept-alive connections closed, and ``X-Forwarded-For``
believed only from ``ATOUT_TRUSTED_PROXIES`` (uvicorn's own proxy-headers middleware; by default it
would trust 127.0.0.1, so anything on the host could claim any address and get a fresh quota per
request).

Three guards have no uvicorn setting with the httptools parser (uvicorn's fast path; its
``h11_max_incomplete_event_size`` applies to h11 only, and answers 400 rather than 431), so
:class:`GuardedHttpToolsProtocol` adds them to uvicorn's own protocol, changing nothing else:

- a **header deadline**: a connection that has not sent a whole request header within
  ``ATOUT_HEADER_TIMEOUT`` seconds of its opening (or of the first byte of a later request on a
  kept-alive connection) is closed, with a 408 if it had started one. Before, half-sent headers held
  a connection for good and 19,900 silent connections used every file descriptor;
- a **header size limit**: a request line and header over ``ATOUT_MAX_HEADER_BYTES`` is answered
  431 ``header_too_large`` and closed as soon as that many bytes are in, so the parser never holds
  more than the limit plus one read (a 100 MB header used to block the loop for seconds);
- **connection caps**: past ``ATOUT_MAX_CONNECTIONS`` open connections in the process, or
  ``ATOUT_MAX_CONNECTIONS_PER_ADDRESS`` from one peer (an IPv6 /64; trusted proxies exempt), a new
  connection is answered at once (503 ``server_full`` / 429 ``too_many_connections``) and closed,
  rather than queued while its descriptor is held.

Refusals are problem+json bodies with the stable codes of ``service.errors``. The request body's
deadline (``ATOUT_BODY_TIMEOUT``) is kept at the ASGI edge (``service.api.edge``), which reads bodies.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from dataclasses import dataclass
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from service.base import languages, logs
from service.base.addresses import address_key
from service.base.problems import PROBLEM_JSON, ProblemError
from service.base.settings import Settings, get_settings
from service.base.texts import Text
from service.runtime.coalescing import CoalescingTransport

log = logs.get_logger("atout.http")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(text: str) -> tuple[Network, ...]:
    """``ATOUT_TRUSTED_PROXIES`` as networks (an address alone is its /32 or /128); a malformed entry
    stops the server at startup rather than trusting nothing (or everything) silently."""
    networks = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"ATOUT_TRUSTED_PROXIES: {item!r} is not an address or CIDR") from None
    return tuple(networks)


@dataclass(frozen=True)
class ConnectionLimits:
    """What one process's HTTP connections may hold."""

    max_connections: int
    per_address: int
    header_timeout: float
    max_header_bytes: int
    trusted: tuple[Network, ...]

    @classmethod
    def of(cls, settings: Settings) -> ConnectionLimits:
        return cls(
            max_connections=settings.max_connections,
            per_address=settings.max_connections_per_address,
            header_timeout=settings.header_timeout,
            max_header_bytes=settings.max_header_bytes,
            trusted=trusted_networks(settings.trusted_proxies),
        )

    def trusts(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.trusted)


def refusal_bytes(error: ProblemError) -> bytes:
    """``error`` as a whole HTTP/1.1 response (problem+json, its headers, then the connection closed),
    for the refusals made below the ASGI app (no request id: none was given out yet; in English: no
    ``Accept-Language`` was read yet)."""
    english = languages.language.set(languages.ENGLISH)
    try:
        body = json.dumps(error.to_dict()).encode()
    finally:
        languages.language.reset(english)
    headers = "".join(f"{name.lower()}: {value}\r\n" for name, value in error.headers.items())
    return b"".join(
        [
            STATUS_LINE[error.status],
            b"content-type: " + PROBLEM_JSON.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"content-language: en\r\n",
            headers.encode("latin-1"),
            b"connection: close\r\n\r\n",
            body,
        ]
    )


class _Refused(Exception):
    """Raised from a parser callback to stop parsing; uvicorn then calls ``send_400_response``."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header deadline, a header size limit and connection caps.

    ``limits`` and ``peers`` are per class: ``atout serve`` names this class by its import path (each
    uvicorn worker process then reads the environment's settings), and :func:`guarded_protocol`
    makes a subclass with limits of its own (tests, several servers in one process)."""

    limits: ClassVar[ConnectionLimits | None] = None
    peers: ClassVar[dict[str, int]] = {}  # open connections per peer address key

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cls = type(self)
        if cls.limits is None:
            cls.limits = ConnectionLimits.of(get_settings())
        self._limits: ConnectionLimits = cls.limits
        self._peer: str | None = None
        self._header_timer: asyncio.TimerHandle | None = None
        self._awaiting_header = True  # the next bytes are a request line and header
        self._header_bytes = 0
        self._refusal: bytes | None = None  # replaces uvicorn's 400 when a guard stopped the parser

    # --- connections --------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))  # an answer in one send
        limits = self._limits
        if len(self.connections) > limits.max_connections:
            full = Text(
                "This server holds {count} connections; retry in a moment.", count=limits.max_connections
            )
            self._refuse(refusal_bytes(ProblemError("server_full", full, headers={"Retry-After": "1"})))
            return
        host = self.client[0] if self.client else None
        if host and not limits.trusts(host):
            peer = address_key(host)
            held = self.peers.get(peer, 0)
            if held >= limits.per_address:
                many = Text(
                    "Your address holds {held} connections to this server (at most {most}); "
                    "reuse them or close some.",
                    held=held,
                    most=limits.per_address,
                )
                self._refuse(
                    refusal_bytes(ProblemError("too_many_connections", many, headers={"Retry-After": "1"}))
                )
                return
            self.peers[peer] = held + 1
            self._peer = peer
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._release_peer()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self) -> None:
        # The WebSocket protocol takes the transport over (this one's connection_lost is never called);
        # the GraphQL WebSockets of one client address are capped at the ASGI edge.
        self._cancel_header_timer()
        self._release_peer()
        if isinstance(self.transport, CoalescingTransport):  # frames are written as they come
            self.transport.flush()
            self.transport = self.transport.inner
        super().handle_websocket_upgrade()

    def _release_peer(self) -> None:
        if self._peer is not None:
            left = self.peers.get(self._peer, 1) - 1
            if left > 0:
                self.peers[self._peer] = left
            else:
                self.peers.pop(self._peer, None)
            self._peer = None

    def _refuse(self, response: bytes) -> None:
        self._cancel_header_timer()
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    # --- the header: deadline and size ----------------------------------------------------------

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self._limits.header_timeout, self._header_timed_out)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self._header_bytes:  # a request was begun: say why it ends
            seconds = self._limits.header_timeout
            late = Text("The request header was not sent within {seconds:g} seconds.", seconds=seconds)
            self._refuse(refusal_bytes(ProblemError("request_timeout", late)))
        else:  # a connection that never said anything: just close it
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._awaiting_header:
            self._header_bytes += len(data)
        super().data_received(data)
        # Still in the header after this read, and past the limit: refuse now rather than let the
        # parser buffer more (a read that ends the header is judged exactly in on_headers_complete).
        if self._awaiting_header and self._header_bytes > self._limits.max_header_bytes:
            self._refuse_header_size()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_header_timer()  # a later request on a kept-alive connection: its own deadline

    def on_headers_complete(self) -> None:
        self._cancel_header_timer()
        self._awaiting_header = False
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self._limits.max_header_bytes:
            self._refusal = self._header_size_refusal()
            raise _Refused
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._awaiting_header, self._header_bytes = True, 0  # what follows is the next request

    def send_400_response(self, msg: str) -> None:
        refusal, self._refusal = self._refusal, None
        if refusal is None:
            super().send_400_response(msg)
        else:
            self._refuse(refusal)

    def _header_size_refusal(self) -> bytes:
        limit = self._limits.max_header_bytes
        large = Text("The request line and header are larger than {limit} bytes; send less.", limit=limit)
        return refusal_bytes(ProblemError("header_too_large", large))

    def _refuse_header_size(self) -> None:
        log.info("header_too_large", limit=self._limits.max_header_bytes)
        self._refuse(self._header_size_refusal())


def guarded_protocol(settings: Settings) -> type[GuardedHttpToolsProtocol]:
    """A protocol class of its own, with ``settings``' limits and its own count of connections."""
    return type(
        "GuardedHttpToolsProtocol",
        (GuardedHttpToolsProtocol,),
        {"limits": ConnectionLimits.of(settings), "peers": {}},
    )


PROTOCOL_PATH = f"{__name__}:{GuardedHttpToolsProtocol.__name__}"


def server_options(settings: Settings, in_process: bool = True) -> dict[str, Any]:
    """uvicorn's settings for the API. ``in_process``: the protocol class with ``settings``' limits;
    else its import path (uvicorn worker processes import it and read the environment)."""
    trusted = ",".join(str(network) for network in trusted_networks(settings.trusted_proxies))
    return {
        "http": guarded_protocol(settings) if in_process else PROTOCOL_PATH,
        "ws": "websockets-sansio",
        "ws_max_size": settings.ws_max_message_bytes,
        "ws_max_queue": 16,
        "ws_per_message_deflate": settings.ws_compression,
        "proxy_headers": bool(trusted),  # off: X-Forwarded-* are ignored, the peer is the client
        "forwarded_allow_ips": trusted or "",
        "timeout_keep_alive": settings.keep_alive_timeout,
        "server_header": False,
    }
