"""Webhook deliveries as RQ jobs, the producer side: the first attempt at a message (emitted by the
game code, or redelivered by the administrator) and each retry, on the webhooks' own queue
(``ATOUT_WEBHOOK_QUEUE``), so that a slow receiver never delays a bot's move. The worker side is
``workers.jobs.webhooks``; a retry is scheduled with RQ's ``enqueue_in``, moved to the queue when due by
the scheduler every ``atout worker`` runs (``with_scheduler``)."""

from __future__ import annotations

from datetime import timedelta

import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from service.base.settings import Settings
from service.store.webhooks import WebhookMessage
from workers.jobs.queue import DELIVER_WEBHOOK, FAILURE_TTL

JOB_MARGIN = 30
"""Seconds a delivery job may run beyond its own deadline (connect and read timeouts) before RQ kills
it: the attempt gives up on its own first, this only backs it."""


def job_id(message: WebhookMessage, attempt: int) -> str:
    """One job id per attempt: a job run twice (its worker died) schedules the same next attempt once."""
    return f"webhook-{message.endpoint_id}-{message.message_id}-{attempt}"


def job_timeout(settings: Settings) -> int:
    return int(settings.webhook_connect_timeout + settings.webhook_read_timeout) + JOB_MARGIN


def enqueue_delivery(
    connection: redis.Redis, settings: Settings, message: WebhookMessage, attempt: int = 1, delay: float = 0
) -> None:
    """Enqueue attempt ``attempt`` at delivering ``message``, now or in ``delay`` seconds. A job lost
    with its worker, or failing on a Redis fault, is retried by RQ (twice): the receiver may then get
    the attempt twice, with the same ``webhook-id``, and applies it once."""
    queue = Queue(settings.webhook_queue, connection=connection, serializer=JSONSerializer)
    args = (message.endpoint_id, message.message_id, message.event_type, message.body, attempt)
    options = {
        "job_id": job_id(message, attempt),
        "job_timeout": job_timeout(settings),
        "result_ttl": 0,  # the outcome is in the endpoint's delivery log
        "failure_ttl": FAILURE_TTL,
        "retry": Retry(max=2),
    }
    if delay > 0:
        queue.enqueue_in(timedelta(seconds=delay), DELIVER_WEBHOOK, *args, **options)
    else:
        queue.enqueue(DELIVER_WEBHOOK, *args, **options)
