"""Players through GraphQL (issue 23): the same capabilities, rules and codes as REST
(tests/service/test_players.py), the answers compared with REST's. A guest made and changed, a seat
bound to its player by joinGame, the player's games, invitations (and ``myEvents`` resumed across
them), identities, the bounds on creating players and on their streams, and every refusal's code. A
whole match played from ``myEvents`` is tests/service/test_graphql_my_events.py. Real Redis, real HTTP."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from gql_select import as_input, as_json, camel, select, served, without_nulls
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, auth
from test_graphql import CREATE, GAME, JOIN, data, error_code, gql
from test_jwt_identity import AUDIENCE, ISSUER, JwksServer, Keys, keys, sign
from test_player_identity import app_client, jwks_server
from test_players import frames
from websockets.typing import Subprotocol

from schema import players
from schema.graphql_models import GENERATED
from service.api.app import create_app
from service.base.issuers import JwtIssuer
from service.base.settings import Settings

__all__ = ["app_client", "jwks_server", "keys"]  # fixtures of the identity tests, shared

CREATE_PLAYER = """mutation($name: String! = "", $locale: String! = "") {
  createPlayer(input: {name: $name, locale: $locale}) { playerId name token }
}"""
ME = "{ me { __typename playerId name locale guest identity { issuer subject } createdAt invitations } }"
UPDATE_ME = """mutation($name: String, $locale: String) {
  updateMe(input: {name: $name, locale: $locale}) {
    __typename playerId name locale guest identity { issuer subject } createdAt invitations
  }
}"""
LINK = """mutation($t: String!) {
  linkIdentity(input: {identityToken: $t}) { playerId guest identity { issuer subject } }
}"""
DELETE_ME = "mutation { deleteMe { playerId } }"
MY_GAMES = f"""query($status: GameStatus, $after: String, $first: Int! = 50) {{
  myGames(status: $status, after: $after, first: $first) {{
    nodes {{ __typename {select("MyGame")} }} pageInfo {{ hasNextPage endCursor }}
  }}
}}"""
INVITATION = select("Invitation")
INVITE = f"""mutation($id: ID!, $pid: ID!) {{
  invitePlayer(input: {{gameId: $id, playerId: $pid}}) {{ __typename {select("InvitePlayerPayload")} }}
}}"""
MY_INVITATIONS = f"{{ myInvitations {{ __typename {INVITATION} }} }}"
ACCEPT = """mutation($iid: ID!, $seat: Int, $seed: String! = "") {
  acceptInvitation(input: {invitationId: $iid, seat: $seat, clientSeed: $seed}) { gameId seat token started }
}"""
DECLINE = "mutation($iid: ID!) { declineInvitation(input: {invitationId: $iid}) { invitationId } }"
MY_EVENTS = f"subscription($after: String) {{ myEvents(after: $after) {{ {select('PlayerNotice')} }} }}"
GRAPHQL_WS = [Subprotocol("graphql-transport-ws")]


def create_player(client: Any, name: str = "Ada", locale: str = "fr-CA") -> dict[str, Any]:
    made: dict[str, Any] = data(client, CREATE_PLAYER, name=name, locale=locale)["createPlayer"]
    assert made["token"].startswith(f"atp_{made['playerId']}_") and made["name"] == name
    return made


def table(
    client: Any, player: str | None, seat: int, admin: str | None = None, **input: Any
) -> tuple[str, dict[int, str]]:
    """A Le Rough table made through GraphQL, started: ``seat`` joined with the player's credential
    (its "token" is the credential itself), the others with seat tokens; a chosen ``seed`` in
    ``input`` needs the administrator's token, ``admin``."""
    game = {"kind": "ROUGH", "options": {"rough": as_input(FAST_OPTIONS["rough"])}, **input}
    created = data(client, CREATE, admin, input=game)["createGame"]
    gid, code = created["game"]["gameId"], created["inviteCode"]
    tokens: dict[int, str] = {}
    for s in range(4):
        joined = data(client, JOIN, player if s == seat else None, id=gid, seat=s, code=code)["joinGame"]
        tokens[s] = player if s == seat and player else joined["token"]
    return gid, tokens


def order(eid: str) -> tuple[int, ...]:
    """A stream id's place in its stream (``1733140000000-0``: milliseconds, then a sequence)."""
    return tuple(int(part) for part in eid.split("-"))


