"""The administrator's webhook API, REST and GraphQL: every refusal with its code (no token, another
token, an unknown endpoint or dead letter, the endpoint limit, a bad URL or event type, an address that
is not public), the secret shown once, the pages of the delivery log and of the dead letters. The
deliveries themselves are tests/service/test_webhooks.py."""

from __future__ import annotations

import base64
import dataclasses
import functools
import ipaddress
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from standardwebhooks import Webhook
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth

from schema import graphql_bodies as gt
from schema import webhooks as w
from service.api.app import create_app
from service.api.rest.webhooks import WEBHOOK_OPS
from service.base.destinations import DestinationRefused, checked, is_public
from service.base.settings import Settings, retry_delays
from service.store.webhooks import WebhookMessage
from workers.jobs.webhooks import jittered

HOOK = "http://127.0.0.1:9/hooks"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_allow_private": True, "webhook_max_endpoints": 3})


@pytest.fixture
def strict_client(settings: Settings) -> Iterator[TestClient]:
    """The app under the default rule: public addresses only."""
    with TestClient(create_app(settings.model_copy(update={"webhook_allow_private": False}))) as client:
        yield client


def register(client: TestClient, url: str = HOOK, **body: Any) -> Any:
    return client.post(
        "/v1/admin/webhooks",
        json={"url": url, "event_types": ["your_turn"], **body},
        headers=admin_headers(client),
    )


