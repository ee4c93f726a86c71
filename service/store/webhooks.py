"""Webhook endpoints, their delivery logs and the dead letters in Redis (keys: service/store/keys.py).

Every key is bounded: at most ``limit`` endpoints (counted in the same script that adds one, so two
registrations at once cannot both take the last place), about ``log_size`` entries in an endpoint's
delivery log, about ``dead_letters`` dead letters, and one short-lived marker per keyed message
enqueued for an endpoint (service/games/webhooks.py, ``EMITTED_TTL``). An endpoint's delivery log goes
with it, and a delivery that finishes after its endpoint was deleted logs nothing (no key is created
again for an endpoint that is gone).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from schema.webhooks import EVENT_TYPES
from service.store.connection import RegisteredScript, StorePart
from service.store.keys import (
    WEBHOOK_DEAD,
    WEBHOOK_ID,
    WEBHOOKS_INDEX,
    webhook_event_key,
    webhook_key,
    webhook_log_key,
    webhook_sent_key,
)
from service.store.redis_clients import hash_reply

# KEYS: index, endpoint, then the event sets it subscribes to. ARGV: limit, id, created_at, enabled,
# then the endpoint's fields and values. 1: added; 0: the limit is reached; -1: the id is taken.
REGISTER_LUA = """
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
if ARGV[4] == '1' then
  for i = 3, #KEYS do redis.call('SADD', KEYS[i], ARGV[2]) end
end
return 1
"""

# KEYS: index, endpoint, its log, then every event set. ARGV: id. 1 when there was such an endpoint.
DELETE_LUA = """
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2], KEYS[3])
for i = 4, #KEYS do redis.call('SREM', KEYS[i], ARGV[1]) end
return removed
"""

# KEYS: endpoint, then the event sets it subscribes to. ARGV: id, '1' or '0'. 0: no such endpoint.
ENABLE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'enabled', ARGV[2])
for i = 2, #KEYS do
  if ARGV[2] == '1' then redis.call('SADD', KEYS[i], ARGV[1]) else redis.call('SREM', KEYS[i], ARGV[1]) end
end
return 1
"""

# KEYS: endpoint, its log. ARGV: maxlen, entry. Logged only while the endpoint exists.
LOG_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[2])
"""

# KEYS: the dead letters. ARGV: the id of one. Its entry, removed in the same step (two operators
# redelivering it at once: one of them gets it).
TAKE_LUA = """
local found = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #found == 0 then return false end
redis.call('XDEL', KEYS[1], ARGV[1])
return found[1][2]
"""


@dataclass(frozen=True)
class WebhookEndpoint:
    """A registered receiver: where to POST, which event types, and the secret that signs them."""

    id: str
    url: str
    event_types: tuple[str, ...]
    secret: str
    description: str
    enabled: bool
    created_at: float

    def to_hash(self) -> dict[str, str]:
        return {
            "url": self.url,
            "events": ",".join(self.event_types),
            "secret": self.secret,
            "description": self.description,
            "enabled": "1" if self.enabled else "0",
            "created_at": repr(self.created_at),
        }

    @classmethod
    def from_hash(cls, wid: str, fields: dict[str, str]) -> WebhookEndpoint:
        return cls(
            id=wid,
            url=fields["url"],
            event_types=tuple(e for e in fields.get("events", "").split(",") if e),
            secret=fields["secret"],
            description=fields.get("description", ""),
            enabled=fields.get("enabled", "1") == "1",
            created_at=float(fields.get("created_at", "0")),
        )


@dataclass(frozen=True)
class WebhookMessage:
    """One message for one endpoint: every attempt at delivering it sends this id and this body."""

    endpoint_id: str
    message_id: str
    event_type: str
    body: str


@dataclass(frozen=True)
class DeliveryAttempt:
    """One attempt, as an endpoint's delivery log keeps it: the HTTP status, or why there was none."""

    id: str  # the log's stream id: the cursor of the next page
    message_id: str
    event_type: str
    attempt: int
    status: int | None
    error: str | None
    duration_ms: int
    at: float


@dataclass(frozen=True)
class DeadLetter:
    """A message that failed its every attempt (or could not be sent at all), kept for an operator."""

    id: str
    message: WebhookMessage
    attempts: int
    error: str
    at: float


def _page(entries: list[tuple[str, dict[str, str]]], limit: int) -> tuple[list[tuple[str, Any]], str | None]:
    """The first ``limit`` entries (read ``limit + 1``: one more says there is a next page), decoded."""
    shown = [(eid, json.loads(fields["e"])) for eid, fields in entries[:limit]]
    return shown, shown[-1][0] if len(entries) > limit else None


