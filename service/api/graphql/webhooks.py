"""The administrator's webhook API in GraphQL: the REST operations of /v1/admin/webhooks with the same
rules and codes (the token first, then the arguments). Queries: ``webhooks``, ``webhook``,
``webhookDeliveries``, ``deadLetters``; mutations: ``registerWebhook``, ``updateWebhook``,
``deleteWebhook``, ``redeliverDeadLetter``. The resolvers are plain functions, the typed form (see
:mod:`service.api.graphql.queries`)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from schema import graphql_bodies as b
from schema import webhooks as w
from schema.graphql_models import build, build_connection, build_payload, given
from schema.pages import DEFAULT_LIMIT, Page
from schema.webhooks import RegisterWebhookRequest, UpdateWebhookRequest
from service.api.graphql.context import (
    INPUT,
    connection_page,
    games_of,
    guarded,
    parsed,
    root_field,
    token_of,
)

AFTER = ("after",)  # where a refused cursor is, in a problem's ``errors``


async def resolve_webhooks(info: Info) -> Any:
    hooks = await guarded(lambda: games_of(info).webhooks.list_webhooks(token_of(info)))
    return [build(w.Webhook, hook) for hook in hooks]


async def resolve_webhook(info: Info, webhook_id: strawberry.ID) -> Any:
    hook = await guarded(lambda: games_of(info).webhooks.get_webhook(token_of(info), str(webhook_id)))
    return build(w.Webhook, hook)


async def resolve_webhook_deliveries(
    info: Info, webhook_id: strawberry.ID, first: int = DEFAULT_LIMIT, after: str | None = None
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        asked = connection_page(Page, first, after)
        page = await games.webhooks.webhook_deliveries(
            token, str(webhook_id), asked.limit, asked.cursor, AFTER
        )
        return build_connection(b.WebhookDeliveryConnection, page)

    return await guarded(run)


async def resolve_dead_letters(info: Info, first: int = DEFAULT_LIMIT, after: str | None = None) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        asked = connection_page(Page, first, after)
        page = await games.webhooks.dead_letters(token, asked.limit, asked.cursor, AFTER)
        return build_connection(b.DeadLetterConnection, page)

    return await guarded(run)


async def resolve_register_webhook(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.RegisterWebhookInput, description=INPUT)],
) -> Any:
    games, token = games_of(info), token_of(info)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        request = parsed(RegisterWebhookRequest, given(input))
        return build(w.WebhookRegistered, await games.webhooks.register_webhook(token, request))

    return await guarded(run)


async def resolve_update_webhook(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.UpdateWebhookInput, description=INPUT)],
) -> Any:
    games, token, hid = games_of(info), token_of(info), str(input.webhook_id)

    async def run() -> Any:
        games.webhooks.require_admin(token)
        body = parsed(UpdateWebhookRequest, {"enabled": input.enabled})
        return build_payload(
            b.UpdateWebhookPayload, await games.webhooks.update_webhook(token, hid, body.enabled)
        )

    return await guarded(run)


async def resolve_delete_webhook(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.DeleteWebhookInput, description=INPUT)],
) -> Any:
    hid = str(input.webhook_id)
    await guarded(lambda: games_of(info).webhooks.delete_webhook(token_of(info), hid))
    return b.DeleteWebhookPayload(webhook_id=strawberry.ID(hid))


async def resolve_redeliver_dead_letter(
    info: Info,
    input: Annotated[Any, strawberry.argument(graphql_type=b.RedeliverDeadLetterInput, description=INPUT)],
) -> Any:
    done = await guarded(lambda: games_of(info).webhooks.redeliver(token_of(info), str(input.dead_letter_id)))
    return build(w.Redelivery, done)


ADMIN = " (administrator token)"
QUERIES = {
    "webhooks": root_field(
        resolve_webhooks,
        list[b.Webhook],
        "The webhook endpoints, oldest first" + ADMIN + " (REST listWebhooks).",
    ),
    "webhook": root_field(resolve_webhook, b.Webhook, "A webhook endpoint" + ADMIN + " (REST getWebhook)."),
    "webhook_deliveries": root_field(
        resolve_webhook_deliveries,
        b.WebhookDeliveryConnection,
        "An endpoint's delivery attempts, newest first, a page at a time" + ADMIN + " (REST "
        "listWebhookDeliveries).",
    ),
    "dead_letters": root_field(
        resolve_dead_letters,
        b.DeadLetterConnection,
        "The messages that failed every delivery attempt, newest first" + ADMIN + " (REST listDeadLetters).",
    ),
}
MUTATIONS = {
    "register_webhook": strawberry.mutation(
        resolver=resolve_register_webhook,
        graphql_type=b.RegisterWebhookPayload,
        description="Register a webhook endpoint; its signing secret is shown once" + ADMIN + ".",
    ),
    "update_webhook": strawberry.mutation(
        resolver=resolve_update_webhook,
        graphql_type=b.UpdateWebhookPayload,
        description="Pause or resume a webhook endpoint" + ADMIN + ".",
    ),
    "delete_webhook": strawberry.mutation(
        resolver=resolve_delete_webhook,
        graphql_type=b.DeleteWebhookPayload,
        description="Delete a webhook endpoint and its delivery log" + ADMIN + ".",
    ),
    "redeliver_dead_letter": strawberry.mutation(
        resolver=resolve_redeliver_dead_letter,
        graphql_type=b.RedeliverDeadLetterPayload,
        description="Deliver a dead letter again, with its webhook-id" + ADMIN + ".",
    ),
}