def gql(client: TestClient, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
    headers = auth(token) if token else {}
    response = client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def code_of(answer: dict[str, Any]) -> str:
    code: str = answer["errors"][0]["extensions"]["code"]
    return code


def problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status and response.json()["code"] == code, response.text


# --- who may call ------------------------------------------------------------------------------------


def url_of(path: str) -> str:
    return path.replace("{webhook_id}", "wh_0123456789abcdef").replace("{dead_letter_id}", "1-0")


@pytest.mark.parametrize("op", WEBHOOK_OPS, ids=lambda op: op.operation_id)
def test_every_operation_needs_the_administrator_token(client: TestClient, op: Any) -> None:
    body = {"url": HOOK, "event_types": ["your_turn"]} if op.request else None
    problem(client.request(op.method, url_of(op.path), json=body), 401, "missing_token")
    problem(
        client.request(op.method, url_of(op.path), json=body, headers=auth("not-the-admin")),
        403,
        "admin_required",
    )
    malformed = {"Authorization": "Basic YWRtaW46YWRtaW4="}
    problem(client.request(op.method, url_of(op.path), json=body, headers=malformed), 401, "invalid_token")
    assert op.auth == ("adminToken",)  # the administrator's alone (its one security scheme)


GQL_CALLS = {
    "webhooks": "{ webhooks { webhookId } }",
    "webhook": '{ webhook(webhookId: "wh_0123456789abcdef") { webhookId } }',
    "webhookDeliveries": '{ webhookDeliveries(webhookId: "wh_0123456789abcdef") { pageInfo { endCursor } } }',
    "deadLetters": "{ deadLetters { pageInfo { endCursor } } }",
    "registerWebhook": f'mutation {{ registerWebhook(input: {{url: "{HOOK}", eventTypes: [YOUR_TURN]}}) '
    "{ secret } }",
    "updateWebhook": 'mutation { updateWebhook(input: {webhookId: "wh_0123456789abcdef", enabled: false}) '
    "{ webhookId } }",
    "deleteWebhook": 'mutation { deleteWebhook(input: {webhookId: "wh_0123456789abcdef"}) { webhookId } }',
    "redeliverDeadLetter": 'mutation { redeliverDeadLetter(input: {deadLetterId: "1-0"}) { messageId } }',
}


@pytest.mark.parametrize("name", GQL_CALLS)
def test_every_graphql_field_needs_the_administrator_token(client: TestClient, name: str) -> None:
    assert code_of(gql(client, GQL_CALLS[name])) == "missing_token"
    assert code_of(gql(client, GQL_CALLS[name], "not-the-admin")) == "admin_required"


# --- registering -------------------------------------------------------------------------------------


def test_a_registration_shows_its_secret_once(client: TestClient) -> None:
    response = register(client, description="Acme backend", event_types=["your_turn", "reminder"])
    assert response.status_code == 201, response.text
    body = response.json()
    secret = body["secret"]
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    Webhook(secret).sign("msg_1", datetime.now(UTC), "{}")  # a secret the library reads
    hook = body["webhook"]
    assert hook["webhook_id"].startswith("wh_") and hook["event_types"] == ["your_turn", "reminder"]
    assert (hook["description"], hook["enabled"], hook["url"]) == ("Acme backend", True, HOOK)
    admin = admin_headers(client)
    assert client.get("/v1/admin/webhooks", headers=admin).json() == {"webhooks": [hook]}  # never the secret
    assert client.get(f"/v1/admin/webhooks/{hook['webhook_id']}", headers=admin).json() == hook
    assert secret not in client.get("/v1/admin/webhooks", headers=admin).text


@pytest.mark.parametrize(
    "body",
    [
        {"url": HOOK, "event_types": ["your_hand"]},
        {"url": HOOK, "event_types": []},
        {"url": HOOK, "event_types": ["your_turn", "your_turn"]},
        {"url": HOOK},
        {"url": "ftp://example.com/hooks", "event_types": ["your_turn"]},
        {"url": "https://user:pass@example.com/hooks", "event_types": ["your_turn"]},
        {"url": "https://example.com/hooks#part", "event_types": ["your_turn"]},
        {"url": "https://example.com:99999/hooks", "event_types": ["your_turn"]},
        {"url": "https://example.com/" + "a" * 2000, "event_types": ["your_turn"]},
        {"url": HOOK, "event_types": ["your_turn"], "secret": "whsec_mine"},
        {"url": HOOK, "event_types": ["your_turn"], "enabled": "yes"},
        {"url": HOOK, "event_types": ["your_turn"], "description": "\u202eevil"},
    ],
)
def test_a_bad_registration_is_422(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post("/v1/admin/webhooks", json=body, headers=admin_headers(client))
    problem(response, 422, "invalid_request")
    assert client.get("/v1/admin/webhooks", headers=admin_headers(client)).json() == {"webhooks": []}


def test_a_bad_registration_through_graphql(client: TestClient, admin_token: str) -> None:
    mutation = (
        "mutation($url: String!, $events: [WebhookEventType!]!) "
        "{ registerWebhook(input: {url: $url, eventTypes: $events}) { secret } }"
    )
    assert (
        code_of(gql(client, mutation, admin_token, url="ftp://x/", events=["YOUR_TURN"])) == "invalid_request"
    )
    assert code_of(gql(client, mutation, admin_token, url=HOOK, events=[])) == "invalid_request"
    assert code_of(gql(client, mutation, admin_token, url=HOOK, events=["YOUR_HAND"])) == "invalid_query"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hooks",
        "http://localhost/hooks",
        "http://[::1]/hooks",
        "http://[::ffff:127.0.0.1]/hooks",
        "http://10.0.0.7/hooks",
        "http://192.168.1.20/hooks",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/hooks",
        "http://100.64.0.1/hooks",
        "http://224.0.0.1/hooks",
    ],
)
def test_an_address_that_is_not_public_is_refused_at_registration(
    strict_client: TestClient, url: str
) -> None:
    response = register(strict_client, url)
    problem(response, 422, "webhook_address_refused")
    assert "not a public address" in response.json()["detail"]
    assert (
        strict_client.get("/v1/admin/webhooks", headers=admin_headers(strict_client)).json()["webhooks"] == []
    )


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("172.16.0.1", False),
        ("198.51.100.7", False),  # documentation
        ("240.0.0.1", False),  # reserved
        ("255.255.255.255", False),
        ("fe80::1", False),
        ("fc00::5", False),
        ("ff02::1", False),
        ("::", False),
        ("::ffff:10.0.0.1", False),  # IPv4-mapped
        ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1
        ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
    ],
)
def test_which_addresses_are_public(address: str, public: bool) -> None:
    assert is_public(ipaddress.ip_address(address)) is public


