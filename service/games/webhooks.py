"""Webhooks to the apps' backends: the administrator registers endpoints (a URL, event types, a secret
we make), and the game code emits events (:meth:`Webhooks.emit_webhook`), each enqueued once per
subscribed endpoint and delivered by a worker (workers/jobs/webhooks.py), signed per Standard
Webhooks and retried, then dead-lettered.

The games layer may not import the jobs layer: the enqueue is given to it as a callback
(``enqueue_webhook`` of :func:`service.games.build_games`, as ``enqueue_bot`` is), by the API and by the
worker's runtime. A process without one (a script, a test without a queue) emits nothing. The other
parts emit through the part (``games.webhooks``) or the callback :class:`service.games.core.GameCore`
is given.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from schema.moments import rfc3339
from schema.webhooks import (
    DATA_OF,
    DeadLetter,
    DeadLetterPage,
    Redelivery,
    RegisterWebhookRequest,
    Webhook,
    WebhookDelivery,
    WebhookDeliveryPage,
    WebhookPayload,
    WebhookRegistered,
    webhook_target,
)
from service.base import logs
from service.base.counters import count_webhook_message
from service.base.destinations import DestinationRefused, checked, resolve_async
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import Credentials
from service.store.faults import store_fault
from service.store.keys import STREAM_ID
from service.store.webhooks import DeadLetter as StoredDeadLetter
from service.store.webhooks import DeliveryAttempt, WebhookEndpoint, WebhookMessage, WebhookStore

EnqueueWebhook = Callable[[WebhookMessage], Awaitable[None]]
"""Enqueue the first attempt at delivering a message (workers/jobs/webhook_queue.py)."""

PAYLOAD: TypeAdapter[Any] = TypeAdapter(WebhookPayload)
STREAM_PATTERN = re.compile(STREAM_ID)  # a log's or the dead letters' entry id: the cursors
QUERY = ("query", "cursor")
SECRET_BYTES = 32  # Standard Webhooks: 24 to 64 random bytes, base64, after ``whsec_``
EMITTED_TTL = 3600
"""Seconds a keyed message is remembered as enqueued for an endpoint. A second emit of one event comes
from two paths racing on it (a move and its timer), seconds apart: an hour covers them, and keeps the
markers few (one per keyed message and endpoint, for an hour). A retried request never emits again:
its Idempotency-Key replays the first answer."""

log = logs.get_logger("atout.webhooks")


def new_secret() -> str:
    """A signing secret as Standard Webhooks libraries read it: ``whsec_`` and base64 of random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def message_id(event_type: str, key: str | None) -> str:
    """A message's ``webhook-id``: derived from ``key`` when the caller names the event (the same event
    emitted twice, by two processes or a retried request, is then one message), else random."""
    if key is None:
        return "msg_" + secrets.token_hex(16)
    return "msg_" + hashlib.sha256(f"{event_type}\0{key}".encode()).hexdigest()[:32]


def webhook_body(endpoint: WebhookEndpoint) -> Webhook:
    return Webhook.model_validate(
        {
            "webhook_id": endpoint.id,
            "url": endpoint.url,
            "event_types": list(endpoint.event_types),
            "description": endpoint.description,
            "enabled": endpoint.enabled,
            "created_at": endpoint.created_at,  # POSIX seconds, stored: a moment in the contract
        }
    )


def dead_letter_body(dead: StoredDeadLetter) -> DeadLetter:
    message = dead.message
    return DeadLetter.model_validate(
        {
            "dead_letter_id": dead.id,
            "webhook_id": message.endpoint_id,
            "message_id": message.message_id,
            "event_type": message.event_type,
            "attempts": dead.attempts,
            "error": dead.error,
            "failed_at": dead.at,  # POSIX seconds, stored
            "payload": PAYLOAD.validate_json(message.body),
        }
    )


def delivery_body(attempt: DeliveryAttempt) -> WebhookDelivery:
    """One logged attempt as the contract shows it: its moment an RFC 3339 string, its duration in
    seconds (the log keeps POSIX seconds and milliseconds)."""
    return WebhookDelivery.model_validate(
        {
            "delivery_id": attempt.id,
            "message_id": attempt.message_id,
            "event_type": attempt.event_type,
            "attempt": attempt.attempt,
            "status": attempt.status,
            "error": attempt.error,
            "duration_seconds": attempt.duration_ms / 1000,
            "attempted_at": attempt.at,
        }
    )