def codes(body: dict[str, Any]) -> list[str]:
    return [error["extensions"]["code"] for error in body.get("errors") or ()]


def test_a_guest_is_created_read_and_changed_as_rest_shows_it(client: TestClient) -> None:
    ada = create_player(client)
    me = data(client, ME, ada["token"])["me"]
    rest = client.get("/v1/me", headers=auth(ada["token"])).json()
    assert as_json(me) == without_nulls(rest) and me["guest"] is True and me["identity"] is None
    assert me["name"] == "Ada" and me["locale"] == "fr-CA" and me["playerId"] == ada["playerId"]
    changed = data(client, UPDATE_ME, ada["token"], name="Ada L.")["updateMe"]
    assert (changed["name"], changed["locale"]) == ("Ada L.", "fr-CA")  # an omitted field is unchanged
    changed = data(client, UPDATE_ME, ada["token"], locale="en")["updateMe"]
    assert as_json(changed) == without_nulls(client.get("/v1/me", headers=auth(ada["token"])).json())
    assert (changed["name"], changed["locale"]) == ("Ada L.", "en")
    assert data(client, "mutation { createPlayer { name } }")["createPlayer"]["name"] == "Player"
    assert error_code(client, UPDATE_ME, ada["token"], name="") == "invalid_request"  # a name is kept


@pytest.mark.parametrize(
    ("variables", "field"),
    [({"locale": "not a locale"}, "locale"), ({"name": "a\u202eb"}, "name"), ({"name": "x" * 41}, "name")],
)
def test_a_bad_guest_or_change_is_refused_naming_the_field(
    client: TestClient, variables: dict[str, Any], field: str
) -> None:
    for query, token in ((CREATE_PLAYER, None), (UPDATE_ME, create_player(client)["token"])):
        error = gql(client, query, token, **variables)["errors"][0]
        assert error["extensions"]["code"] == "invalid_request", error
        assert error["extensions"]["errors"][0]["loc"][-1] == field


def test_every_player_operation_needs_a_player_credential(client: TestClient) -> None:
    gid, tokens = table(client, create_player(client)["token"], 0)
    seat_token = tokens[1]
    operations: list[tuple[str, dict[str, Any]]] = [
        (ME, {}),
        (UPDATE_ME, {"name": "x"}),
        (LINK, {"t": "x"}),
        (DELETE_ME, {}),
        (MY_GAMES, {}),
        (MY_INVITATIONS, {}),
        (ACCEPT, {"iid": "x"}),
        (DECLINE, {"iid": "x"}),
    ]
    forged = "atp_nobody_" + "x" * 43
    for query, variables in operations:
        assert error_code(client, query, **variables) == "missing_token", query
        for token in (seat_token, forged, "not-a-token"):
            assert error_code(client, query, token, **variables) == "invalid_token", (query, token)
    assert error_code(client, ME, "Basic x") == "invalid_token"
    assert error_code(client, INVITE, id=gid, pid="x") == "missing_token"
    assert error_code(client, INVITE, forged, id=gid, pid="x") == "invalid_token"
    assert error_code(client, INVITE, seat_token, id="nope", pid="x") == "game_not_found"
    # a subscription refused before it starts: one `error` message for it (graphql-transport-ws)
    for token, code in ((None, "missing_token"), (seat_token, "invalid_token")):
        with client.websocket_connect("/graphql", subprotocols=GRAPHQL_WS) as ws:
            ws.send_json(
                {"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"} if token else {}}
            )
            assert ws.receive_json()["type"] == "connection_ack"
            ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": MY_EVENTS}})
            message = ws.receive_json()
        assert message["type"] == "error" and codes({"errors": message["payload"]}) == [code], message