def test_a_name_with_one_private_address_among_public_ones_is_refused() -> None:
    assert checked("example.com", ["8.8.8.8", "8.8.8.8", "8.8.4.4"], False) == ["8.8.8.8", "8.8.4.4"]
    with pytest.raises(DestinationRefused) as refused:
        checked("example.com", ["8.8.8.8", "10.0.0.1"], False)
    assert (refused.value.reason, refused.value.address) == ("address_refused", "10.0.0.1")
    assert checked("example.com", ["8.8.8.8", "10.0.0.1"], True) == ["8.8.8.8", "10.0.0.1"]
    with pytest.raises(DestinationRefused, match="dns_failed"):
        checked("example.com", [], True)


def test_a_host_that_does_not_resolve_is_refused_in_both_apis(
    strict_client: TestClient, admin_token: str
) -> None:
    response = register(strict_client, "https://nowhere.invalid/hooks")
    problem(response, 422, "webhook_address_refused")
    assert "does not resolve" in response.json()["detail"]
    mutation = (
        'mutation { registerWebhook(input: {url: "http://127.0.0.1/x", eventTypes: [INVITATION]}) '
        "{ secret } }"
    )
    assert code_of(gql(strict_client, mutation, admin_token)) == "webhook_address_refused"
    fr = strict_client.post(
        "/v1/admin/webhooks",
        json={"url": "http://127.0.0.1/x", "event_types": ["your_turn"]},
        headers={**admin_headers(strict_client), "Accept-Language": "fr"},
    ).json()
    assert "adresse publique" in fr["detail"] and fr["title"].startswith("L'hôte")


def test_the_endpoint_limit_is_409_until_one_is_deleted(client: TestClient, admin_token: str) -> None:
    ids = [register(client).json()["webhook"]["webhook_id"] for _ in range(3)]
    response = register(client)
    problem(response, 409, "webhook_limit")
    assert response.json()["limit"] == 3
    mutation = (
        f'mutation {{ registerWebhook(input: {{url: "{HOOK}", eventTypes: [REMINDER]}}) {{ secret }} }}'
    )
    assert code_of(gql(client, mutation, admin_token)) == "webhook_limit"
    assert client.delete(f"/v1/admin/webhooks/{ids[0]}", headers=admin_headers(client)).status_code == 204
    assert register(client).status_code == 201


# --- an endpoint and its log -------------------------------------------------------------------------


@pytest.mark.parametrize("wid", ["wh_0123456789abcdef", "nope", "x" * 300, "%00"])
def test_an_unknown_endpoint_is_404_for_every_operation(client: TestClient, wid: str) -> None:
    admin = admin_headers(client)
    problem(client.get(f"/v1/admin/webhooks/{wid}", headers=admin), 404, "webhook_not_found")
    problem(
        client.patch(f"/v1/admin/webhooks/{wid}", json={"enabled": True}, headers=admin),
        404,
        "webhook_not_found",
    )
    problem(client.delete(f"/v1/admin/webhooks/{wid}", headers=admin), 404, "webhook_not_found")
    problem(client.get(f"/v1/admin/webhooks/{wid}/deliveries", headers=admin), 404, "webhook_not_found")


def test_an_unknown_dead_letter_is_404(client: TestClient, admin_token: str) -> None:
    for dead in ("1-0", "nope", "99999999999999999999-0"):
        response = client.post(
            f"/v1/admin/webhooks/dead-letters/{dead}/redeliver", headers=admin_headers(client)
        )
        problem(response, 404, "dead_letter_not_found")
    mutation = 'mutation { redeliverDeadLetter(input: {deadLetterId: "1-0"}) { messageId } }'
    assert code_of(gql(client, mutation, admin_token)) == "dead_letter_not_found"


