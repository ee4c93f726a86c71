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
BODIES: dict[str, Any] = {
    "/v1/games/{game_id}/actions": {"action": {"type": "pass"}},
    "/v1/tournaments": {"kind": "rough", "entrants": ["bot:random", "bot:heuristic"]},
    "/v1/games": {"kind": "rough"},
    "/v1/games/{game_id}/invitations": {"player_id": "nobody"},
}
# The administrator's operations: any other token is not enough (403 admin_required).
ADMIN_ONLY = {
    (method.upper(), path)
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
    if operation.get("security") == [{"adminToken": []}]
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
    gid = client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4}).json()["game"]["game_id"]
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


KINDS = ("seatToken", "playerToken", "botKey", "adminToken")
DECLARING = sorted(
    (method.upper(), path, kind, {kind: []} in operation["security"])
    for path, operations in DOCUMENT["paths"].items()
    for method, operation in operations.items()
    if operation.get("security")
    for kind in KINDS
)
# What refuses a credential (the kind, or the credential of that kind, is not for this call); any
# other answer (a 404 for a made-up id, a 409, a 422 for an empty body) means it was taken.
REFUSALS = {"missing_token", "invalid_token", "credential_not_accepted", "admin_required", "seat_not_held"}


def credentials_at_a_table(client: TestClient) -> tuple[str, dict[str, str]]:
    """A waiting game whose seat 1 is held by a seat token, seat 2 by a player, seat 3 by a bot
    account; a credential of each kind that holds there (the administrator's holds everywhere)."""
    gid = client.post("/v1/games", json={"kind": "rough", "seats": ["open"] * 4}).json()["game"]["game_id"]
    player = client.post("/v1/players", json={"name": "Ann"}).json()["token"]
    key = client.post("/v1/bots", json={"name": "keyed"}).json()["api_key"]
    seat_token = client.post(f"/v1/games/{gid}/join", json={"seat": 1}).json()["token"]
    for seat, credential in ((2, player), (3, key)):
        joined = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=auth_header(credential))
        assert joined.status_code == 201, joined.text
    admin = client.app.state.settings.admin_token  # type: ignore[attr-defined]
    return gid, {"seatToken": seat_token, "playerToken": player, "botKey": key, "adminToken": admin}


def auth_header(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize(("method", "path", "kind", "declared"), DECLARING)
def test_an_operation_refuses_a_credential_exactly_when_its_security_does_not_name_its_kind(
    client: TestClient, method: str, path: str, kind: str, declared: bool
) -> None:
    gid, credentials = credentials_at_a_table(client)
    url = path.replace("{game_id}", gid).replace("{webhook_id}", "wh_0123456789abcdef")
    url = re.sub(r"\{(\w+)\}", r"some_\1", url.replace("{dead_letter_id}", "1-0"))
    params = {"follow": "false"} if path.endswith(("/events", "/stream")) else None
    body = BODIES.get(path, {} if method in ("POST", "PATCH") else None)
    answer = client.request(method, url, json=body, params=params, headers=auth_header(credentials[kind]))
    code = (
        answer.json().get("code")
        if answer.headers.get("content-type", "").startswith("application/problem")
        else None
    )
    refused = answer.status_code in (401, 403) and code in REFUSALS
    assert refused is not declared, f"{kind} {'declared' if declared else 'undeclared'}: {answer.text[:300]}"