def test_join_seat_with_a_player_credential_binds_the_seat_to_the_player(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"player_max_games": 2}))) as client:
        ada = create_player(client)
        gid = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        assert data(client, JOIN, ada["token"], id=gid, seat=1)["joinGame"]["seat"] == 1
        again = gql(client, JOIN, ada["token"], id=gid, seat=2)["errors"][0]["extensions"]
        assert again["code"] == "already_seated" and again["seat"] == 1
        listed = data(client, MY_GAMES, ada["token"])["myGames"]["nodes"]
        assert [(g["gameId"], g["seat"]) for g in listed] == [(gid, 1)]  # refused, still listed
        seats = data(client, "query($id: ID!) { game(gameId: $id) { seats { name filled } } }", id=gid)
        assert seats["game"]["seats"][1] == {"name": "Ada", "filled": True}  # the player's own name
        view = data(client, "query($id: ID!) { view(gameId: $id) { seat } }", ada["token"], id=gid)
        assert view["view"]["seat"] == 1  # the player's credential holds the seat: no seat token needed
        second = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        data(client, JOIN, ada["token"], id=second)
        third = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        full = gql(client, JOIN, ada["token"], id=third)["errors"][0]["extensions"]
        assert full["code"] == "too_many_games" and full["retry_after"] == 60 and full["limit"] == 2
        assert error_code(client, JOIN, "atb_not_a_bot_key", id=third) == "invalid_token"  # as REST
        register = 'mutation { registerBot(input: {name: "b"}) { apiKey } }'
        key = data(client, register)["registerBot"]["apiKey"]
        data(client, JOIN, key, id=third, seat=3)  # a bot's API key makes the seat the bot's, as in REST
        held = client.get("/v1/bots/me", headers=auth(key)).json()["seats"]
        assert [(s["game_id"], s["seat"]) for s in held] == [(third, 3)]


def test_my_games_pages_with_your_turn_first_as_rest_lists_them(client: TestClient) -> None:
    token = create_player(client)["token"]
    for _ in range(5):
        gid = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        data(client, JOIN, token, id=gid)
    started = {table(client, token, seat)[0]: seat for seat in range(4)}
    to_act = {gid: data(client, GAME, id=gid)["game"]["toAct"] for gid in started}
    seen: list[dict[str, Any]] = []
    after = None
    for _ in range(10):
        page = data(client, MY_GAMES, token, after=after, first=2)["myGames"]
        seen += page["nodes"]
        if (after := page["pageInfo"]["endCursor"]) is None:
            assert page["pageInfo"]["hasNextPage"] is False
            break
    rest = client.get("/v1/me/games?limit=100", headers=auth(token)).json()["games"]
    assert [as_json(g) for g in seen] == [without_nulls(g) for g in rest] and len(seen) == 9
    assert {g["gameId"] for g in seen if g["yourTurn"]} == {g for g, s in started.items() if to_act[g] == s}
    turns = [g["yourTurn"] for g in seen]
    assert turns == sorted(turns, reverse=True)  # your turn first
    active = data(client, MY_GAMES, token, status="ACTIVE")["myGames"]["nodes"]
    assert {g["gameId"] for g in active} == set(started)
    assert error_code(client, MY_GAMES, token, status="OVER") == "invalid_query"  # not a GameStatus
    error = gql(client, MY_GAMES, token, after="m1.xyz")["errors"][0]["extensions"]
    assert error["code"] == "invalid_request" and error["errors"][0]["loc"] == ["after"]
    for first in (0, 101):
        assert error_code(client, MY_GAMES, token, first=first) == "invalid_request"


