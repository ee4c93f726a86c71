"""Every operation the OpenAPI document marks as needing a credential refuses a request without one
(401 missing_token) and one with a forged token (401 invalid_token, or 403 where only the
administrator may act). This is the property schemathesis' ``ignored_auth`` check looks for; it is
tested here for every such operation because in a schemathesis run the seat tokens come from links,
which that check takes for generated credentials (schemathesis.toml)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from service.api.rest import openapi_document

DOCUMENT = openapi_document()
GUARDED = sorted(
    (method.upper(), path)
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
    if operation.get("security") and {} not in operation["security"]
)
BODIES: dict[str, Any] = {"/v1/games/{game_id}/actions": {"action": {"type": "pass"}}}
# The administrator's operations: any other token is not enough (403 admin_required).
ADMIN_ONLY = {
    (method.upper(), path)
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
    if {"adminToken": []} in operation.get("security", [])
} | {("DELETE", "/v1/bots/{bot_id}")}


def test_the_document_guards_the_seat_and_bot_operations() -> None:
    assert ("POST", "/v1/games/{game_id}/actions") in GUARDED
    assert ("GET", "/v1/games/{game_id}/actions") in GUARDED
    assert ("GET", "/v1/bots/me") in GUARDED
    assert ("POST", "/v1/admin/webhooks") in GUARDED and ("POST", "/v1/admin/webhooks") in ADMIN_ONLY


@pytest.mark.parametrize(("method", "path"), GUARDED)
def test_a_guarded_operation_refuses_no_token_and_a_forged_one(
    client: TestClient, method: str, path: str
) -> None:
    gid = client.post("/v1/games", json={"game": "rough", "seats": ["open"] * 4}).json()["game"]["id"]
    client.post(f"/v1/games/{gid}/join", json={"seat": 0})
    url = path.replace("{game_id}", gid).replace("{bot_id}", "somebot")
    url = url.replace("{webhook_id}", "wh_0123456789abcdef").replace("{dead_letter_id}", "1-0")
    url = re.sub(r"\{(\w+)\}", r"some_\1", url)  # any other id: well formed (a malformed one is 404 first)
    body = BODIES.get(path, {} if method == "POST" else None)
    missing = client.request(method, url, json=body)
    assert missing.status_code == 401 and missing.json()["code"] == "missing_token", missing.text
    forged = client.request(method, url, json=body, headers={"Authorization": "Bearer forged-token-123"})
    if (method, path) in ADMIN_ONLY:
        assert forged.status_code == 403 and forged.json()["code"] == "admin_required", forged.text
    else:
        assert forged.status_code == 401 and forged.json()["code"] == "invalid_token", forged.text
