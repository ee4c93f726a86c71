# mypy: disable-error-code="untyped-decorator,misc"
"""Strawberry types of the administrator's webhook API: the same shapes as the REST models of
``schema.webhooks`` (a test holds each type's fields to its model's), with a message's ``data`` typed
per event type as in the OpenAPI document."""

from __future__ import annotations

import enum
from typing import Annotated, Any

import strawberry

from schema import webhooks as w


@strawberry.enum(description="What a webhook message is about (its `type`).")
class WebhookEventType(enum.Enum):
    your_turn = "your_turn"
    invitation = "invitation"
    game_finished = "game_finished"
    reminder = "reminder"


assert [e.value for e in WebhookEventType] == list(w.EVENT_TYPES)


@strawberry.type(description="A webhook endpoint, without its secret (shown once, at registration).")
class Webhook:
    id: strawberry.ID
    url: str
    event_types: list[WebhookEventType]
    description: str
    enabled: bool
    created_at: float = strawberry.field(description="POSIX seconds.")

    @classmethod
    def of(cls, hook: w.Webhook) -> Webhook:
        return cls(
            id=strawberry.ID(hook.id),
            url=hook.url,
            event_types=[WebhookEventType(e) for e in hook.event_types],
            description=hook.description,
            enabled=hook.enabled,
            created_at=hook.created_at,
        )


@strawberry.type(description="A new endpoint and its signing secret, shown this once.")
class WebhookRegistration:
    webhook: Webhook
    secret: str

    @classmethod
    def of(cls, registered: w.WebhookRegistered) -> WebhookRegistration:
        return cls(webhook=Webhook.of(registered.webhook), secret=registered.secret)


@strawberry.type(description="One attempt at delivering a message: the HTTP status, or why there was none.")
class WebhookDelivery:
    id: str
    message_id: str = strawberry.field(description="The `webhook-id` sent, the same on every attempt.")
    event_type: WebhookEventType
    attempt: int
    status: int | None
    error: str | None = strawberry.field(
        description="timeout, connection_failed, protocol_error, dns_failed, address_refused or "
        "endpoint_disabled; null when the receiver answered."
    )
    duration_ms: int
    at: float


@strawberry.type(description="A page of an endpoint's delivery log, newest first.")
class WebhookDeliveryPage:
    deliveries: list[WebhookDelivery]
    next_cursor: str | None

    @classmethod
    def of(cls, page: w.WebhookDeliveryPage) -> WebhookDeliveryPage:
        deliveries = [
            WebhookDelivery(**{**d.model_dump(), "event_type": WebhookEventType(d.event_type)})
            for d in page.deliveries
        ]
        return cls(deliveries=deliveries, next_cursor=page.next_cursor)


@strawberry.type(description="A seat is to act.")
class YourTurnData:
    game_id: strawberry.ID
    game: str
    seat: int
    version: int
    player_id: strawberry.ID | None
    deadline: str | None


@strawberry.type(description="A player was invited to a game.")
class InvitationData:
    invitation_id: strawberry.ID
    game_id: strawberry.ID
    game: str
    player_id: strawberry.ID
    from_player_id: strawberry.ID | None
    seat: int | None
    expires_at: str | None


@strawberry.type(description="A match is over.")
class GameFinishedData:
    game_id: strawberry.ID
    game: str
    version: int
    winners: list[int]
    player_ids: list[strawberry.ID | None]


@strawberry.type(description="A seat's turn has been waiting.")
class ReminderData:
    game_id: strawberry.ID
    game: str
    seat: int
    version: int
    player_id: strawberry.ID | None
    deadline: str | None


WebhookData = Annotated[
    YourTurnData | InvitationData | GameFinishedData | ReminderData,
    strawberry.union("WebhookData", description="A message's facts, by its type."),
]
DATA_TYPES: dict[str, Any] = {
    "your_turn": YourTurnData,
    "invitation": InvitationData,
    "game_finished": GameFinishedData,
    "reminder": ReminderData,
}


@strawberry.type(description="A webhook message as it was sent (its body): `type`, `timestamp`, `data`.")
class WebhookPayload:
    type: WebhookEventType
    timestamp: str
    data: WebhookData

    @classmethod
    def of(cls, payload: Any) -> WebhookPayload:
        data = DATA_TYPES[payload.type](**payload.data.model_dump())
        return cls(type=WebhookEventType(payload.type), timestamp=payload.timestamp, data=data)


@strawberry.type(description="A message that failed every delivery attempt.")
class DeadLetter:
    id: strawberry.ID
    webhook_id: strawberry.ID
    message_id: str
    event_type: WebhookEventType
    attempts: int
    error: str
    at: float
    payload: WebhookPayload

    @classmethod
    def of(cls, dead: w.DeadLetter) -> DeadLetter:
        return cls(
            id=strawberry.ID(dead.id),
            webhook_id=strawberry.ID(dead.webhook_id),
            message_id=dead.message_id,
            event_type=WebhookEventType(dead.event_type),
            attempts=dead.attempts,
            error=dead.error,
            at=dead.at,
            payload=WebhookPayload.of(dead.payload),
        )


@strawberry.type(description="A page of the dead letters, newest first.")
class DeadLetterPage:
    dead_letters: list[DeadLetter]
    next_cursor: str | None

    @classmethod
    def of(cls, page: w.DeadLetterPage) -> DeadLetterPage:
        return cls(dead_letters=[DeadLetter.of(d) for d in page.dead_letters], next_cursor=page.next_cursor)


@strawberry.type(description="A dead letter enqueued again, with its message id.")
class Redelivery:
    webhook_id: strawberry.ID
    message_id: str