class Webhooks:
    """The administrator's webhook endpoints, and the events the game code emits to them: deliveries
    enqueued with ``enqueue_webhook`` (without one, :meth:`emit_webhook` sends nothing)."""

    def __init__(
        self,
        hooks: WebhookStore,
        settings: Settings,
        credentials: Credentials,
        enqueue_webhook: EnqueueWebhook | None = None,
    ) -> None:
        self.hooks = hooks
        self.settings = settings
        self.credentials = credentials
        self.enqueue_webhook = enqueue_webhook

    # --- the game code's entry point -----------------------------------------------------------

    async def emit_webhook(self, event_type: str, data: Mapping[str, Any], *, key: str | None = None) -> str:
        """Send ``event_type`` with ``data`` to every enabled endpoint subscribed to it; returns the
        message id (``webhook-id``). ``data`` must fit the event type's model (schema/webhooks.py:
        ids, a seat, a version, facts; never a hand): anything else raises ``ValueError`` (a bug in the
        caller, found by its tests). ``key`` names the event (e.g. ``f"{game_id}:{version}:{seat}"``):
        the same key emitted again is never enqueued twice for an endpoint.

        Sending is best effort and never fails the caller's move: the message is enqueued only (a
        worker delivers it), and a Redis fault while enqueueing is logged and counted, not raised."""
        model = DATA_OF.get(event_type)
        if model is None:
            raise ValueError(f"unknown webhook event type {event_type!r}")
        facts = model.model_validate(dict(data)).model_dump(mode="json")
        mid = message_id(event_type, key)
        payload = {"type": event_type, "timestamp": rfc3339(datetime.now(UTC)), "data": facts}
        body = json.dumps(payload, separators=(",", ":"))
        if self.enqueue_webhook is None:
            return mid
        try:
            for wid in await self.hooks.subscribers(event_type):
                # a random id is new by construction: only a keyed message may be emitted twice
                if key is not None and not await self.hooks.claim_message(wid, mid, EMITTED_TTL):
                    continue
                try:
                    await self.enqueue_webhook(WebhookMessage(wid, mid, event_type, body))
                except BaseException:
                    if key is not None:
                        await self.hooks.release_message(wid, mid)  # a retried emit may enqueue it then
                    raise
                count_webhook_message(event_type)
        except Exception as exc:
            store_fault(exc, "webhooks")
            log.warning(
                "webhook_emit_failed", event_type=event_type, message_id=mid, error=type(exc).__name__
            )
        return mid

    # --- the administrator's operations --------------------------------------------------------

    def require_admin(self, token: str | None) -> None:
        """401 without a token, 403 with another than the administrator's."""
        if not token:
            raise ProblemError(
                "missing_token", "Send the administrator token as `Authorization: Bearer <token>`."
            )
        if not self.credentials.is_admin(token):
            raise ProblemError("admin_required", "Managing webhooks needs the administrator token.")

    async def register_webhook(self, token: str | None, request: RegisterWebhookRequest) -> WebhookRegistered:
        """A new endpoint and its secret (shown this once). Its URL is parsed strictly (a malformed
        authority is 422 ``invalid_request``, never a 500), and its host must be, or resolve to, public
        addresses only (service/base/destinations.py), unless the operator allows private ones."""
        self.require_admin(token)
        try:  # the model parsed it already: this is for a request built without validation
            target = webhook_target(request.url)
        except ValueError as exc:
            raise ProblemError(
                "invalid_request",
                Text("{field}: {message}", field="url", message=Text.verbatim(str(exc))),
                errors=[{"loc": ["url"], "msg": str(exc), "type": "value_error"}],
            ) from None
        host = target.host
        try:
            if target.address is not None:  # an address is checked as it is, never handed to a resolver
                checked(host, [host], self._private())
            else:
                await resolve_async(host, target.port, self._private())
        except DestinationRefused as refused:
            if refused.reason == "dns_failed":
                raise ProblemError(
                    "webhook_address_refused",
                    Text(
                        "The host {host} does not resolve: register the URL once its DNS answers.", host=host
                    ),
                ) from None
            raise ProblemError(
                "webhook_address_refused",
                Text(
                    "The host {host} resolves to {address}, which is not a public address: webhooks go "
                    "to public addresses only.",
                    host=host,
                    address=refused.address,
                ),
            ) from None
        endpoint = WebhookEndpoint(
            id="wh_" + secrets.token_hex(8),
            url=request.url,
            event_types=tuple(request.event_types),
            secret=new_secret(),
            description=request.description,
            enabled=request.enabled,
            created_at=time.time(),
        )
        limit = self.settings.webhook_max_endpoints
        if not await self.hooks.add_webhook(endpoint, limit):
            raise ProblemError(
                "webhook_limit",
                Text(
                    "{limit} webhook endpoints are registered, the most allowed: delete one first.",
                    limit=limit,
                ),
                limit=limit,
            )
        log.info("webhook_registered", webhook_id=endpoint.id, event_types=list(endpoint.event_types))
        return WebhookRegistered(webhook=webhook_body(endpoint), secret=endpoint.secret)

    def _private(self) -> bool:
        return self.settings.webhook_allow_private

    async def _endpoint(self, wid: str) -> WebhookEndpoint:
        endpoint = await self.hooks.load_webhook(wid)
        if endpoint is None:
            raise ProblemError("webhook_not_found", Text("There is no webhook endpoint {wid!r}.", wid=wid))
        return endpoint

    async def list_webhooks(self, token: str | None) -> list[Webhook]:
        self.require_admin(token)
        return [webhook_body(endpoint) for endpoint in await self.hooks.webhooks()]

    async def get_webhook(self, token: str | None, wid: str) -> Webhook:
        self.require_admin(token)
        return webhook_body(await self._endpoint(wid))

    async def update_webhook(self, token: str | None, wid: str, enabled: bool) -> Webhook:
        """Pause or resume an endpoint: while paused nothing is enqueued for it, and a retry still due
        is dead-lettered (redeliver it once the endpoint is back)."""
        self.require_admin(token)
        endpoint = await self._endpoint(wid)
        if not await self.hooks.enable_webhook(endpoint, enabled):
            await self._endpoint(wid)  # deleted meanwhile: 404
        return webhook_body(await self._endpoint(wid))

    async def delete_webhook(self, token: str | None, wid: str) -> None:
        """Delete an endpoint and its delivery log; deliveries still due for it are dropped."""
        self.require_admin(token)
        if not await self.hooks.delete_webhook(wid):
            await self._endpoint(wid)  # raises: there was none
        log.info("webhook_deleted", webhook_id=wid)

    async def webhook_deliveries(
        self, token: str | None, wid: str, limit: int, cursor: str | None, where: tuple[str, ...] = QUERY
    ) -> WebhookDeliveryPage:
        """The endpoint's delivery attempts, newest first, a page at a time (``where``: the cursor's
        place in the request, for a refusal's ``errors``)."""
        self.require_admin(token)
        await self._endpoint(wid)
        attempts, after = await self.hooks.deliveries(wid, limit, _cursor(cursor, where))
        deliveries = [delivery_body(attempt) for attempt in attempts]
        return WebhookDeliveryPage(deliveries=deliveries, next_cursor=after)

    async def dead_letters(
        self, token: str | None, limit: int, cursor: str | None, where: tuple[str, ...] = QUERY
    ) -> DeadLetterPage:
        """The messages that failed every attempt, newest first, a page at a time."""
        self.require_admin(token)
        letters, after = await self.hooks.dead_letters(limit, _cursor(cursor, where))
        return DeadLetterPage(dead_letters=[dead_letter_body(d) for d in letters], next_cursor=after)

    async def redeliver(self, token: str | None, dead_id: str) -> Redelivery:
        """Enqueue a dead letter again, with its message id (receivers dedup on it), from the first
        attempt of the retry schedule; it leaves the dead letters."""
        self.require_admin(token)
        if self.enqueue_webhook is None:
            raise RuntimeError("no webhook queue: the composition root gives one (build_games)")
        dead = await self.hooks.dead_letter(dead_id) if _is_stream_id(dead_id) else None
        if dead is not None:
            await self._endpoint(dead.message.endpoint_id)  # deleted since: 404, the letter stays
            dead = await self.hooks.take_dead_letter(dead_id)  # None: another redelivery took it
        if dead is None:
            raise ProblemError(
                "dead_letter_not_found", Text("There is no dead letter {dead_id!r}.", dead_id=dead_id)
            )
        message = dead.message
        try:
            await self.enqueue_webhook(message)
        except BaseException:  # back among the dead letters (as a new entry), to redeliver later
            await self.hooks.add_dead_letter(
                message, dead.attempts, dead.error, self.settings.webhook_dead_letters
            )
            raise
        log.info("webhook_redelivered", webhook_id=message.endpoint_id, message_id=message.message_id)
        return Redelivery(webhook_id=message.endpoint_id, message_id=message.message_id)


def _is_stream_id(value: str) -> bool:
    return STREAM_PATTERN.fullmatch(value) is not None


def _cursor(cursor: str | None, where: tuple[str, ...]) -> str | None:
    """A page's cursor: an entry id the previous page gave (``next_cursor``), or None for the first."""
    if cursor is None:
        return None
    if not _is_stream_id(cursor):
        raise ProblemError(
            "invalid_request",
            "cursor is not one this server gave: send the `next_cursor` of the previous page as it "
            "came, or none for the first page.",
            errors=[{"loc": list(where), "msg": "not a cursor of this list", "type": "value_error"}],
        )
    return cursor
