"""The administrator's webhook API in GraphQL: the REST operations of /v1/admin/webhooks with the same
rules and codes (the token first, then the arguments). Queries: ``webhooks``, ``webhook``,
``webhookDeliveries``, ``webhookDeadLetters``; mutations: ``registerWebhook``, ``updateWebhook``,
``deleteWebhook``, ``redeliverDeadLetter``. The resolvers are plain functions, the typed form (see
:mod:`service.api.graphql.queries`)."""

from __future__ import annotations

import strawberry
from pydantic import ValidationError
from strawberry.types import Info

from schema import graphql_webhooks as t
from schema.pages import DEFAULT_LIMIT, Page
from schema.webhooks import RegisterWebhookRequest
from service.api.graphql.context import games_of, guarded, token_of
from service.api.pages import page_of
from service.api.problems import invalid_request

CURSOR = ("cursor",)  # where a refused cursor is, in a problem's ``errors``


async def resolve_webhooks(info: Info) -> list[t.Webhook]:
    hooks = await guarded(lambda: games_of(info).list_webhooks(token_of(info)))
    return [t.Webhook.of(hook) for hook in hooks]


async def resolve_webhook(info: Info, id: strawberry.ID) -> t.Webhook:
    return t.Webhook.of(await guarded(lambda: games_of(info).get_webhook(token_of(info), str(id))))


async def resolve_webhook_deliveries(
    info: Info, webhook_id: strawberry.ID, limit: int = DEFAULT_LIMIT, cursor: str | None = None
) -> t.WebhookDeliveryPage:
    games, token = games_of(info), token_of(info)

    async def run() -> t.WebhookDeliveryPage:
        games.require_admin(token)
        asked = page_of(Page, {"limit": limit, "cursor": cursor})
        page = await games.webhook_deliveries(token, str(webhook_id), asked.limit, asked.cursor, CURSOR)
        return t.WebhookDeliveryPage.of(page)

    return await guarded(run)


async def resolve_webhook_dead_letters(
    info: Info, limit: int = DEFAULT_LIMIT, cursor: str | None = None
) -> t.DeadLetterPage:
    games, token = games_of(info), token_of(info)

    async def run() -> t.DeadLetterPage:
        games.require_admin(token)
        asked = page_of(Page, {"limit": limit, "cursor": cursor})
        return t.DeadLetterPage.of(await games.dead_letters(token, asked.limit, asked.cursor, CURSOR))

    return await guarded(run)


async def resolve_register_webhook(
    info: Info,
    url: str,
    event_types: list[t.WebhookEventType],
    description: str = "",
    enabled: bool = True,
) -> t.WebhookRegistration:
    games, token = games_of(info), token_of(info)

    async def run() -> t.WebhookRegistration:
        games.require_admin(token)
        raw = {
            "url": url,
            "event_types": [e.value for e in event_types],
            "description": description,
            "enabled": enabled,
        }
        try:
            request = RegisterWebhookRequest.model_validate(raw)
        except ValidationError as exc:
            raise invalid_request(exc) from None
        return t.WebhookRegistration.of(await games.register_webhook(token, request))

    return await guarded(run)


async def resolve_update_webhook(info: Info, id: strawberry.ID, enabled: bool) -> t.Webhook:
    return t.Webhook.of(
        await guarded(lambda: games_of(info).update_webhook(token_of(info), str(id), enabled))
    )


async def resolve_delete_webhook(info: Info, id: strawberry.ID) -> bool:
    await guarded(lambda: games_of(info).delete_webhook(token_of(info), str(id)))
    return True


async def resolve_redeliver_dead_letter(info: Info, id: strawberry.ID) -> t.Redelivery:
    done = await guarded(lambda: games_of(info).redeliver(token_of(info), str(id)))
    return t.Redelivery(webhook_id=strawberry.ID(done.webhook_id), message_id=done.message_id)


ADMIN = " (administrator token)"
QUERIES = {
    "webhooks": strawberry.field(
        resolver=resolve_webhooks, description="The webhook endpoints, oldest first" + ADMIN + "."
    ),
    "webhook": strawberry.field(resolver=resolve_webhook, description="A webhook endpoint" + ADMIN + "."),
    "webhook_deliveries": strawberry.field(
        resolver=resolve_webhook_deliveries,
        description="An endpoint's delivery attempts, newest first: pass a page's `nextCursor` as "
        "`cursor` for older ones" + ADMIN + ".",
    ),
    "webhook_dead_letters": strawberry.field(
        resolver=resolve_webhook_dead_letters,
        description="The messages that failed every delivery attempt, newest first" + ADMIN + ".",
    ),
}
MUTATIONS = {
    "register_webhook": strawberry.mutation(
        resolver=resolve_register_webhook,
        description="Register a webhook endpoint; its signing secret is shown once" + ADMIN + ".",
    ),
    "update_webhook": strawberry.mutation(
        resolver=resolve_update_webhook, description="Pause or resume a webhook endpoint" + ADMIN + "."
    ),
    "delete_webhook": strawberry.mutation(
        resolver=resolve_delete_webhook,
        description="Delete a webhook endpoint and its delivery log; true once deleted" + ADMIN + ".",
    ),
    "redeliver_dead_letter": strawberry.mutation(
        resolver=resolve_redeliver_dead_letter,
        description="Deliver a dead letter again, with its webhook-id" + ADMIN + ".",
    ),
}
