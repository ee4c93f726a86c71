"""Webhooks: the messages the service POSTs to an app's backend (one model per event type), and the
bodies of the administrator's API that registers the endpoints and reads their deliveries.

A message is ``{"type": ..., "timestamp": ..., "data": {...}}``, as the Standard Webhooks
specification recommends, signed with its ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature`` headers (docs/operations.md, "Webhooks"). Its ``data`` says who, where and when,
never what a seat holds: ids, a seat, a version and the event's facts. No model here has a field that
could carry a hand, a view or legal actions, and every one refuses a field it does not declare, so
``Games.emit_webhook`` cannot send one by mistake: a backend turns a message into a push
notification, and a push goes through third parties (APNs, FCM) and lock screens.

The messages are a contract with the backends (and the dead letters keep messages already sent): add
a field as optional, never rename or remove one."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, BeforeValidator, Field, field_validator

from schema.actions import Model
from schema.display import DisplayText

EventType = Literal["your_turn", "invitation", "game_finished", "reminder"]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
GameKind = Literal["five_hundred", "rough", "euchre5"]

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
Id = Annotated[str, Field(pattern=ID_PATTERN, examples=["k3Jx9aQ2pLmN"])]
Seat = Annotated[int, Field(ge=0, le=4)]
# https or http, a host (a name, an IPv4 address or a bracketed IPv6 one) without credentials, an
# optional port, then a path or query of printable ASCII without a fragment.
URL_PATTERN = r"^https?://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(:[0-9]{1,5})?([/?][!-\"$-~]*)?$"
MOMENT_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z$"


def iso_moment(value: object) -> object:
    """A moment as the messages write it (ISO 8601 in UTC, ``Z``), from a ``datetime`` or POSIX seconds
    (what the game code holds); a string is checked by the pattern as it is."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        value = datetime.fromtimestamp(value, UTC)
    if isinstance(value, datetime):
        moment = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return value


Moment = Annotated[
    str,
    BeforeValidator(iso_moment),
    Field(pattern=MOMENT_PATTERN, examples=["2026-01-31T18:04:05.123Z"], description="ISO 8601, UTC."),
]


# --- the messages ----------------------------------------------------------------------------------


class YourTurnData(Model):
    """A seat is to act: its player should be told (the backend pushes a notification)."""

    game_id: Id
    game: GameKind
    seat: Seat
    version: int = Field(ge=0, description="The game's version: the move the seat is to make is this one.")
    player_id: Id | None = Field(default=None, description="The player account holding the seat.")
    deadline: Moment | None = Field(default=None, description="When the turn's clock runs out, if timed.")


class InvitationData(Model):
    """A player was invited to a game."""

    invitation_id: Id
    game_id: Id
    game: GameKind
    player_id: Id = Field(description="The invited player's account.")
    from_player_id: Id | None = Field(default=None, description="Who invited them.")
    seat: Seat | None = Field(default=None, description="The seat kept for them, if one is.")
    expires_at: Moment | None = None


class GameFinishedData(Model):
    """A match is over."""

    game_id: Id
    game: GameKind
    version: int = Field(ge=0)
    winners: list[Seat] = Field(max_length=5, description="The winning seats.")
    player_ids: list[Id | None] = Field(
        default_factory=list, max_length=5, description="Each seat's player account (null: none), by seat."
    )


class ReminderData(Model):
    """A seat's turn has been waiting: a reminder before its clock runs out."""

    game_id: Id
    game: GameKind
    seat: Seat
    version: int = Field(ge=0)
    player_id: Id | None = None
    deadline: Moment | None = None


DATA_OF: dict[str, type[Model]] = {
    "your_turn": YourTurnData,
    "invitation": InvitationData,
    "game_finished": GameFinishedData,
    "reminder": ReminderData,
}
assert set(DATA_OF) == set(EVENT_TYPES)

TIMESTAMP = Field(description="When the event happened (ISO 8601, UTC); the same on every retry.")


class YourTurnMessage(BaseModel):
    type: Literal["your_turn"]
    timestamp: Moment = TIMESTAMP
    data: YourTurnData


class InvitationMessage(BaseModel):
    type: Literal["invitation"]
    timestamp: Moment = TIMESTAMP
    data: InvitationData