def test_graphql_unknown_endpoint_codes(client: TestClient, admin_token: str) -> None:
    for name in ("webhook", "webhookDeliveries", "updateWebhook", "deleteWebhook"):
        assert code_of(gql(client, GQL_CALLS[name], admin_token)) == "webhook_not_found", name


def test_pausing_an_endpoint_and_a_bad_update_body(client: TestClient) -> None:
    wid = register(client).json()["webhook"]["webhook_id"]
    admin = admin_headers(client)
    for body in ({}, {"enabled": "no"}, {"enabled": True, "url": HOOK}):
        problem(client.patch(f"/v1/admin/webhooks/{wid}", json=body, headers=admin), 422, "invalid_request")
    assert (
        client.patch(f"/v1/admin/webhooks/{wid}", json={"enabled": False}, headers=admin).json()["enabled"]
        is False
    )
    assert client.get(f"/v1/admin/webhooks/{wid}", headers=admin).json()["enabled"] is False


def test_the_log_and_the_dead_letters_come_a_page_at_a_time_newest_first(
    client: TestClient, admin_token: str
) -> None:
    wid = register(client).json()["webhook"]["webhook_id"]
    store = client.app.state.store  # type: ignore[attr-defined]
    facts = {"game_id": "g", "kind": "rough", "seat": 1, "version": 0}
    body = json.dumps({"type": "your_turn", "timestamp": "2026-01-31T18:04:05.123Z", "data": facts})
    assert client.portal is not None
    for attempt in range(1, 6):
        message = WebhookMessage(wid, f"msg_{attempt}", "your_turn", body)
        client.portal.call(
            functools.partial(store.webhooks.log_delivery, message, attempt, 500, None, 12, 100)
        )
        client.portal.call(
            functools.partial(store.webhooks.add_dead_letter, message, attempt, "status 500", 100)
        )
    admin = admin_headers(client)
    for path, key in (
        (f"/v1/admin/webhooks/{wid}/deliveries", "deliveries"),
        ("/v1/admin/webhooks/dead-letters", "dead_letters"),
    ):
        seen: list[str] = []
        cursor: str | None = None
        for _ in range(4):
            page = client.get(
                path, params={"limit": 2, **({"cursor": cursor} if cursor else {})}, headers=admin
            ).json()
            seen += [entry["message_id"] for entry in page[key]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == [f"msg_{n}" for n in range(5, 0, -1)], path
        problem(client.get(path, params={"cursor": "not-a-cursor"}, headers=admin), 422, "invalid_request")
        for limit in ("0", "101", "x"):
            problem(client.get(path, params={"limit": limit}, headers=admin), 422, "invalid_request")
    query = (
        "query($id: ID!) { webhookDeliveries(webhookId: $id, first: 2) "
        "{ nodes { attempt status } pageInfo { hasNextPage } } }"
    )
    answer = gql(client, query, admin_token, id=wid)["data"]["webhookDeliveries"]
    assert answer["nodes"] == [{"attempt": 5, "status": 500}, {"attempt": 4, "status": 500}]
    assert answer["pageInfo"] == {"hasNextPage": True}
    bad = '{ deadLetters(after: "x") { pageInfo { endCursor } } }'
    assert code_of(gql(client, bad, admin_token)) == "invalid_request"
    assert (
        code_of(gql(client, "{ deadLetters(first: 0) { pageInfo { endCursor } } }", admin_token))
        == "invalid_request"
    )
    # deleting the endpoint deletes its log; its dead letters stay, and redelivering one is 404 (the endpoint)
    assert client.delete(f"/v1/admin/webhooks/{wid}", headers=admin).status_code == 204
    letters = client.get("/v1/admin/webhooks/dead-letters", headers=admin).json()["dead_letters"]
    dead = letters[0]["dead_letter_id"]
    problem(
        client.post(f"/v1/admin/webhooks/dead-letters/{dead}/redeliver", headers=admin),
        404,
        "webhook_not_found",
    )
    assert len(client.get("/v1/admin/webhooks/dead-letters", headers=admin).json()["dead_letters"]) == 5


def test_graphql_parity_register_list_pause_delete(client: TestClient, admin_token: str) -> None:
    mutation = (
        "mutation($url: String!) { registerWebhook(input: {url: $url, "
        'eventTypes: [GAME_FINISHED, INVITATION], description: "b"}) '
        "{ webhook { webhookId eventTypes enabled } secret } }"
    )
    made = gql(client, mutation, admin_token, url=HOOK)["data"]["registerWebhook"]
    wid = made["webhook"]["webhookId"]
    assert made["secret"].startswith("whsec_") and made["webhook"]["eventTypes"] == [
        "GAME_FINISHED",
        "INVITATION",
    ]
    listing = "{ webhooks { webhookId url description createdAt } }"
    listed = gql(client, listing, admin_token)["data"]["webhooks"]
    assert [(h["webhookId"], h["url"], h["description"]) for h in listed] == [(wid, HOOK, "b")]
    pause = "mutation($id: ID!) { updateWebhook(input: {webhookId: $id, enabled: false}) { enabled } }"
    assert gql(client, pause, admin_token, id=wid)["data"]["updateWebhook"] == {"enabled": False}
    rest = client.get(f"/v1/admin/webhooks/{wid}", headers=admin_headers(client)).json()
    assert rest["enabled"] is False and rest["event_types"] == ["game_finished", "invitation"]
    delete = "mutation($id: ID!) { deleteWebhook(input: {webhookId: $id}) { webhookId } }"
    assert gql(client, delete, admin_token, id=wid)["data"] == {"deleteWebhook": {"webhookId": wid}}
    assert gql(client, "{ webhooks { webhookId } }", admin_token)["data"] == {"webhooks": []}


def test_the_graphql_types_have_the_fields_of_the_rest_models() -> None:
    """One shape in both contracts: a field added to a REST model (or a message's data) and not to its
    GraphQL type fails here."""
    pairs = [
        (gt.Webhook, w.Webhook),
        (gt.RegisterWebhookPayload, w.WebhookRegistered),
        (gt.UpdateWebhookPayload, w.Webhook),
        (gt.WebhookDelivery, w.WebhookDelivery),
        (gt.DeadLetter, w.DeadLetter),
        (gt.RedeliverDeadLetterPayload, w.Redelivery),
        (gt.WebhookPayload, w.YourTurnMessage),
        *((gt.DATA_TYPES[event], model) for event, model in w.DATA_OF.items()),
    ]
    for kind, model in pairs:
        assert {f.name for f in dataclasses.fields(kind)} == set(model.model_fields), kind.__name__


# --- the retry schedule -----------------------------------------------------------------------------


def test_the_retry_schedule_setting_is_checked_at_startup() -> None:
    assert retry_delays("5, 30,120") == (5.0, 30.0, 120.0)
    assert sum(Settings().webhook_retry_delays) / 3600 == pytest.approx(22.7, abs=0.1)  # about a day
    for bad in ("soon", "0", "-5", "5,,x", ",".join(["1"] * 31), "604801"):
        with pytest.raises(ValueError):
            Settings(webhook_retry_schedule=bad)


def test_a_retry_waits_between_half_and_all_of_its_delay() -> None:
    rng = random.Random(7)
    waits = [jittered(600, rng) for _ in range(1000)]
    assert all(300 <= w <= 600 for w in waits)
    assert min(waits) < 320 and max(waits) > 580  # spread over the whole range, not one value
