"""Webhooks: the messages the service POSTs to an app's backend (one model per event type), and the
bodies of the administrator's API that registers the endpoints and reads their deliveries.

A message is ``{"type": ..., "timestamp": ..., "data": {...}}``, as the Standard Webhooks
specification recommends, signed with its ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature`` headers (docs/operations.md, "Webhooks"). Its ``data`` says who, where and when,
never what a seat holds: ids, a seat, a version and the event's facts. No model here has a field that
could carry a hand, a view or legal actions, and every one refuses a field it does not declare, so
``games.webhooks.emit_webhook`` cannot send one by mistake: a backend turns a message into a push
notification, and a push goes through third parties (APNs, FCM) and lock screens.

The messages are a contract with the backends (and the dead letters keep messages already sent): add
a field as optional, never rename or remove one. The v1 contract renamed two fields once, to the words
of docs/glossary.md (``game`` → ``kind``, ``deadline`` → ``deadline_at``): a dead letter written before
is read with its fields renamed (:class:`MessageData`), and redelivered as it was sent."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, Field, field_validator, model_validator

from schema.actions import Model
from schema.display import DisplayText
from schema.kinds import GameKind
from schema.moments import Moment

EventType = Literal["your_turn", "invitation", "game_finished", "reminder", "match_found"]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
Id = Annotated[str, Field(pattern=ID_PATTERN, examples=["k3Jx9aQ2pLmN"])]
Seat = Annotated[int, Field(ge=0, le=4)]
# https or http, a host (a name, an IPv4 address or a bracketed IPv6 one: hex groups and at least two
# colons, perhaps ending in an IPv4 address) without credentials, an optional port, then a path or
# query of printable ASCII without a fragment. The pattern only tells clients the shape: the server
# parses the authority for real (:func:`webhook_target`), which no regular expression can do.
IPV6_LITERAL = (
    r"\[([0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,8}"
    r"|[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){1,6}:[0-9]{1,3}(\.[0-9]{1,3}){3})\]"
)
MAX_URL = 2000
URL_PATTERN = r"^https?://(" + IPV6_LITERAL + r"|[A-Za-z0-9.-]{1,253})(:[0-9]{1,5})?([/?][!-\"$-~]*)?$"


# --- the messages ----------------------------------------------------------------------------------

LEGACY_NAMES = {"game": "kind", "deadline": "deadline_at"}
"""The fields of the messages sent before v1, by their v1 names (docs/glossary.md)."""


class MessageData(Model):
    """A message's facts: refuses a field it does not declare, but reads a pre-v1 message's fields by
    their v1 names (a dead letter keeps the message as it was sent, to redeliver it byte for byte)."""

    @model_validator(mode="before")
    @classmethod
    def _v1_names(cls, data: object) -> object:
        if isinstance(data, dict):
            return {LEGACY_NAMES.get(key, key): value for key, value in data.items()}
        return data


class YourTurnData(MessageData):
    """A seat is to act: its player should be told (the backend pushes a notification)."""

    game_id: Id
    kind: GameKind
    seat: Seat
    version: int = Field(ge=0, description="The game's version: the move the seat is to make is this one.")
    player_id: Id | None = Field(default=None, description="The player account holding the seat.")
    deadline_at: Moment | None = Field(default=None, description="When the turn's clock runs out, if timed.")


class InvitationData(MessageData):
    """A player was invited to a game."""

    invitation_id: Id
    game_id: Id
    kind: GameKind
    player_id: Id = Field(description="The invited player's account.")
    from_player_id: Id | None = Field(default=None, description="Who invited them.")
    seat: Seat | None = Field(default=None, description="The seat kept for them, if one is.")
    expires_at: Moment | None = Field(default=None, description="When the invitation lapses.")


class GameFinishedData(MessageData):
    """A game is finished."""

    game_id: Id
    kind: GameKind
    version: int = Field(ge=0)
    winners: list[Seat] = Field(max_length=5, description="The winning seats.")
    player_ids: list[Id | None] = Field(
        default_factory=list, max_length=5, description="Each seat's player account (null: none), by seat."
    )


class ReminderData(MessageData):
    """A seat's turn has been waiting: a reminder before its clock runs out."""

    game_id: Id
    kind: GameKind
    seat: Seat
    version: int = Field(ge=0)
    player_id: Id | None = None
    deadline_at: Moment | None = Field(default=None, description="When the turn's clock runs out.")