class GameFinishedMessage(BaseModel):
    type: Literal["game_finished"]
    timestamp: Moment = TIMESTAMP
    data: GameFinishedData


class ReminderMessage(BaseModel):
    type: Literal["reminder"]
    timestamp: Moment = TIMESTAMP
    data: ReminderData


WebhookPayload = Annotated[
    YourTurnMessage | InvitationMessage | GameFinishedMessage | ReminderMessage, Field(discriminator="type")
]


# --- the administrator's API -----------------------------------------------------------------------


class RegisterWebhookRequest(Model):
    url: str = Field(
        max_length=2000,
        pattern=URL_PATTERN,
        examples=["https://backend.example.com/atout/webhooks"],
        description="Where to POST the messages: http or https, no credentials, no fragment. It must "
        "resolve to public addresses only (unless ATOUT_WEBHOOK_ALLOW_PRIVATE); redirects are not followed.",
    )
    event_types: list[EventType] = Field(min_length=1, max_length=len(EVENT_TYPES))
    description: DisplayText = Field(
        default="", max_length=200, description="What this endpoint is, for you."
    )
    enabled: bool = Field(default=True, description="false: registered, but sent nothing until enabled.")

    @field_validator("url")
    @classmethod
    def _port(cls, url: str) -> str:
        port = url.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0].rpartition("]")[2].rpartition(":")[2]
        if port.isdigit() and not 1 <= int(port) <= 65535:
            raise ValueError("the port must be from 1 to 65535")
        return url

    @field_validator("event_types")
    @classmethod
    def _distinct(cls, event_types: list[str]) -> list[str]:
        if len(set(event_types)) != len(event_types):
            raise ValueError("each event type once")
        return event_types


class UpdateWebhookRequest(Model):
    enabled: bool = Field(description="false: pause the endpoint (nothing is enqueued for it); true: resume.")


class Webhook(BaseModel):
    """A registered endpoint, without its secret (shown once, at registration)."""

    id: str = Field(examples=["wh_8f3a2b1c0d9e8f7a"])
    url: str
    event_types: list[EventType]
    description: str
    enabled: bool
    created_at: float = Field(description="POSIX seconds.")


class WebhookRegistered(BaseModel):
    webhook: Webhook
    secret: str = Field(
        examples=["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
        description="Shown once: verify each message's `webhook-signature` with it (Standard Webhooks).",
    )


class WebhookList(BaseModel):
    webhooks: list[Webhook]


class DeliveryError(StrEnum):
    """Why an attempt got no answer. A named schema (not an inline enum): client generators name an
    inline enum after its property, and ``Error`` is a word Swift reserves."""

    TIMEOUT = "timeout"
    CONNECTION_FAILED = "connection_failed"
    PROTOCOL_ERROR = "protocol_error"
    DNS_FAILED = "dns_failed"
    ADDRESS_REFUSED = "address_refused"
    ENDPOINT_DISABLED = "endpoint_disabled"


class WebhookDelivery(BaseModel):
    """One attempt at delivering a message to the endpoint."""

    id: str = Field(description="The entry's id in the log.")
    message_id: str = Field(description="The `webhook-id` sent: the same on every attempt of a message.")
    event_type: EventType
    attempt: int = Field(ge=1)
    status: int | None = Field(description="The receiver's HTTP status (2xx: delivered); null: no answer.")
    error: DeliveryError | None = Field(description="Why there was no answer (null when there was one).")
    duration_ms: int
    at: float = Field(description="POSIX seconds.")


class WebhookDeliveryPage(BaseModel):
    deliveries: list[WebhookDelivery] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Send it back as `cursor` for older ones; null: no more.")


class DeadLetter(BaseModel):
    """A message that failed its every attempt: the operator may redeliver it once the receiver is fixed."""

    id: str
    webhook_id: str
    message_id: str
    event_type: EventType
    attempts: int
    error: str = Field(title="Last error", description="The last attempt's error, or `status <code>`.")
    at: float = Field(description="POSIX seconds.")
    payload: WebhookPayload


class DeadLetterPage(BaseModel):
    dead_letters: list[DeadLetter] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Send it back as `cursor` for older ones; null: no more.")


class Redelivery(BaseModel):
    webhook_id: str
    message_id: str = Field(description="The same `webhook-id` as the dead letter's: receivers dedup on it.")
