"""Every GraphQL mutation has a REST twin whose request model validates its arguments: the same rules,
so the same refusal. :data:`TWINS` maps each mutation to its REST operation (by ``operationId``);
the model is the operation's own (``Op.request`` of :data:`service.api.rest.endpoints.OPS`, the one
the OpenAPI document gives), never restated here.

Checked against the served schema: every mutation is in the table; each argument is a field of the
twin's model, a path parameter of the twin, or said here (the Idempotency-Key header); and, for each
mutation with a model, a value the model refuses gets the same answer from both APIs (status, code
and the model's ``errors``: where, what kind, what it says), the model's ``model_validate`` having
run in both. The answers are compared as :mod:`test_one_move_path` compares the move's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gql_select import camel, served
from graphql import GraphQLInputObjectType, GraphQLNonNull
from pydantic import BaseModel
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth, seated
from test_one_move_path import told

from schema.games import NewGame
from service.api.rest.endpoints import OPS
from service.api.rest.operation import PATH_PARAM, Op
from service.base.settings import Settings

HOOK = "http://127.0.0.1:9/hooks"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_allow_private": True})


@dataclass(frozen=True)
class Twin:
    """A mutation's REST twin (``operation``) and a value its model refuses: ``document`` calls the
    mutation with ``variables`` (``$gameId`` and ``$invitationId`` are filled in), ``body`` is the
    REST body with the same value, both sent with ``who``'s credential (none, admin, player, seat).
    ``other`` the input's fields REST takes elsewhere (a header); ``fields_of`` the model whose fields
    the input holds (a tagged union's base); ``why`` says why a mutation has no bad value to send. A
    mutation is named as its twin (``joinGame`` is POST …/join's ``joinGame``)."""

    operation: str
    document: str | None = None
    variables: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=dict)
    who: str = "none"
    other: dict[str, str] = field(default_factory=dict)
    fields_of: tuple[str, type[BaseModel]] | None = None
    why: str = ""


NOT_SHOWN = "no such!"  # refused by every id pattern (a space and a bang)
TWINS: dict[str, Twin] = {
    "createGame": Twin(
        "createGame",
        "mutation($input: CreateGameInput!) { createGame(input: $input) { inviteCode } }",
        {"input": {"kind": "ROUGH", "turnSeconds": 1}},
        {"kind": "rough", "turn_seconds": 1},
        fields_of=("input", NewGame),
    ),
    "joinGame": Twin(
        "joinGame",
        "mutation($gameId: ID!, $seat: Int) { joinGame(input: {gameId: $gameId, seat: $seat}) { token } }",
        {"seat": 9},
        {"seat": 9},
    ),
    "leaveGame": Twin("leaveGame"),
    "rematchGame": Twin(
        "rematchGame",
        "mutation($gameId: ID!, $s: String!) { rematchGame(input: {gameId: $gameId, clientSeed: $s}) "
        "{ token } }",
        {"s": "\u0007"},
        {"client_seed": "\u0007"},
        who="seat",
    ),
    "registerBot": Twin(
        "registerBot",
        "mutation($n: String!) { registerBot(input: {name: $n}) { botId } }",
        {"n": ""},
        {"name": ""},
    ),
    "deleteBot": Twin("deleteBot"),
    "submitAction": Twin(
        "submitAction",
        "mutation($gameId: ID!, $v: Int) { submitAction(input: {gameId: $gameId, action: {pass: true}, "
        "expectedVersion: $v}) { version } }",
        {"v": -1},
        {"action": {"type": "pass"}, "expected_version": -1},
        who="seat",
        other={"idempotencyKey": "the Idempotency-Key header"},
    ),
    "registerWebhook": Twin(
        "registerWebhook",
        "mutation($url: String!) { registerWebhook(input: {url: $url, eventTypes: [YOUR_TURN]}) { secret } }",
        {"url": "ftp://example.com/hooks"},
        {"url": "ftp://example.com/hooks", "event_types": ["your_turn"]},
        who="admin",
    ),
    "updateWebhook": Twin(
        "updateWebhook",
        why="its model's one rule (`enabled` is a boolean) is GraphQL's Boolean!: "
        "test_update_webhook_goes_through_the_model",
    ),
    "deleteWebhook": Twin("deleteWebhook"),
    "redeliverDeadLetter": Twin("redeliverDeadLetter"),
    "createTournament": Twin(
        "createTournament",
        "mutation($e: [String!]!) { createTournament(input: {kind: ROUGH, entrants: $e}) { tournamentId } }",
        {"e": ["nobody", "bot:random"]},
        {"kind": "rough", "entrants": ["nobody", "bot:random"]},
    ),
    "createPlayer": Twin(
        "createPlayer",
        "mutation($l: String!) { createPlayer(input: {locale: $l}) { playerId } }",
        {"l": "x!"},
        {"locale": "x!"},
    ),
    "updateMe": Twin(
        "updateMe",
        "mutation($l: String) { updateMe(input: {locale: $l}) { name } }",
        {"l": "x!"},
        {"locale": "x!"},
        "player",
    ),
    "linkIdentity": Twin(
        "linkIdentity",
        "mutation($t: String!) { linkIdentity(input: {identityToken: $t}) { name } }",
        {"t": ""},
        {"identity_token": ""},
        "player",
    ),
    "deleteMe": Twin("deleteMe"),
    "invitePlayer": Twin(
        "invitePlayer",
        "mutation($gameId: ID!, $p: ID!) { invitePlayer(input: {gameId: $gameId, playerId: $p}) "
        "{ invitationId } }",
        {"p": NOT_SHOWN},
        {"player_id": NOT_SHOWN},
        "seat",
    ),
    "acceptInvitation": Twin(
        "acceptInvitation",
        "mutation($invitationId: ID!, $seat: Int) { acceptInvitation(input: {invitationId: $invitationId, "
        "seat: $seat}) { token } }",
        {"seat": 9},
        {"seat": 9},
        "player",
    ),
    "declineInvitation": Twin("declineInvitation"),
    "blockPlayer": Twin(
        "blockPlayer",
        "mutation($p: ID!) { blockPlayer(input: {playerId: $p}) { playerId } }",
        {"p": NOT_SHOWN},
        {"player_id": NOT_SHOWN},
        "player",
    ),
    "unblockPlayer": Twin("unblockPlayer"),
    "createTicket": Twin(
        "createTicket",
        "mutation($p: String) { createTicket(input: {kind: ROUGH, partyId: $p}) { ticketId } }",
        {"p": ""},
        {"kind": "rough", "party_id": ""},
        "player",
    ),
    "cancelTicket": Twin("cancelTicket"),
    "createParty": Twin(
        "createParty",
        why="its one field is GraphQL's GameKind enum: a kind it does not know never reaches it",
    ),
    "joinParty": Twin(
        "joinParty",
        "mutation($partyId: ID!, $c: String!) { joinParty(input: {partyId: $partyId, inviteCode: $c}) "
        "{ partyId } }",
        {"c": ""},
        {"invite_code": ""},
        "player",
    ),
}
OPERATIONS: dict[str, Op] = {op.operation_id: op for op in OPS}


def op_of(mutation: str) -> Op:
    return OPERATIONS[TWINS[mutation].operation]


def test_every_mutation_has_its_rest_twin_in_the_table() -> None:
    mutations = served().mutation_type
    assert mutations is not None
    assert set(TWINS) == set(mutations.fields)
    for mutation, twin in TWINS.items():
        assert twin.operation in OPERATIONS and twin.operation == mutation, mutation  # one name, both APIs
        assert (twin.document is None) == (op_of(mutation).request is None or bool(twin.why)), mutation


def graphql_names(model: type[BaseModel]) -> set[str]:
    return {camel(name) for name in model.model_fields}


def test_each_argument_of_a_mutation_is_its_twins_body_field_or_path_parameter() -> None:
    """A mutation takes one ``input`` holding nothing its twin does not: the body's fields (its
    model's), the path's ids, and what REST sends otherwise (a header), said in the table."""
    mutations = served().mutation_type
    assert mutations is not None
    for mutation, twin in TWINS.items():
        op = op_of(mutation)
        body = graphql_names(op.request) if op.request is not None else set()
        path = {camel(name) for name in PATH_PARAM.findall(op.path)}
        arguments = mutations.fields[mutation].args
        assert set(arguments) <= {"input"}, mutation
        if not arguments:
            assert not body and not path, mutation
            continue
        held = arguments["input"].type
        kind = held.of_type if isinstance(held, GraphQLNonNull) else held
        assert isinstance(kind, GraphQLInputObjectType)
        if twin.fields_of:
            assert set(kind.fields) == graphql_names(twin.fields_of[1]), mutation
            continue
        for name in kind.fields:
            assert name in body or name in path or name in twin.other, (mutation, name)


@pytest.fixture
def validated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[type[BaseModel]]]:
    """The models whose ``model_validate`` runs, in order (the app runs in this process)."""
    seen: list[type[BaseModel]] = []
    original = BaseModel.model_validate.__func__  # type: ignore[attr-defined]

    def spy(cls: type[BaseModel], *args: Any, **kwargs: Any) -> Any:
        seen.append(cls)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(BaseModel, "model_validate", classmethod(spy))
    yield seen


