"""The administrator's webhook API in GraphQL: the REST operations of /v1/admin/webhooks with the same
rules and codes (the token first, then the arguments). Queries: ``webhooks``, ``webhook``,
``webhookDeliveries``, ``webhookDeadLetters``; mutations: ``registerWebhook``, ``updateWebhook``,
``deleteWebhook``, ``redeliverDeadLetter``. The resolvers are plain functions, the typed form (see
:mod:`service.api.graphql.queries`)."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema import webhooks as w
from schema.graphql_models import build
from schema.pages import DEFAULT_LIMIT, Page
from schema.webhooks import RegisterWebhookRequest, UpdateWebhookRequest
from service.api.graphql.context import games_of, guarded, parsed, token_of
from service.api.pages import page_of

CURSOR = ("cursor",)  # where a refused cursor is, in a problem's ``errors``


async def resolve_webhooks(info: Info) -> Any:
    hooks = await guarded(lambda: games_of(info).webhooks.list_webhooks(token_of(info)))
    return [build(w.Webhook, hook) for hook in hooks]


async def resolve_webhook(info: Info, id: strawberry.ID) -> Any:
    return build(
        w.Webhook, await guarded(lambda: games_of(info).webhooks.get_webhook(token_of(info), str(id)))
    )


async def resolve_webhook_deliveries(
    info: Info, webhook_id: strawberry.ID, limit: int = DEFAULT_LIMIT, cursor: str | None = None
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        asked = page_of(Page, {"limit": limit, "cursor": cursor})
        page = await games.webhooks.webhook_deliveries(
            token, str(webhook_id), asked.limit, asked.cursor, CURSOR
        )
        return build(w.WebhookDeliveryPage, page)

    return await guarded(run)


async def resolve_webhook_dead_letters(
    info: Info, limit: int = DEFAULT_LIMIT, cursor: str | None = None
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        asked = page_of(Page, {"limit": limit, "cursor": cursor})
        return build(
            w.DeadLetterPage, await games.webhooks.dead_letters(token, asked.limit, asked.cursor, CURSOR)
        )

    return await guarded(run)


async def resolve_register_webhook(
    info: Info,
    url: str,
    event_types: list[b.WebhookEventType],
    description: str = "",
    enabled: bool = True,
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        raw = {
            "url": url,
            "event_types": [e.value for e in event_types],
            "description": description,
            "enabled": enabled,
        }
        request = parsed(RegisterWebhookRequest, raw)
        return build(w.WebhookRegistered, await games.webhooks.register_webhook(token, request))

    return await guarded(run)


async def resolve_update_webhook(info: Info, id: strawberry.ID, enabled: bool) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        body = parsed(UpdateWebhookRequest, {"enabled": enabled})
        return build(w.Webhook, await games.webhooks.update_webhook(token, str(id), body.enabled))

    return await guarded(run)


async def resolve_delete_webhook(info: Info, id: strawberry.ID) -> bool:
    await guarded(lambda: games_of(info).webhooks.delete_webhook(token_of(info), str(id)))
    return True


async def resolve_redeliver_dead_letter(info: Info, id: strawberry.ID) -> Any:
    done = await guarded(lambda: games_of(info).webhooks.redeliver(token_of(info), str(id)))
    return build(w.Redelivery, done)


ADMIN = " (administrator token)"
QUERIES = {
    "webhooks": strawberry.field(
        resolver=resolve_webhooks,
        graphql_type=list[b.Webhook],
        description="The webhook endpoints, oldest first" + ADMIN + ".",
    ),
    "webhook": strawberry.field(
        resolver=resolve_webhook, graphql_type=b.Webhook, description="A webhook endpoint" + ADMIN + "."
    ),
    "webhook_deliveries": strawberry.field(
        resolver=resolve_webhook_deliveries,
        graphql_type=b.WebhookDeliveryPage,
        description="An endpoint's delivery attempts, newest first: pass a page's `nextCursor` as "
        "`cursor` for older ones" + ADMIN + ".",
    ),
    "webhook_dead_letters": strawberry.field(
        resolver=resolve_webhook_dead_letters,
        graphql_type=b.DeadLetterPage,
        description="The messages that failed every delivery attempt, newest first" + ADMIN + ".",
    ),
}
MUTATIONS = {
    "register_webhook": strawberry.mutation(
        resolver=resolve_register_webhook,
        graphql_type=b.WebhookRegistration,
        description="Register a webhook endpoint; its signing secret is shown once" + ADMIN + ".",
    ),
    "update_webhook": strawberry.mutation(
        resolver=resolve_update_webhook,
        graphql_type=b.Webhook,
        description="Pause or resume a webhook endpoint" + ADMIN + ".",
    ),
    "delete_webhook": strawberry.mutation(
        resolver=resolve_delete_webhook,
        description="Delete a webhook endpoint and its delivery log; true once deleted" + ADMIN + ".",
    ),
    "redeliver_dead_letter": strawberry.mutation(
        resolver=resolve_redeliver_dead_letter,
        graphql_type=b.Redelivery,
        description="Deliver a dead letter again, with its webhook-id" + ADMIN + ".",
    ),
}
