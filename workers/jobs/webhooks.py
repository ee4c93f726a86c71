"""The worker side of webhooks: the RQ job that makes one delivery attempt (:func:`deliver`), then
schedules the next one, or dead-letters the message, and logs the attempt.

A message is retried after each delay of ``ATOUT_WEBHOOK_RETRY_SCHEDULE`` (exponential, about 23 hours
in all by default), each delay jittered between half and all of its value so that the retries of many
messages failing at once (a receiver down) do not all come back at the same second. Every attempt sends
the same ``webhook-id``: a receiver that got an attempt whose answer was lost applies the message once.
An endpoint whose address is not public (DNS changed since its registration), whose URL an older, looser
rule let through (``http://[00]``, a host that is a number: parsed again at each attempt), or paused,
gets nothing: the message is dead-lettered at once, for the administrator to redeliver.

The job runs in the worker's runtime (``workers.jobs.turns.runtime``: one event loop and Redis pool per
process). Metrics (``atout_webhook_deliveries_total``, ``atout_webhook_delivery_seconds``) are counted
in the worker process: its own ``/metrics`` (``--metrics-port``) serves them, or, under ``atout
serve``, the API's ``/metrics`` adds them up with every process's.
"""

from __future__ import annotations

import random
import time

from service.base import logs
from service.base.counters import observe_webhook_delivery
from service.store.faults import store_fault
from service.store.webhooks import WebhookMessage
from workers.jobs.deliveries import Answer, Bounds, post, signed_headers
from workers.jobs.turns import Runtime, runtime
from workers.jobs.webhook_queue import enqueue_delivery

log = logs.get_logger("atout.webhooks")


def jittered(delay: float, rng: random.Random | None = None) -> float:
    """A retry's wait: between half and all of ``delay`` (AWS's "equal jitter")."""
    return (rng or random).uniform(delay / 2, delay)


def deliver(endpoint_id: str, message_id: str, event_type: str, body: str, attempt: int) -> str:
    """RQ job: attempt ``attempt`` at delivering a message; returns its outcome (``delivered``,
    ``retried``, ``dead``, ``refused``, or ``endpoint_gone`` when the endpoint was deleted). A Redis
    fault is counted and raised again, so that RQ retries the job."""
    message = WebhookMessage(endpoint_id, message_id, event_type, body)
    rt = runtime()
    try:
        return rt.loop.run_until_complete(_attempt(rt, message, attempt))
    except Exception as exc:
        store_fault(exc, "worker")
        raise


async def _attempt(rt: Runtime, message: WebhookMessage, attempt: int) -> str:
    settings, store = rt.settings, rt.store
    endpoint = await store.webhooks.load_webhook(message.endpoint_id)
    if endpoint is None:
        log.info("webhook_endpoint_gone", webhook_id=message.endpoint_id, message_id=message.message_id)
        return "endpoint_gone"
    started = time.perf_counter()
    if endpoint.enabled:
        bounds = Bounds(
            connect=settings.webhook_connect_timeout,
            read=settings.webhook_read_timeout,
            max_bytes=settings.webhook_max_response_bytes,
            allow_private=settings.webhook_allow_private,
        )
        headers = signed_headers(endpoint.secret, message.message_id, message.body)
        answer = await post(endpoint.url, headers, message.body, bounds)
    else:
        answer = Answer(None, "endpoint_disabled")
    seconds = time.perf_counter() - started
    outcome = _outcome(answer, attempt, len(settings.webhook_retry_delays))
    # The next step first: a fault after it retries this job, which schedules the same next attempt
    # (one job id per attempt) rather than losing the message.
    if outcome == "retried":
        delay = jittered(settings.webhook_retry_delays[attempt - 1])
        enqueue_delivery(rt.sync, settings, message, attempt + 1, delay)
    elif outcome in ("dead", "refused"):
        await store.webhooks.add_dead_letter(message, attempt, answer.summary, settings.webhook_dead_letters)
    duration_ms = round(seconds * 1000)
    await store.webhooks.log_delivery(
        message, attempt, answer.status, answer.error, duration_ms, settings.webhook_log_size
    )
    observe_webhook_delivery(message.event_type, outcome, seconds)
    log.info(
        "webhook_delivery",
        webhook_id=message.endpoint_id,
        message_id=message.message_id,
        event_type=message.event_type,
        attempt=attempt,
        outcome=outcome,
        status=answer.status,
        error=answer.error,
        duration_ms=duration_ms,
    )
    return outcome


def _outcome(answer: Answer, attempt: int, retries: int) -> str:
    if answer.delivered:
        return "delivered"
    if answer.error in ("address_refused", "endpoint_disabled"):
        return "refused"  # retrying would send nothing either: dead-lettered now
    return "retried" if attempt <= retries else "dead"
