"""The REST handlers of the administrator's webhook endpoints: register, list, read, pause or resume,
delete, their delivery logs, and the dead letters (read, redeliver). The token is checked before the
body or the query is read: without the administrator's, nothing else is said.
:data:`WEBHOOK_OPS` declares the endpoints."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.pages import Page
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
from service.api.rest.operation import ADMIN_ONLY, BODY, UPLOAD, Op, page_params
from service.api.rest.requests import bearer, games_of, ok, page_query, parse_body


async def register_webhook(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.webhooks.require_admin(token)
    body = await parse_body(request, RegisterWebhookRequest)
    return ok(await games.webhooks.register_webhook(token, body), 201)


async def list_webhooks(request: Request) -> Response:
    webhooks = await games_of(request).webhooks.list_webhooks(bearer(request))
    return ok(WebhookList(webhooks=webhooks))


async def get_webhook(request: Request) -> Response:
    return ok(
        await games_of(request).webhooks.get_webhook(bearer(request), request.path_params["webhook_id"])
    )


async def update_webhook(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.webhooks.require_admin(token)
    body = await parse_body(request, UpdateWebhookRequest)
    return ok(await games.webhooks.update_webhook(token, request.path_params["webhook_id"], body.enabled))


async def delete_webhook(request: Request) -> Response:
    await games_of(request).webhooks.delete_webhook(bearer(request), request.path_params["webhook_id"])
    return Response(status_code=204)


async def webhook_deliveries(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.webhooks.require_admin(token)
    asked = page_query(request, Page)
    page = await games.webhooks.webhook_deliveries(
        token, request.path_params["webhook_id"], asked.limit, asked.cursor
    )
    return ok(page)


async def dead_letters(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.webhooks.require_admin(token)
    asked = page_query(request, Page)
    return ok(await games.webhooks.dead_letters(token, asked.limit, asked.cursor))


async def redeliver(request: Request) -> Response:
    redelivery = await games_of(request).webhooks.redeliver(
        bearer(request), request.path_params["dead_letter_id"]
    )
    return ok(redelivery, 202)


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
        ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
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
        auth=ADMIN_ONLY,
        params=PAGED,
        description="The log keeps the last `ATOUT_WEBHOOK_LOG_SIZE` attempts (1000 by default): each "
        "with its message's `webhook-id`, the attempt's number, the HTTP status or the error, the time.",
    ),
)