@contextmanager
def my_events(ws_client: TestClient, token: str, after: str | None = None) -> Iterator[Any]:
    """``myEvents`` on a TestClient WebSocket, subscribed."""
    with ws_client.websocket_connect("/graphql", subprotocols=GRAPHQL_WS) as ws:
        ws.send_json({"type": "connection_init", "payload": {"Authorization": f"Bearer {token}"}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json(
            {"id": "1", "type": "subscribe", "payload": {"query": MY_EVENTS, "variables": {"after": after}}}
        )
        yield ws


def notice_of(message: dict[str, Any]) -> dict[str, Any]:
    assert message["type"] == "next" and "errors" not in message["payload"], message
    notice: dict[str, Any] = message["payload"]["data"]["myEvents"]
    return notice


def test_invitations_through_graphql(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"invitations_per_player": 2}))) as client:
        host, friend, third = (create_player(client, name) for name in ("Host", "Friend", "Third"))
        created = data(client, CREATE, input={"kind": "ROUGH", "listed": False})["createGame"]
        gid = created["game"]["gameId"]
        data(client, JOIN, host["token"], id=gid, seat=0, code=created["inviteCode"])
        sent = data(client, INVITE, host["token"], id=gid, pid=friend["playerId"])["invitePlayer"]
        assert (sent["fromPlayerId"], sent["fromName"], sent["gameId"], sent["kind"]) == (
            host["playerId"], "Host", gid, "ROUGH"
        )  # fmt: skip
        assert as_json(data(client, MY_INVITATIONS, friend["token"])["myInvitations"]) == [as_json(sent)]
        rest = client.get("/v1/me/invitations", headers=auth(friend["token"])).json()["invitations"]
        assert [as_json(sent)] == rest
        with my_events(client, friend["token"]) as ws:
            streamed = notice_of(ws.receive_json())
        assert streamed["type"] == "INVITATION" and streamed["invitationId"] == sent["invitationId"]
        assert (streamed["fromName"], streamed["kind"], streamed["gameId"]) == ("Host", "ROUGH", gid)
        ((rest_id, rest_notice),) = frames(
            client.get("/v1/me/events?follow=false", headers=auth(friend["token"])).text
        )
        assert as_json(streamed) == rest_notice and rest_id == streamed["id"]
        players.PlayerStreamFrame.model_validate(rest_notice)  # the REST contract holds the notice too
        taken = gql(client, ACCEPT, friend["token"], iid=sent["invitationId"], seat=0)
        assert codes(taken) == ["seat_taken"]  # the invitation is used up even so
        sent = data(client, INVITE, host["token"], id=gid, pid=friend["playerId"])["invitePlayer"]
        for variables in ({"seat": 9}, {"seed": "\u00e9"}):
            refused = gql(client, ACCEPT, friend["token"], iid=sent["invitationId"], **variables)
            assert codes(refused) == ["invalid_request"], refused
        joined = data(client, ACCEPT, friend["token"], iid=sent["invitationId"], seed="mine")
        assert joined["acceptInvitation"]["gameId"] == gid and joined["acceptInvitation"]["seat"] == 1
        assert joined["acceptInvitation"]["token"]  # a private table, joined without its code
        assert data(client, MY_INVITATIONS, friend["token"])["myInvitations"] == []
        again = gql(client, ACCEPT, friend["token"], iid=sent["invitationId"])
        assert codes(again) == ["invitation_not_found"]

        def invite(pid: str, token: str = host["token"], game: str = gid) -> list[str]:
            return codes(gql(client, INVITE, token, id=game, pid=pid))

        assert invite(friend["playerId"]) == ["already_seated"]
        assert invite("nobody") == ["player_not_found"]
        bad = gql(client, INVITE, host["token"], id=gid, pid="not an id!")["errors"][0]["extensions"]
        assert bad["code"] == "invalid_request" and bad["errors"][0]["loc"][-1] == "player_id"
        assert invite(third["playerId"]) == []

        def another_table() -> tuple[str, str]:
            """Another inviter, seated at a table of their own: (their token, the table)."""
            inviter = create_player(client, "Other")["token"]
            game = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
            data(client, JOIN, inviter, id=game, seat=0)
            return inviter, game

        other, other_game = another_table()
        assert invite(third["playerId"], token=other, game=other_game) == []
        last, last_game = another_table()  # two inviters, two invitations: the cap
        full = gql(client, INVITE, last, id=last_game, pid=third["playerId"])["errors"][0]["extensions"]
        assert full["code"] == "too_many_invitations" and full["retry_after"] == 3600
        assert invite(third["playerId"], token=third["token"]) == ["seat_not_held"]  # holds no seat there
        held = data(client, MY_INVITATIONS, third["token"])["myInvitations"]
        # resumed after the first notice: the second next, then the one sent meanwhile, nothing twice
        with my_events(client, third["token"]) as ws:
            first, second = notice_of(ws.receive_json()), notice_of(ws.receive_json())
        assert [first["invitationId"], second["invitationId"]] == [i["invitationId"] for i in held]
        assert data(client, DECLINE, third["token"], iid=held[0]["invitationId"]) == {
            "declineInvitation": {"invitationId": held[0]["invitationId"]}
        }
        assert codes(gql(client, DECLINE, third["token"], iid=held[0]["invitationId"])) == [
            "invitation_not_found"
        ]
        with my_events(client, third["token"], after=first["id"]) as ws:
            assert notice_of(ws.receive_json()) == second
            latest = data(client, INVITE, host["token"], id=gid, pid=third["playerId"])["invitePlayer"]
            resent = notice_of(ws.receive_json())
        assert resent["invitationId"] == latest["invitationId"] and order(resent["id"]) > order(second["id"])
        running, seats = table(client, host["token"], 0)
        assert invite(third["playerId"], game=running) == ["game_not_waiting"]
        assert invite(third["playerId"], token=seats[1], game=running) == ["invitation_needs_player"]


