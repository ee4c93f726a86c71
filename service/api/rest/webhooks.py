"""The REST handlers of the administrator's webhook endpoints: register, list, read, pause or resume,
delete, their delivery logs, and the dead letters (read, redeliver). The token is checked before the
body or the query is read: without the administrator's, nothing else is said."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from schema.pages import Page
from schema.webhooks import RegisterWebhookRequest, UpdateWebhookRequest, WebhookList
from service.api.rest.requests import bearer, games_of, ok, page_query, parse_body


async def register_webhook(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.require_admin(token)
    body = await parse_body(request, RegisterWebhookRequest)
    return ok(await games.register_webhook(token, body), 201)


async def list_webhooks(request: Request) -> Response:
    webhooks = await games_of(request).list_webhooks(bearer(request))
    return ok(WebhookList(webhooks=webhooks))


async def get_webhook(request: Request) -> Response:
    return ok(await games_of(request).get_webhook(bearer(request), request.path_params["webhook_id"]))


async def update_webhook(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.require_admin(token)
    body = await parse_body(request, UpdateWebhookRequest)
    return ok(await games.update_webhook(token, request.path_params["webhook_id"], body.enabled))


async def delete_webhook(request: Request) -> Response:
    await games_of(request).delete_webhook(bearer(request), request.path_params["webhook_id"])
    return Response(status_code=204)


async def webhook_deliveries(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.require_admin(token)
    asked = page_query(request, Page)
    page = await games.webhook_deliveries(token, request.path_params["webhook_id"], asked.limit, asked.cursor)
    return ok(page)


async def dead_letters(request: Request) -> Response:
    games, token = games_of(request), bearer(request)
    games.require_admin(token)
    asked = page_query(request, Page)
    return ok(await games.dead_letters(token, asked.limit, asked.cursor))


async def redeliver(request: Request) -> Response:
    redelivery = await games_of(request).redeliver(bearer(request), request.path_params["dead_letter_id"])
    return ok(redelivery, 202)