class MatchFoundData(MessageData):
    """A player's (or a bot account's) matchmaking ticket was matched: the game has started with them
    seated. The view is not sent (a message never carries what a seat holds): the app reads it with the
    player's credential."""

    ticket_id: Id
    game_id: Id
    kind: GameKind
    seat: Seat
    version: int = Field(ge=0, description="The game's version when the player was seated.")
    player_id: Id = Field(description="The player account seated (a party's members get one message each).")


DATA_OF: dict[str, type[MessageData]] = {
    "your_turn": YourTurnData,
    "invitation": InvitationData,
    "game_finished": GameFinishedData,
    "reminder": ReminderData,
    "match_found": MatchFoundData,
}
assert set(DATA_OF) == set(EVENT_TYPES)

TIMESTAMP = Field(description="When the event happened (RFC 3339, UTC); the same on every retry.")


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


class MatchFoundMessage(BaseModel):
    type: Literal["match_found"]
    timestamp: Moment = TIMESTAMP
    data: MatchFoundData


WebhookPayload = Annotated[
    YourTurnMessage | InvitationMessage | GameFinishedMessage | ReminderMessage | MatchFoundMessage,
    Field(discriminator="type"),
]


# --- the administrator's API -----------------------------------------------------------------------


class RegisterWebhookRequest(Model):
    url: str = Field(
        max_length=MAX_URL,
        pattern=URL_PATTERN,
        examples=["https://backend.example.com/atout/webhooks"],
        description="Where to POST the messages: http or https, no credentials, no fragment; the host a "
        "DNS name, a dotted IPv4 address a.b.c.d or a bracketed IPv6 address (a host that is a number, "
        "such as `2130706433` or `127.1`, is refused). It must be or resolve to public addresses only "
        "(unless ATOUT_WEBHOOK_ALLOW_PRIVATE); redirects are not followed.",
    )
    event_types: list[EventType] = Field(min_length=1, max_length=len(EVENT_TYPES))
    description: DisplayText = Field(
        default="", max_length=200, description="What this endpoint is, for you."
    )
    enabled: bool = Field(default=True, description="false: registered, but sent nothing until enabled.")

    @field_validator("url", mode="before")
    @classmethod
    def _authority(cls, url: object) -> object:
        """The authority parsed before the pattern is matched, so that a refusal says what is wrong
        with the host or port rather than quoting the pattern (a value that is not a string, or too
        long, is left to the type and length checks)."""
        if isinstance(url, str) and len(url) <= MAX_URL:
            webhook_target(url)
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

    webhook_id: str = Field(examples=["wh_8f3a2b1c0d9e8f7a"])
    url: str
    event_types: list[EventType]
    description: str
    enabled: bool
    created_at: Moment


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

    delivery_id: str = Field(description="The attempt's id in the log.")
    message_id: str = Field(description="The `webhook-id` sent: the same on every attempt of a message.")
    event_type: EventType
    attempt: int = Field(ge=1)
    status: int | None = Field(description="The receiver's HTTP status (2xx: delivered); null: no answer.")
    error: DeliveryError | None = Field(description="Why there was no answer (null when there was one).")
    duration_seconds: float = Field(description="How long the attempt took (seconds, to the millisecond).")
    attempted_at: Moment = Field(description="When the attempt started.")


class WebhookDeliveryPage(BaseModel):
    deliveries: list[WebhookDelivery] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Send it back as `cursor` for older ones; null: no more.")


class DeadLetter(BaseModel):
    """A message that failed its every attempt: the operator may redeliver it once the receiver is fixed."""

    dead_letter_id: str
    webhook_id: str
    message_id: str
    event_type: EventType
    attempts: int
    error: str = Field(title="Last error", description="The last attempt's error, or `status <code>`.")
    failed_at: Moment = Field(description="When the last attempt failed.")
    payload: WebhookPayload


class DeadLetterPage(BaseModel):
    dead_letters: list[DeadLetter] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Send it back as `cursor` for older ones; null: no more.")


class Redelivery(BaseModel):
    webhook_id: str
    message_id: str = Field(description="The same `webhook-id` as the dead letter's: receivers dedup on it.")


# --- a webhook URL's authority -------------------------------------------------------------------

_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_PORT = re.compile(r"^[0-9]{1,5}$")
_AUTHORITY = re.compile(r"^[A-Za-z0-9.:\[\]-]*$")
MAX_AUTHORITY = 300  # a name's 253 characters, a colon and a port, with room to say what is wrong


@dataclass(frozen=True)
class WebhookTarget:
    """Where a webhook URL points: its scheme, its host (a lower-case name, or an IP address's text,
    an IPv6 one without brackets), its port (the scheme's when the URL names none), and the address
    when the host is one (None for a name, which must be resolved)."""

    scheme: str
    host: str
    port: int
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None


