"""GraphQL: the same capabilities, semantics and error codes as REST; limits; subscriptions."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gql_select import as_action_input, as_input, as_json, camel, select, without_nulls
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, admin_headers, auth, fill

import engine
from schema.views.events import model_name_of
from service.api.app import create_app
from service.base.settings import Settings

CREATE = """mutation($input: CreateGameInput!) {
  createGame(input: $input) {
    game { gameId players status version seats { seat seatKind filled } } inviteCode
  }
}"""
JOIN = """mutation($id: ID!, $seat: Int, $code: String) {
  joinGame(input: {gameId: $id, seat: $seat, inviteCode: $code}) { gameId seat token started }
}"""
GAME = "query($id: ID!) { game(gameId: $id) { gameId status version toAct winners seed seats { seatKind } } }"
VIEW = f"query($id: ID!) {{ view(gameId: $id) {{ seat version status view {{ {select('GameView')} }} }} }}"
LEGAL = f"""query($id: ID!) {{
  legalActions(gameId: $id) {{ seat version toAct legalActions {{ {select("LegalAction")} }} }}
}}"""
SUBMIT = f"""mutation($id: ID!, $action: ActionInput!, $v: Int, $key: String) {{
  submitAction(input: {{gameId: $id, action: $action, expectedVersion: $v, idempotencyKey: $key}}) {{
    version seat toAct status winners replayed
    action {{ {select("GameAction")} }} events {{ {select("GameEvent")} }}
  }}
}}"""


def legal_actions(client: TestClient, token: str, gid: str) -> list[dict[str, Any]]:
    """The seat's legal actions in REST's JSON form, read through GraphQL."""
    found: list[dict[str, Any]] = as_json(data(client, LEGAL, token, id=gid)["legalActions"]["legalActions"])
    return found


def submit(
    client: TestClient, token: str, gid: str, action: dict[str, Any], **variables: Any
) -> dict[str, Any]:
    result: dict[str, Any] = data(client, SUBMIT, token, id=gid, action=as_action_input(action), **variables)
    return result["submitAction"]


def gql(client: TestClient, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
    response = client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=auth(token) if token else {}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def data(client: TestClient, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
    body = gql(client, query, token, **variables)
    assert "errors" not in body, body
    result: dict[str, Any] = body["data"]
    return result


def error_code(client: TestClient, query: str, token: str | None = None, **variables: Any) -> str:
    body = gql(client, query, token, **variables)
    assert body.get("errors"), body
    code: str = body["errors"][0]["extensions"]["code"]
    return code


def seated_gql(client: TestClient, game: str, **input: Any) -> tuple[str, dict[int, str]]:
    """A started game, every seat joined; a chosen seed is chosen by the administrator (the only one
    who may, docs/fairness.md)."""
    admin = admin_headers(client)["Authorization"].split()[1] if "seed" in input else None
    if "options" in input:
        input["options"] = {camel(game): as_input(input["options"])}
    created = data(client, CREATE, admin, input={"kind": game.upper(), **input})["createGame"]
    gid = created["game"]["gameId"]
    tokens = {}
    for seat in range(created["game"]["players"]):
        joined = data(client, JOIN, id=gid, seat=seat)["joinGame"]
        tokens[seat] = joined["token"]
    return gid, tokens


RULES = """{ rules { kind name players teams deck options {
  __typename name rule doc
  ... on IntOption { defaultInt allowedInts } ... on BoolOption { defaultBool allowedBools }
} } }"""


def test_rules_and_open_games(client: TestClient) -> None:
    rules = data(client, RULES)["rules"]
    assert {game["kind"] for game in rules} == {"FIVE_HUNDRED", "ROUGH", "EUCHRE5"}
    for game in rules:  # the same rules as GET /v1/rules and the engine, typed
        known = engine.games()[game["kind"].lower()]
        assert (game["players"], game["teams"], game["deck"]) == (
            known["players"],
            known["teams"],
            known["deck"],
        )
        options = {}
        for option in game["options"]:
            kind = "Bool" if option.pop("__typename") == "BoolOption" else "Int"
            default, allowed = option.pop(f"default{kind}"), option.pop(f"allowed{kind}s")
            name = option.pop("name")
            options[name] = {"default": default, "allowed": allowed, **option}
        assert options == known["options"]
    gid = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
    listed = data(client, "{ games { nodes { gameId status } pageInfo { hasNextPage endCursor } } }")["games"]
    assert [g["gameId"] for g in listed["nodes"]] == [gid] and listed["pageInfo"] == {
        "hasNextPage": False,
        "endCursor": None,
    }


def test_a_full_match_through_graphql(client: TestClient, rng: random.Random) -> None:
    gid, tokens = seated_gql(client, "euchre5", seed="12345678901234", options=FAST_OPTIONS["euchre5"])
    for _ in range(10_000):
        game = data(client, GAME, id=gid)["game"]
        if game["status"] == "FINISHED":
            break
        seat = game["toAct"]
        legal = data(client, LEGAL, tokens[seat], id=gid)["legalActions"]
        assert legal["seat"] == seat and legal["version"] == game["version"]
        action = fill(rng.choice(as_json(legal["legalActions"])), rng)
        result = submit(client, tokens[seat], gid, action, v=game["version"])
        assert result["version"] == game["version"] + 1 and result["replayed"] is False
        assert as_json(result["action"]) == action and result["events"][-1]["type"] == "TURN"
    assert game["status"] == "FINISHED" and game["winners"] and game["seed"] == "12345678901234"
    view = data(client, VIEW, tokens[0], id=gid)["view"]
    assert view["seat"] == 0 and view["view"]["winners"] == game["winners"]


@pytest.mark.parametrize(("game", "rule"), [("five_hundred", "F5-9"), ("rough", "RG-8")])
def test_a_hand_nobody_takes_through_graphql(client: TestClient, game: str, rule: str) -> None:
    """F5-9, RG-8: four passes void the hand. The move's events and the next view's ``lastHand`` say
    ``void`` with no taker nor points (null, not an error for a non-null field), as REST does."""
    gid, tokens = seated_gql(client, game)
    events: list[dict[str, Any]] = []
    for _ in range(4):
        seat = data(client, GAME, id=gid)["game"]["toAct"]
        events += submit(client, tokens[seat], gid, {"type": "pass"})["events"]
    assert next(e for e in events if e["__typename"] == "HandVoid")["rule"] == rule
    scored = next(e for e in events if e["__typename"] == model_name_of(f"{game}_hand_scored"))
    assert scored["void"] is True and scored["points"] is None and scored["handNumber"] == 1
    view = data(client, VIEW, tokens[0], id=gid)["view"]["view"]
    assert view["handNumber"] == 2 and view["lastHand"]["void"] is True and view["lastHand"]["taker"] is None
    rest = client.get(f"/v1/games/{gid}/view", headers=auth(tokens[0])).json()["view"]
    assert as_json(view) == without_nulls(rest)


def test_a_seat_view_and_a_spectator_view(client: TestClient) -> None:
    gid, tokens = seated_gql(client, "rough", seed="4")
    mine = data(client, VIEW, tokens[2], id=gid)["view"]
    assert mine["seat"] == 2 and len(mine["view"]["hand"]) == 8
    spectator = data(client, VIEW, id=gid)["view"]
    assert spectator["seat"] is None and not spectator["view"].get("hand")


def test_replayed_submission_returns_the_first_result(client: TestClient) -> None:
    gid, tokens = seated_gql(client, "rough", seed="8")
    seat = data(client, GAME, id=gid)["game"]["toAct"]
    first = submit(client, tokens[seat], gid, {"type": "pass"}, v=0, key="k1")
    again = submit(client, tokens[seat], gid, {"type": "pass"}, v=0, key="k1")
    assert again == {**first, "replayed": True}


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("no_token", "missing_token"),
        ("forged_token", "invalid_token"),
        ("not_your_turn", "not_your_turn"),
        ("stale", "version_conflict"),
        ("illegal", "illegal_action"),
        ("malformed", "invalid_request"),
        ("false_pass", "invalid_request"),
        ("missing_game", "game_not_found"),
        ("key_reused", "idempotency_key_reused"),
    ],
)
def test_submit_action_errors_carry_the_rest_codes(client: TestClient, case: str, code: str) -> None:
    gid, tokens = seated_gql(client, "rough", seed="3")
    seat = data(client, GAME, id=gid)["game"]["toAct"]
    hand = data(client, VIEW, tokens[seat], id=gid)["view"]["view"]["hand"]
    token: str | None = tokens[seat]
    variables: dict[str, Any] = {"id": gid, "action": as_action_input({"type": "pass"})}
    if case == "no_token":
        token = None
    elif case == "forged_token":
        token = "forged"
    elif case == "not_your_turn":
        token = tokens[(seat + 1) % 4]
    elif case == "stale":
        variables["v"] = 7
    elif case == "illegal":
        variables["action"] = as_action_input({"type": "play", "card": hand[0]})
    elif case == "malformed":
        variables["action"] = as_action_input({"type": "bid", "points": 1000})
    elif case == "false_pass":
        variables["action"] = {"pass": False}
    elif case == "missing_game":
        variables["id"] = "nope"
    elif case == "key_reused":
        data(client, SUBMIT, token, id=gid, action=as_action_input({"type": "pass"}), key="same")
        variables.update(action=as_action_input({"type": "bid", "points": 100}), key="same")
    body = gql(client, SUBMIT, token, **variables)
    assert body["errors"][0]["extensions"]["code"] == code, body
    if code == "version_conflict":
        assert body["errors"][0]["extensions"]["current_version"] == 0
    if code == "illegal_action":
        assert body["errors"][0]["extensions"]["rule"]


def test_create_and_join_errors_carry_the_rest_codes(client: TestClient) -> None:
    assert error_code(client, CREATE, input={"kind": "BRIDGE"}) == "invalid_query"  # not a GameKind
    assert error_code(client, CREATE, input={"kind": "ROUGH", "seats": ["open"] * 5}) == "invalid_seats"
    assert error_code(client, CREATE, input={"kind": "ROUGH", "seed": "x"}) == "invalid_request"
    assert (
        error_code(client, CREATE, input={"kind": "ROUGH", "options": {"rough": {"targetScore": 1}}})
        == "invalid_options"
    )
    # another game's options, even with a value the game would allow: its options are named by game
    other = {"kind": "ROUGH", "options": {"fiveHundred": {"targetScore": 500}}}
    assert error_code(client, CREATE, input=other) == "invalid_options"
    two = {"kind": "ROUGH", "options": {"rough": {}, "fiveHundred": {}}}
    assert "exactly one" in gql(client, CREATE, input=two)["errors"][0]["message"].lower()
    deal = {"dealer": 0, "hands": [["AS"]] * 4, "kitty": []}
    assert error_code(client, CREATE, input={"kind": "ROUGH", "deal": deal}) == "admin_required"
    created = data(client, CREATE, input={"kind": "ROUGH", "listed": False})["createGame"]
    gid = created["game"]["gameId"]
    assert error_code(client, JOIN, id=gid) == "invalid_invite"
    assert data(client, JOIN, id=gid, seat=0, code=created["inviteCode"])["joinGame"]["seat"] == 0
    assert error_code(client, JOIN, id=gid, seat=0, code=created["inviteCode"]) == "seat_taken"
    assert error_code(client, JOIN, id=gid, seat=9, code=created["inviteCode"]) == "invalid_request"
    assert error_code(client, JOIN, id="nope") == "game_not_found"
    assert error_code(client, LEGAL, id=gid) == "missing_token"
    assert error_code(client, GAME, id="nope") == "game_not_found"
    assert error_code(client, "{ games(first: 0) { nodes { gameId } } }") == "invalid_request"
    assert error_code(client, VIEW, "Basic x", id=gid) == "invalid_token"


def test_too_deep_queries_are_refused(settings: Settings) -> None:
    deep = "{ games { nodes { seats { seat } } } }"
    with TestClient(create_app(settings.model_copy(update={"graphql_max_depth": 1}))) as shallow:
        assert "depth" in gql(shallow, deep)["errors"][0]["message"]
        assert "errors" not in gql(shallow, "{ rules { kind } }")


def test_too_costly_queries_are_refused(client: TestClient) -> None:
    fields = " ".join(f"f{i}: seats {{ seat seatKind name filled }}" for i in range(25))
    body = gql(client, "{ games(first: 100) { nodes { " + fields + " } } }")
    assert body["errors"][0]["extensions"]["code"] == "query_too_complex"


def subscribe(ws: Any, gid: str, after: str | None = None, token: str | None = None) -> None:
    ws.send_json(
        {"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"} if token else {}}
    )
    assert ws.receive_json()["type"] == "connection_ack"
    query = (
        "subscription($id: ID!, $after: String) "
        f"{{ gameEvents(gameId: $id, after: $after) {{ {select('EventEnvelope')} }} }}"
    )
    ws.send_json(
        {
            "id": "1",
            "type": "subscribe",
            "payload": {"query": query, "variables": {"id": gid, "after": after}},
        }
    )


def collect(ws: Any, limit: int | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while limit is None or len(events) < limit:
        message = ws.receive_json()
        if message["type"] == "complete":
            break
        assert message["type"] == "next", message
        assert "errors" not in message["payload"], message
        events.append(message["payload"]["data"]["gameEvents"])
    return events


def test_subscription_resumes_after_a_disconnect_without_gap_or_duplicate(
    client: TestClient, rng: random.Random
) -> None:
    gid, tokens = seated_gql(client, "euchre5", seed="99", options=FAST_OPTIONS["euchre5"])
    while True:
        game = data(client, GAME, id=gid)["game"]
        if game["status"] == "FINISHED":
            break
        seat = game["toAct"]
        action = fill(rng.choice(legal_actions(client, tokens[seat], gid)), rng)
        submit(client, tokens[seat], gid, action)
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        subscribe(ws, gid, token=tokens[1])
        everything = collect(ws)
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        subscribe(ws, gid, token=tokens[1])
        head = collect(ws, limit=7)
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        subscribe(ws, gid, after=head[-1]["id"], token=tokens[1])
        tail = collect(ws)
    assert [e["id"] for e in head + tail] == [e["id"] for e in everything]
    events = [envelope["event"] for envelope in everything]  # each envelope: id, version, event
    dealt = [e for e in events if e["__typename"] == "Dealt"]
    assert dealt and {e["seat"] for e in dealt} == {1}
    assert events[-1]["__typename"] == "Turn" and events[-1]["status"].lower() == "finished"
    # an event's GraphQL type is named by its type (CARD_PLAYED: CardPlayed), as its REST schema is
    assert [e["__typename"] for e in events] == [model_name_of(e["type"].lower()) for e in events]
    m = engine.new_match("euchre5", seed=99, options=FAST_OPTIONS["euchre5"])
    assert events[0]["__typename"] == "GameCreated" and m.to_act is not None


@pytest.mark.parametrize(
    ("game", "after", "token", "code"),
    [
        ("nope", None, None, "game_not_found"),
        ("real", "not-an-id", None, "invalid_request"),
        ("real", None, "not-a-seat-token", "invalid_token"),
    ],
)
def test_a_refused_subscription_is_an_error_message_and_the_connection_lives_on(
    client: TestClient, game: str, after: str | None, token: str | None, code: str
) -> None:
    """graphql-transport-ws: a subscription refused before it starts gets one ``error`` message
    for its id (a graphql-ws client's ``error`` callback), not a ``next`` carrying errors and a
    ``complete``; the connection stays open for the next subscription."""
    gid, _ = seated_gql(client, "euchre5", seed="5", options=FAST_OPTIONS["euchre5"])
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        subscribe(ws, gid if game == "real" else game, after=after, token=token)
        message = ws.receive_json()
        assert message["type"] == "error" and message["id"] == "1", message
        assert [e["extensions"]["code"] for e in message["payload"]] == [code]
        if token is not None:
            return  # the connection's token is the one refused: every subscription on it is
        ws.send_json(
            {
                "id": "2",
                "type": "subscribe",
                "payload": {"query": "subscription($id: ID!) "
                                     "{ gameEvents(gameId: $id) { event { __typename } } }",
                            "variables": {"id": gid}},
            }
        )  # fmt: skip
        first = ws.receive_json()
        assert first["type"] == "next" and first["id"] == "2"
        assert first["payload"]["data"]["gameEvents"]["event"]["__typename"] == "GameCreated"


def test_a_refused_bot_subscription_is_an_error_message(client: TestClient) -> None:
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {"Authorization": "Bearer atb_x_y"}})
        assert ws.receive_json()["type"] == "connection_ack"
        query = "subscription { botTurns { id } }"
        ws.send_json({"id": "7", "type": "subscribe", "payload": {"query": query}})
        message = ws.receive_json()
        assert message["type"] == "error" and message["id"] == "7", message
        assert message["payload"][0]["extensions"]["code"] == "invalid_token"


def test_leave_and_rematch_mutations(client: TestClient, rng: random.Random) -> None:
    leave = "mutation($id: ID!) { leaveGame(input: {gameId: $id}) { seat outcome } }"
    rematch = (
        "mutation($id: ID!) { rematchGame(input: {gameId: $id}) "
        "{ game { gameId seats { seatKind } } seat token started } }"
    )
    created = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
    token = data(client, JOIN, id=created, seat=2)["joinGame"]["token"]
    assert data(client, leave, token, id=created)["leaveGame"] == {"seat": 2, "outcome": "LEFT"}
    assert error_code(client, leave, token, id=created) == "invalid_token"
    gid, tokens = seated_gql(client, "euchre5", seed="7", options=FAST_OPTIONS["euchre5"])
    assert error_code(client, rematch, tokens[0], id=gid) == "game_not_finished"
    while True:
        game = data(client, GAME, id=gid)["game"]
        if game["status"] == "FINISHED":
            break
        seat = game["toAct"]
        action = fill(rng.choice(legal_actions(client, tokens[seat], gid)), rng)
        submit(client, tokens[seat], gid, action)
    offered = data(client, rematch, tokens[3], id=gid)["rematchGame"]
    assert offered["seat"] == 3 and offered["started"] is False and offered["token"]
    assert data(client, GAME, id=gid)["game"]["gameId"] == gid


def test_my_turns_subscription_for_a_bot_account(client: TestClient, rng: random.Random) -> None:
    register = 'mutation { registerBot(input: {name: "gq"}) { botId name apiKey } }'
    registered = data(client, register)["registerBot"]
    key = registered["apiKey"]
    assert registered["name"] == "gq" and key.startswith(f"atb_{registered['botId']}_")
    assert error_code(client, 'mutation { registerBot(input: {name: ""}) { botId } }') == "invalid_request"
    admin = admin_headers(client)["Authorization"].split()[1]
    gid = data(client, CREATE, admin, input={"kind": "ROUGH", "seed": "6"})["createGame"]["game"]["gameId"]
    tokens = {}
    for seat in range(4):
        headers = auth(key) if seat == 1 else {}
        tokens[seat] = client.post(f"/v1/games/{gid}/join", json={"seat": seat}, headers=headers).json()[
            "token"
        ]
    while (game := data(client, GAME, id=gid)["game"])["toAct"] != 1:
        seat = game["toAct"]
        action = fill(rng.choice(legal_actions(client, tokens[seat], gid)), rng)
        submit(client, tokens[seat], gid, action)
    query = (
        "subscription { botTurns { id type gameId version ... on YourTurnNotice { seat "
        f"view {{ {select('GameView')} }} legalActions {{ {select('LegalAction')} }} }} }} }}"
    )
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"]) as ws:
        ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": query}})
        message = ws.receive_json()
    notice = message["payload"]["data"]["botTurns"]
    assert notice["type"] == "YOUR_TURN" and notice["gameId"] == gid and notice["seat"] == 1
    assert notice["version"] == game["version"] and notice["view"]["seat"] == 1
    assert notice["legalActions"] == data(client, LEGAL, tokens[1], id=gid)["legalActions"]["legalActions"]
    assert notice["view"] == data(client, VIEW, tokens[1], id=gid)["view"]["view"]