class WebhookStore(StorePart):
    """Async access to the webhook endpoints, their logs and the dead letters."""

    _register_webhook = RegisteredScript(REGISTER_LUA)
    _delete_webhook = RegisteredScript(DELETE_LUA)
    _enable_webhook = RegisteredScript(ENABLE_LUA)
    _log_delivery = RegisteredScript(LOG_LUA)
    _take_dead_letter = RegisteredScript(TAKE_LUA)

    async def add_webhook(self, endpoint: WebhookEndpoint, limit: int) -> bool:
        """Register ``endpoint``; False, writing nothing, when ``limit`` endpoints exist already."""
        fields = [item for pair in endpoint.to_hash().items() for item in pair]
        added = await self._register_webhook(
            keys=[WEBHOOKS_INDEX, webhook_key(endpoint.id), *map(webhook_event_key, endpoint.event_types)],
            args=[
                str(limit),
                endpoint.id,
                repr(endpoint.created_at),
                "1" if endpoint.enabled else "0",
                *fields,
            ],
        )
        if int(added) < 0:
            raise ValueError(f"webhook id {endpoint.id} is taken")  # 64 random bits: never seen
        return bool(added)

    async def load_webhook(self, wid: str) -> WebhookEndpoint | None:
        if not WEBHOOK_ID.match(wid):
            return None
        fields = await self.r.hgetall(webhook_key(wid))
        return WebhookEndpoint.from_hash(wid, fields) if fields else None

    async def webhooks(self) -> list[WebhookEndpoint]:
        """Every endpoint, oldest first (a bounded number: the registration limit)."""
        ids = await self.r.zrange(WEBHOOKS_INDEX, 0, -1)
        async with self.r.pipeline(transaction=False) as pipe:
            for wid in ids:
                pipe.hgetall(webhook_key(wid))
            replies = await pipe.execute()
        return [
            WebhookEndpoint.from_hash(wid, hash_reply(f)) for wid, f in zip(ids, replies, strict=True) if f
        ]

    async def delete_webhook(self, wid: str) -> bool:
        """Delete the endpoint and its log; False when there was none."""
        if not WEBHOOK_ID.match(wid):
            return False
        removed = await self._delete_webhook(
            keys=[
                WEBHOOKS_INDEX,
                webhook_key(wid),
                webhook_log_key(wid),
                *map(webhook_event_key, EVENT_TYPES),
            ],
            args=[wid],
        )
        return bool(removed)

    async def enable_webhook(self, endpoint: WebhookEndpoint, enabled: bool) -> bool:
        """Pause (or resume) the deliveries of ``endpoint``; False when it is gone."""
        done = await self._enable_webhook(
            keys=[webhook_key(endpoint.id), *map(webhook_event_key, endpoint.event_types)],
            args=[endpoint.id, "1" if enabled else "0"],
        )
        return bool(done)

    async def subscribers(self, event_type: str) -> list[str]:
        """The enabled endpoints subscribed to ``event_type``."""
        return sorted(await self.r.smembers(webhook_event_key(event_type)))

    async def claim_message(self, wid: str, message_id: str, ttl: int) -> bool:
        """Mark ``message_id`` as enqueued for endpoint ``wid`` for ``ttl`` seconds; False when it was
        already: the same message is never enqueued twice for one endpoint."""
        return bool(await self.r.set(webhook_sent_key(wid, message_id), "1", nx=True, ex=ttl))

    async def release_message(self, wid: str, message_id: str) -> None:
        """Forget that ``message_id`` was enqueued for ``wid`` (its enqueue failed)."""
        await self.r.delete(webhook_sent_key(wid, message_id))

    async def log_delivery(
        self,
        message: WebhookMessage,
        attempt: int,
        status: int | None,
        error: str | None,
        duration_ms: int,
        log_size: int,
    ) -> None:
        entry = {
            "message_id": message.message_id,
            "event_type": message.event_type,
            "attempt": attempt,
            "status": status,
            "error": error,
            "duration_ms": duration_ms,
            "at": time.time(),
        }
        await self._log_delivery(
            keys=[webhook_key(message.endpoint_id), webhook_log_key(message.endpoint_id)],
            args=[str(log_size), json.dumps(entry)],
        )

    async def deliveries(
        self, wid: str, limit: int, before: str | None = None
    ) -> tuple[list[DeliveryAttempt], str | None]:
        """A page of the endpoint's delivery log, newest first, and the cursor of the next page."""
        entries = await self.r.xrevrange(
            webhook_log_key(wid), f"({before}" if before else "+", "-", limit + 1
        )
        page, cursor = _page(entries, limit)
        return [DeliveryAttempt(id=eid, **entry) for eid, entry in page], cursor

    async def add_dead_letter(self, message: WebhookMessage, attempts: int, error: str, keep: int) -> str:
        entry = {**message.__dict__, "attempts": attempts, "error": error, "at": time.time()}
        dead_id: str = await self.r.xadd(
            WEBHOOK_DEAD, {"e": json.dumps(entry)}, maxlen=keep, approximate=True
        )
        return dead_id

    async def dead_letters(
        self, limit: int, before: str | None = None
    ) -> tuple[list[DeadLetter], str | None]:
        """A page of the dead letters, newest first, and the cursor of the next page."""
        entries = await self.r.xrevrange(WEBHOOK_DEAD, f"({before}" if before else "+", "-", limit + 1)
        page, cursor = _page(entries, limit)
        return [_dead_letter(eid, entry) for eid, entry in page], cursor

    async def count_dead_letters(self) -> int:
        return int(await self.r.xlen(WEBHOOK_DEAD))

    async def dead_letter(self, dead_id: str) -> DeadLetter | None:
        entries = await self.r.xrange(WEBHOOK_DEAD, dead_id, dead_id)
        return _dead_letter(entries[0][0], json.loads(entries[0][1]["e"])) if entries else None

    async def take_dead_letter(self, dead_id: str) -> DeadLetter | None:
        """The dead letter ``dead_id``, removed from the list; None when there is none."""
        fields = await self._take_dead_letter(keys=[WEBHOOK_DEAD], args=[dead_id])
        if not fields:
            return None
        return _dead_letter(dead_id, json.loads(hash_reply(fields)["e"]))


def _dead_letter(dead_id: str, entry: dict[str, Any]) -> DeadLetter:
    message = WebhookMessage(
        endpoint_id=entry["endpoint_id"],
        message_id=entry["message_id"],
        event_type=entry["event_type"],
        body=entry["body"],
    )
    return DeadLetter(
        id=dead_id, message=message, attempts=entry["attempts"], error=entry["error"], at=entry["at"]
    )