def webhook_target(url: str) -> WebhookTarget:
    """The scheme, host and port of a webhook URL; ``ValueError`` saying what is wrong otherwise.

    Parsed by hand, strictly, because the URL is read by three parsers that must agree on the host:
    this one, the resolver (``getaddrinfo``, whose ``inet_aton`` reads ``2130706433``, ``127.1`` or
    ``0x7f.1`` as 127.0.0.1) and httpx at delivery. So a host is a bracketed IPv6 address, a dotted
    IPv4 address ``a.b.c.d`` in decimal without leading zeros, or a DNS name whose last label is not
    a number; anything else (``[00]``, ``[1.2.3]``, ``2130706433``, ``80``, ``127.1``) is malformed,
    never guessed at. urllib's ``urlsplit`` raises a bare ``ValueError`` on some of these and lets
    others through, which is how they reached the resolver (a 500) before."""
    scheme, separator, rest = url.partition("://")
    if not separator or scheme not in ("http", "https"):
        raise ValueError("the URL must start with http:// or https://")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        raise ValueError("the URL must not carry credentials (user@ or user:password@ before the host)")
    if len(authority) > MAX_AUTHORITY or not _AUTHORITY.fullmatch(authority):  # quoted below: only these
        raise ValueError(
            f"the host and port must be at most {MAX_AUTHORITY} ASCII letters, digits, dots, hyphens, "
            "colons and brackets"
        )
    if authority.startswith("["):
        host, closed, port_text = authority[1:].partition("]")
        if not closed:
            raise ValueError("the host's IPv6 address has no closing bracket")
        address: ipaddress.IPv4Address | ipaddress.IPv6Address | None = _ipv6_literal(host)
        host = str(address)
    else:
        host, colon, port = authority.partition(":")
        port_text = colon + port
        host, address = _name_or_ipv4(host.lower())
    default = 443 if scheme == "https" else 80
    return WebhookTarget(scheme, host, _port(port_text, default), address)


def _ipv6_literal(text: str) -> ipaddress.IPv6Address:
    if text.startswith(("v", "V")) or "%" in text:
        raise ValueError(f"the host [{text}] is not an IPv6 address (no IPvFuture form, no zone index)")
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        hint = " (an IPv4 address is written without brackets)" if "." in text and ":" not in text else ""
        raise ValueError(f"the host [{text}] is not an IPv6 address{hint}") from None


def _name_or_ipv4(host: str) -> tuple[str, ipaddress.IPv4Address | None]:
    name = host[:-1] if host.endswith(".") else host  # an absolute name's final dot
    if not name:
        raise ValueError("the URL has no host")
    labels = name.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):  # URL parsers and resolvers read it as an IPv4 address
        try:
            return host, ipaddress.IPv4Address(host)
        except ValueError:
            pass
        read = _loose_ipv4(labels)
        if read is not None:
            raise ValueError(
                f"the host {host} is not written as an IPv4 address a.b.c.d: resolvers read it as "
                f"{read} (a short, numeric, octal or hex form); write {read} if that is the address meant"
            )
        raise ValueError(f"the host {host} ends in a number but is not an IPv4 address a.b.c.d")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise ValueError(
            f"the host {host} is not a DNS name: labels of 1 to 63 letters, digits and inner hyphens, "
            "253 characters in all"
        )
    return host, None


def _loose_ipv4(labels: list[str]) -> ipaddress.IPv4Address | None:
    """The IPv4 address ``inet_aton`` (and the WHATWG URL standard) reads in 1 to 4 numbers, each
    decimal, octal (leading 0) or hex (0x), the last filling the bytes left; None when it reads none.
    Only to say, in a refusal, what a numeric host would have reached."""
    if not 1 <= len(labels) <= 4:
        return None
    numbers: list[int] = []
    for label in labels:
        if label.startswith("0x"):
            base, digits = 16, label[2:] or "0"
        elif len(label) > 1 and label.startswith("0"):
            base, digits = 8, label[1:]
        else:
            base, digits = 10, label
        try:
            numbers.append(int(digits, base))
        except ValueError:
            return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = last
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _port(text: str, default: int) -> int:
    if not text:
        return default
    digits = text[1:]
    if not text.startswith(":") or not _PORT.fullmatch(digits) or not 1 <= int(digits) <= 65535:
        raise ValueError("the port must be a number from 1 to 65535, after the host and a colon")
    return int(digits)
