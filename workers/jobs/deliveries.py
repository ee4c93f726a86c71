"""One webhook delivery attempt over HTTP: signed per Standard Webhooks, sent only to a public address
(service/base/destinations.py) and to the very address that was checked, and bounded every way a
receiver could hold a worker: a connect timeout, a read timeout, one deadline for the whole exchange
(resolution included: a receiver trickling its header a byte at a time is cut there), at most
``max_bytes`` of its answer read (never decompressed), no redirect followed, no proxy or ``.netrc``
read from the environment. The status alone says whether the message was delivered (2xx)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
from standardwebhooks import Webhook

from schema.webhooks import WebhookTarget, webhook_target
from service.base.destinations import DestinationRefused, checked, resolve_async

USER_AGENT = "Atout-Webhooks/1.0"


@dataclass(frozen=True)
class Bounds:
    """What one attempt may take (the ``ATOUT_WEBHOOK_*`` settings)."""

    connect: float
    read: float
    max_bytes: int
    allow_private: bool

    @property
    def deadline(self) -> float:
        """Seconds the whole attempt may take, from the resolution to the last byte read."""
        return self.connect + self.read


@dataclass(frozen=True)
class Answer:
    """How an attempt ended: the receiver's status, or why there was none (``error``)."""

    status: int | None
    error: str | None = None

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def summary(self) -> str:
        """The error, or the status, as a dead letter keeps it."""
        return self.error or f"status {self.status}"


def signed_headers(secret: str, message_id: str, body: str) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt: the message's id (the same on every attempt, so a
    receiver applies it once), this attempt's time, and the signature of both with the body (a fresh
    time each attempt: receivers refuse a timestamp more than five minutes old)."""
    now = datetime.now(UTC).replace(microsecond=0)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, now, body),
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


async def post(url: str, headers: dict[str, str], body: str, bounds: Bounds) -> Answer:
    """POST ``body`` to ``url`` once, within ``bounds``."""
    status: list[int] = []  # set as soon as the receiver's status line is in
    try:
        # Parsed again, as strictly as at registration: an endpoint registered under an older, looser
        # rule (``http://80/``, ``http://[00]``) is refused here rather than failing the job.
        target = webhook_target(url)
        parsed = httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        return Answer(None, "address_refused")
    try:
        async with asyncio.timeout(bounds.deadline):
            await _exchange(parsed, target, headers, body.encode(), bounds, status)
    except DestinationRefused as refused:
        return Answer(None, refused.reason)
    except (TimeoutError, httpx.TimeoutException):
        if not status:
            return Answer(None, "timeout")
    except (httpx.NetworkError, OSError):
        if not status:
            return Answer(None, "connection_failed")
    except httpx.HTTPError:
        if not status:
            return Answer(None, "protocol_error")
    return Answer(status[0])


async def _exchange(
    url: httpx.URL,
    target: WebhookTarget,
    headers: dict[str, str],
    body: bytes,
    bounds: Bounds,
    status: list[int],
) -> None:
    https = url.scheme == "https"
    if target.address is not None:  # an address is checked as it is, never handed to a resolver
        addresses = checked(target.host, [target.host], bounds.allow_private)
    else:
        addresses = await resolve_async(target.host, target.port, bounds.allow_private)
    # Connect to the address just checked, never to a second resolution of the name (DNS rebinding):
    # the URL names the address, the Host header and TLS (SNI, the certificate's name) the host.
    pinned = url.copy_with(host=addresses[0])
    sent = {**headers, "host": url.netloc.decode("ascii")}
    extensions = {"sni_hostname": url.host} if https else {}
    timeout = httpx.Timeout(connect=bounds.connect, read=bounds.read, write=bounds.read, pool=bounds.connect)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        request = client.build_request("POST", pinned, content=body, headers=sent, extensions=extensions)
        response = await client.send(request, stream=True)
        try:
            status.append(response.status_code)
            if bounds.max_bytes > 0:
                read = 0
                async for chunk in response.aiter_raw():
                    read += len(chunk)
                    if read >= bounds.max_bytes:
                        break  # the rest is never read: closing drops the connection
        finally:
            await response.aclose()