@dataclass(frozen=True)
class Scene:
    """The credentials and ids a call needs: a running game and a seat token of it, a player."""

    game_id: str
    seat_token: str
    player_token: str
    admin_token: str


def scene(client: TestClient) -> Scene:
    table = seated(client, "rough")
    player = client.post("/v1/players", json={"name": "twin"})
    assert player.status_code == 201, player.text
    admin = admin_headers(client)["Authorization"].split()[1]
    return Scene(table.game_id, table.tokens[0], player.json()["token"], admin)


def credential(made: Scene, who: str) -> dict[str, str]:
    tokens = {"admin": made.admin_token, "player": made.player_token, "seat": made.seat_token}
    return auth(tokens[who]) if who in tokens else {}


def rest(client: TestClient, op: Op, twin: Twin, made: Scene) -> tuple[str, Any]:
    ids = {"game_id": made.game_id, "invitation_id": "NoSuchInvite1", "party_id": "NoSuchParty1"}
    path = op.path.format(**{name: ids[name] for name in PATH_PARAM.findall(op.path)})
    response = client.request(op.method, path, json=twin.body, headers=credential(made, twin.who))
    problem = response.json()
    assert response.headers["content-type"] == "application/problem+json", response.text
    return told(response.status_code, problem["code"], problem.get("errors")), problem.get("errors")


