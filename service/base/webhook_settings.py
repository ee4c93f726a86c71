"""The ``ATOUT_WEBHOOK_*`` settings: a base class of :class:`service.base.settings.Settings`, kept in a
module of their own so that one concern's dozen settings do not push the settings module past the
size of a module (its table in the README lists them with the others, after them)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

MAX_RETRIES = 30
MAX_RETRY_DELAY = 7 * 24 * 3600


def retry_delays(text: str) -> tuple[float, ...]:
    """``"5,30,120"`` as ``(5.0, 30.0, 120.0)``: the seconds before each retry of a failed delivery."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    try:
        delays = tuple(float(part) for part in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of seconds such as '5,30,120'") from None
    if len(delays) > MAX_RETRIES or not all(0 < d <= MAX_RETRY_DELAY for d in delays):
        raise ValueError(
            f"{text!r}: at most {MAX_RETRIES} delays, each more than 0 and at most {MAX_RETRY_DELAY} seconds"
        )
    return delays


def _schedule_text(value: str) -> str:
    retry_delays(value)  # checked at startup rather than at the first failed delivery
    return value


ScheduleText = Annotated[str, AfterValidator(_schedule_text)]


class WebhookSettings(BaseSettings):
    """Webhooks to the apps' backends (service/games/webhooks.py, workers/jobs/webhooks.py)."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    webhook_queue: str = Field(
        default="atout-webhooks",
        description="RQ queue of webhook deliveries (`atout worker --queues webhooks`), apart from the bot "
        "queues: a slow receiver never delays a bot's move.",
    )
    webhook_allow_private: bool = Field(
        default=False,
        description="true: a webhook endpoint may resolve to a loopback, private, link-local or other "
        "non-public address (tests, a receiver beside the service); false: such an endpoint is refused at "
        "registration and every delivery to one is refused (no request to internal services).",
    )
    webhook_retry_schedule: ScheduleText = Field(
        default="5,30,120,600,1800,3600,10800,21600,43200",
        description="Seconds before each retry of a failed webhook delivery, comma-separated (each waits "
        "a random time between half and all of it); a message that fails its last retry is dead-lettered. "
        "The default retries nine times over 11 to 23 hours.",
    )
    webhook_connect_timeout: float = Field(
        default=5.0, gt=0, le=60, description="Seconds a webhook delivery may take to connect (TLS included)."
    )
    webhook_read_timeout: float = Field(
        default=10.0,
        gt=0,
        le=120,
        description="Seconds a webhook delivery waits for the receiver's answer; the whole exchange is cut "
        "after the connect and read timeouts together, however slowly the receiver trickles bytes.",
    )
    webhook_max_response_bytes: int = Field(
        default=65_536,
        ge=0,
        le=10_485_760,
        description="Bytes of a receiver's answer a delivery reads at most; then it closes the connection "
        "(the status alone says whether the message was delivered).",
    )
    webhook_max_endpoints: int = Field(
        default=50,
        ge=1,
        le=1000,
        description="Webhook endpoints the operator may register; one more is refused (webhook_limit).",
    )
    webhook_log_size: int = Field(
        default=1000, ge=10, le=100_000, description="Delivery attempts kept per endpoint (the newest)."
    )
    webhook_dead_letters: int = Field(
        default=1000,
        ge=10,
        le=100_000,
        description="Dead letters (messages that failed every retry) kept, the newest; older ones are "
        "dropped.",
    )

    @property
    def webhook_retry_delays(self) -> tuple[float, ...]:
        """The retry schedule as seconds (:data:`webhook_retry_schedule`, already checked)."""
        return retry_delays(self.webhook_retry_schedule)
