"""The administrator's webhook endpoints under /v1/admin/webhooks, declared as the table declares every
endpoint (:class:`service.api.rest.operation.Op`) and included in it
(:data:`service.api.rest.endpoints.OPS`).

The dead letters come before the endpoints' own paths: the router tries the routes in this order, and
``/v1/admin/webhooks/dead-letters`` must not be read as the endpoint ``dead-letters``."""

from __future__ import annotations

from schema.webhooks import (
    DeadLetterPage,
    Redelivery,
    RegisterWebhookRequest,
    UpdateWebhookRequest,
    Webhook,
    WebhookDeliveryPage,
    WebhookList,
    WebhookRegistered,
)
from service.api.rest.operation import BODY, UPLOAD, Op, page_params
from service.api.rest.webhooks import (
    dead_letters,
    delete_webhook,
    get_webhook,
    list_webhooks,
    redeliver,
    register_webhook,
    update_webhook,
    webhook_deliveries,
)

ADMIN = ("missing_token", "invalid_token", "admin_required")
FOUND = ("webhook_not_found",)
PAGED = page_params(cursor="The `next_cursor` of the previous page, as it came (none: the newest).")
TAG = "webhooks"

WEBHOOK_OPS: tuple[Op, ...] = (
    Op(
        "POST",
        "/v1/admin/webhooks",
        register_webhook,
        "registerWebhook",
        "Register a webhook endpoint (administrator): its signing secret is shown once",
        TAG,
        WebhookRegistered,
        201,
        RegisterWebhookRequest,
        (*ADMIN, *BODY, "webhook_address_refused", "webhook_limit"),
        "admin",
        description="The endpoint receives a signed POST (Standard Webhooks: `webhook-id`, "
        "`webhook-timestamp`, `webhook-signature`) for each event of its `event_types`: `your_turn`, "
        "`invitation`, `game_finished`, `reminder` (bodies: the `*Message` schemas). Its host must "
        "resolve to public addresses only. Failed deliveries are retried for about a day, then "
        "dead-lettered (docs/operations.md, Webhooks).",
    ),
    Op(
        "GET",
        "/v1/admin/webhooks",
        list_webhooks,
        "listWebhooks",
        "The webhook endpoints (administrator), oldest first, without their secrets",
        TAG,
        WebhookList,
        errors=ADMIN,
        auth="admin",
    ),
    Op(
        "GET",
        "/v1/admin/webhooks/dead-letters",
        dead_letters,
        "listDeadLetters",
        "The messages that failed every delivery attempt (administrator), newest first",
        TAG,
        DeadLetterPage,
        errors=(*ADMIN, "invalid_request"),
        auth="admin",
        params=PAGED,
    ),
    Op(
        "POST",
        "/v1/admin/webhooks/dead-letters/{dead_letter_id}/redeliver",
        redeliver,
        "redeliverDeadLetter",
        "Deliver a dead letter again, with its webhook-id, from the first attempt (administrator)",
        TAG,
        Redelivery,
        202,
        errors=(*ADMIN, *UPLOAD, "dead_letter_not_found", "webhook_not_found"),
        auth="admin",
        description="The dead letter leaves the list; it comes back if it fails every attempt again. "
        "`webhook_not_found`: its endpoint was deleted (the letter stays).",
    ),
    Op(
        "GET",
        "/v1/admin/webhooks/{webhook_id}",
        get_webhook,
        "getWebhook",
        "A webhook endpoint (administrator), without its secret",
        TAG,
        Webhook,
        errors=(*ADMIN, *FOUND),
        auth="admin",
    ),
    Op(
        "PATCH",
        "/v1/admin/webhooks/{webhook_id}",
        update_webhook,
        "updateWebhook",
        "Pause or resume a webhook endpoint (administrator)",
        TAG,
        Webhook,
        request=UpdateWebhookRequest,
        errors=(*ADMIN, *BODY, *FOUND),
        auth="admin",
        description="While paused nothing is enqueued for the endpoint, and a retry that comes due is "
        "dead-lettered at once (redeliver it once the endpoint is back).",
    ),
    Op(
        "DELETE",
        "/v1/admin/webhooks/{webhook_id}",
        delete_webhook,
        "deleteWebhook",
        "Delete a webhook endpoint and its delivery log (administrator)",
        TAG,
        None,
        204,
        errors=(*ADMIN, *FOUND),
        auth="admin",
        description="Deliveries still due for it are dropped; its dead letters stay (and cannot be "
        "redelivered).",
    ),
    Op(
        "GET",
        "/v1/admin/webhooks/{webhook_id}/deliveries",
        webhook_deliveries,
        "listWebhookDeliveries",
        "A webhook endpoint's delivery attempts (administrator), newest first",
        TAG,
        WebhookDeliveryPage,
        errors=(*ADMIN, *FOUND, "invalid_request"),
        auth="admin",
        params=PAGED,
        description="The log keeps the last `ATOUT_WEBHOOK_LOG_SIZE` attempts (1000 by default): each "
        "with its message's `webhook-id`, the attempt's number, the HTTP status or the error, the time.",
    ),
)