def graphql(client: TestClient, twin: Twin, made: Scene) -> tuple[str, Any]:
    assert twin.document is not None
    variables = dict(twin.variables)
    for name, value in (
        ("gameId", made.game_id),
        ("invitationId", "NoSuchInvite1"),
        ("partyId", "NoSuchParty1"),
    ):
        if f"${name}" in twin.document:
            variables[name] = value
    body = {"query": twin.document, "variables": variables}
    answer = client.post("/graphql", json=body, headers=credential(made, twin.who)).json()
    assert answer.get("errors"), answer
    extensions = answer["errors"][0]["extensions"]
    return told(extensions["status"], extensions["code"], extensions.get("errors")), extensions.get("errors")


REFUSED = [mutation for mutation, twin in TWINS.items() if twin.document is not None]


@pytest.mark.parametrize("mutation", REFUSED)
def test_a_value_the_twins_model_refuses_gets_the_same_refusal_in_both_apis(
    client: TestClient, validated: list[type[BaseModel]], mutation: str
) -> None:
    op, twin = op_of(mutation), TWINS[mutation]
    assert op.request is not None
    made = scene(client)
    validated.clear()
    by_rest = rest(client, op, twin, made)
    assert op.request in validated, f"REST's {op.operation_id} did not validate its {op.request.__name__}"
    validated.clear()
    by_graphql = graphql(client, twin, made)
    assert op.request in validated, f"{mutation} did not validate its arguments with {op.request.__name__}"
    assert by_rest[0] == "422 invalid_request:body"
    assert by_graphql == by_rest


def test_update_webhook_goes_through_the_model(client: TestClient, validated: list[type[BaseModel]]) -> None:
    """updateWebhook's arguments reach UpdateWebhookRequest, whose only rule GraphQL's type says first."""
    op = op_of("updateWebhook")
    assert op.request is not None
    hook = {"url": HOOK, "event_types": ["your_turn"]}
    created = client.post("/v1/admin/webhooks", json=hook, headers=admin_headers(client))
    assert created.status_code == 201, created.text
    validated.clear()
    document = "mutation($id: ID!) { updateWebhook(input: {webhookId: $id, enabled: false}) { enabled } }"
    variables = {"id": created.json()["webhook"]["webhook_id"]}
    answer = client.post(
        "/graphql", json={"query": document, "variables": variables}, headers=admin_headers(client)
    ).json()
    assert answer == {"data": {"updateWebhook": {"enabled": False}}}
    assert op.request in validated
    path = f"/v1/admin/webhooks/{variables['id']}"
    refused = client.patch(path, json={"enabled": "no"}, headers=admin_headers(client))
    assert refused.status_code == 422 and refused.json()["errors"][0]["loc"] == ["enabled"]