def test_an_identity_through_graphql(app_client: TestClient, keys: Keys) -> None:
    jwt = sign(keys.rsa, sub="ada", name="Ada L.")
    me = data(app_client, ME, jwt)["me"]
    assert (
        me["guest"] is False
        and me["identity"] == {"issuer": ISSUER, "subject": "ada"}
        and me["name"] == "Ada L."
    )
    assert error_code(app_client, ME, sign(keys.rsa, exp=1)) == "token_expired"
    assert error_code(app_client, ME, sign(keys.rsa, aud="someone-else")) == "token_wrong_audience"
    assert error_code(app_client, ME, sign(keys.rsa_forger, sub="ada")) == "token_bad_signature"
    guest = create_player(app_client, "Guest")
    linked = data(app_client, LINK, guest["token"], t=sign(keys.rsa, sub="linked"))["linkIdentity"]
    assert linked == {
        "playerId": guest["playerId"],
        "guest": False,
        "identity": {"issuer": ISSUER, "subject": "linked"},
    }
    assert data(app_client, ME, sign(keys.ec, "ES256", sub="linked"))["me"]["playerId"] == guest["playerId"]
    other = create_player(app_client)["token"]
    assert error_code(app_client, LINK, other, t=jwt) == "identity_taken"  # ada has a player of her own
    assert error_code(app_client, LINK, guest["token"], t=sign(keys.rsa, sub="new")) == "identity_taken"
    assert error_code(app_client, LINK, other, t="abc") == "invalid_token"
    refused = gql(app_client, LINK, other, t="")["errors"][0]["extensions"]
    assert refused["code"] == "invalid_request" and refused["errors"][0]["loc"] == ["identity_token"]
    with my_events(app_client, sign(keys.rsa, exp=1)) as ws:
        message = ws.receive_json()
    assert message["type"] == "error" and codes({"errors": message["payload"]}) == ["token_expired"]


def test_an_identity_provider_down_is_a_retry_after(settings: Settings, keys: Keys) -> None:
    down = JwksServer()
    down.start()
    down.stop()  # nothing listens at its address any more
    trusted = JwtIssuer.model_validate({"issuer": ISSUER, "audience": AUDIENCE, "jwks_url": down.url})
    with TestClient(create_app(settings.model_copy(update={"jwt_issuers": [trusted]}))) as client:
        refused = gql(client, ME, sign(keys.rsa))["errors"][0]["extensions"]
    assert refused["code"] == "identity_provider_unavailable" and refused["retry_after"] > 0


def test_create_player_and_my_events_are_bounded(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"rate_create_player_per_address": "2/hour", "rate_open_stream_per_address": "2/hour",
                "streams_per_client": 1}
    )  # fmt: skip
    with TestClient(create_app(limited)) as client:
        token = create_player(client)["token"]
        host = create_player(client)["token"]
        refused = gql(client, CREATE_PLAYER)["errors"][0]["extensions"]
        assert refused["code"] == "rate_limited" and refused["retry_after"] > 0
        gid = data(client, CREATE, input={"kind": "ROUGH"})["createGame"]["game"]["gameId"]
        data(client, JOIN, host, id=gid)
        pid = data(client, ME, token)["me"]["playerId"]
        with my_events(client, token) as first:
            data(client, INVITE, host, id=gid, pid=pid)
            assert notice_of(first.receive_json())["type"] == "INVITATION"  # the stream holds its slot
            with my_events(client, token) as second:
                message = second.receive_json()
            assert message["type"] == "error" and codes({"errors": message["payload"]}) == [
                "too_many_streams"
            ]
        with my_events(client, token) as third:  # the third stream of the address this hour
            message = third.receive_json()
        assert message["type"] == "error" and codes({"errors": message["payload"]}) == ["rate_limited"]


def test_every_rest_field_of_a_player_body_is_a_graphql_field() -> None:
    schema = served()
    notices = typing.get_args(typing.get_args(players.PlayerNotice)[0])
    for model in (players.PlayerCreated, players.Me, players.Identity, players.MyGame, players.Invitation,
                  *notices):  # fmt: skip
        graphql = schema.get_type(GENERATED[model].__strawberry_definition__.name)  # type: ignore[attr-defined]
        assert {camel(name) for name in model.model_fields} == set(graphql.fields), model  # type: ignore[union-attr]
