"""Problems in English or French by ``Accept-Language``: the negotiation (q-values, lookup), the
``Content-Language`` and ``Vary`` of the answers, and French problems from REST, GraphQL (HTTP and
WebSocket), the engine, a validator and the refusals below the app."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from limits import parse
from starlette.testclient import TestClient
from svc_helpers import auth, create, seated

import engine
from schema.display import unsafe_character
from service.api.problems import unsafe_message
from service.api.ratelimit import limit_text
from service.api.rest.streams import lagged_notice
from service.base import languages
from service.base.problems import ProblemError
from service.base.texts import Text
from service.runtime.http_server import refusal_bytes
from service.store.fanout import StreamClosing, StreamLagged

FR = {"Accept-Language": "fr"}


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "en"),
        ("", "en"),
        ("fr", "fr"),
        ("FR", "fr"),
        ("fr-CA", "fr"),
        ("fr-CA,fr;q=0.9,en;q=0.8", "fr"),
        ("en-GB,fr;q=0.9", "en"),  # a prefix match of weight 1 beats an exact match of weight 0.9
        ("fr-CA,en;q=0.8", "fr"),
        ("en;q=0.5, fr", "fr"),  # weights, not the order written
        ("en, fr", "en"),  # equal weights: the order written
        ("de, fr;q=0.2", "fr"),  # an unknown language is skipped
        ("de", "en"),
        ("fr;q=0", "en"),  # q=0: not acceptable
        ("fr;q=0, *", "en"),
        ("*", "en"),
        ("fr; Q = 0.7 , en;q=0.6", "fr"),
        ("zh-Hant-TW, fr-BE;q=0.5", "fr"),
        ("fr;q=1.5, en", "en"),  # an invalid weight: the item is ignored
        ("fr;q=abc", "en"),
        ("français", "en"),
        (",,,;;;", "en"),
        ("en-US;q=0.001, fr;q=0.0001", "en"),  # a weight has at most three decimals
    ],
)
def test_the_language_is_negotiated_from_accept_language(header: str | None, expected: str) -> None:
    assert languages.negotiate(header) == expected


@given(st.text(max_size=200))
def test_any_header_value_gives_a_language_and_never_an_error(header: str) -> None:
    assert languages.negotiate(header) in languages.LANGUAGES


def test_a_long_accept_language_is_read_up_to_its_limit() -> None:
    assert languages.negotiate(",".join(["de"] * 40) + ",fr") == "en"
    assert languages.negotiate(",".join(["de"] * 20) + ",fr") == "fr"


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    return body


def test_a_rest_problem_is_in_english_by_default_and_says_so(client: TestClient) -> None:
    response = client.get("/v1/games/nope")
    body = problem(response, 404, "game_not_found")
    assert body["title"] == "No such game"
    assert body["detail"] == "There is no game 'nope' (it may have expired)."
    assert response.headers["content-language"] == "en"
    assert "Accept-Language" in response.headers["vary"]


def test_a_rest_problem_is_in_french_when_asked(client: TestClient) -> None:
    response = client.get("/v1/games/nope", headers={"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.8"})
    body = problem(response, 404, "game_not_found")
    assert body["title"] == "Partie introuvable"
    assert body["detail"] == "Il n'y a pas de partie 'nope' (elle a peut-être expiré)."
    assert body["type"] == "/problems/game_not_found" and body["instance"].startswith("urn:atout:")
    assert response.headers["content-language"] == "fr"
    assert "Accept-Language" in response.headers["vary"]


def test_an_unknown_language_is_answered_in_english(client: TestClient) -> None:
    response = client.get("/v1/games/nope", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert problem(response, 404, "game_not_found")["title"] == "No such game"
    assert response.headers["content-language"] == "en"


def test_the_engine_refusal_is_said_in_french_with_its_rule_and_reason_unchanged(client: TestClient) -> None:
    table = seated(client, "rough")
    seat = table.game()["to_act"]
    other = (seat + 1) % 4
    action = table.legal(seat)[0]
    headers = {**auth(table.tokens[other]), **FR}
    response = client.post(f"/v1/games/{table.game_id}/actions", json={"action": action}, headers=headers)
    body = problem(response, 409, "not_your_turn")
    assert body["title"] == "Ce n'est pas votre tour"
    assert body["detail"] == f"c'est au tour du siège {seat}, pas du siège {other}"
    assert body["reason"] == "not_your_turn" and body["rule"] == "ALL-1"
    english = table.act(other, action).json()
    assert english["detail"] == f"it is seat {seat}'s turn, not seat {other}'s"


def test_a_validation_problem_is_in_french(client: TestClient) -> None:
    game = create(client, "rough")["game"]["game_id"]
    long = client.post(f"/v1/games/{game}/join", json={"name": "x" * 41}, headers=FR)
    body = problem(long, 422, "invalid_request")
    assert body["detail"] == "name : La chaîne doit compter au plus 40 caractère(s)"
    assert body["errors"][0]["type"] == "string_too_long"  # for programs: pydantic's own
    unsafe = client.post(f"/v1/games/{game}/join", json={"name": "a\u202eb"}, headers=FR)
    assert problem(unsafe, 422, "invalid_request")["detail"] == (
        "name : ne doit pas contenir une commande bidirectionnelle (U+202E) à la position 2"
    )


def test_every_kind_of_unsafe_name_is_said_in_french() -> None:

    for char in ("\x00", "\u202e", "\u200b", "\ue000"):
        reason = unsafe_character(f"ab{char}")
        assert reason is not None
        text = unsafe_message(reason)
        assert text.render("en") == f"must not contain {reason}"
        french = text.render("fr")
        assert french.startswith("ne doit pas contenir ") and french.endswith(") à la position 3"), french
        assert all(word not in french for word in ("character", "control", "code point")), french


def test_a_graphql_error_is_in_french_with_the_same_code(client: TestClient) -> None:
    query = '{ view(gameId: "nope") { version } }'
    response = client.post("/graphql", json={"query": query}, headers=FR)
    error = response.json()["errors"][0]
    assert error["message"] == "Il n'y a pas de partie 'nope' (elle a peut-être expiré)."
    assert error["extensions"]["code"] == "game_not_found"
    assert response.headers["content-language"] == "fr" and "Accept-Language" in response.headers["vary"]
    english = client.post("/graphql", json={"query": query}).json()["errors"][0]
    assert english["message"] == "There is no game 'nope' (it may have expired)."
    assert english["extensions"]["code"] == "game_not_found"


def test_a_graphql_answer_without_errors_names_no_language(client: TestClient) -> None:
    response = client.post("/graphql", json={"query": "{ rules { kind } }"}, headers=FR)
    assert response.status_code == 200 and "errors" not in response.json()
    assert "content-language" not in response.headers


def test_a_graphql_refusal_of_the_document_is_in_french(client: TestClient) -> None:
    deep = "{ rules " + "{ id " * 20 + "}" * 21
    error = client.post("/graphql", json={"query": deep}, headers=FR).json()["errors"][0]
    assert error["extensions"]["code"] == "query_too_complex" and error["extensions"]["max"] == 15
    assert error["message"] == (  # phrases nested in the sentence are French too
        "La requête : profondeur 20, au-delà de la limite de 15 (ATOUT_GRAPHQL_MAX_DEPTH) : "
        "imbriquez moins de sélections."
    )
    syntax = client.post("/graphql", json={"query": "{ rules { id "}, headers=FR).json()["errors"][0]
    assert syntax["message"] == "Syntax Error: Expected Name, found <EOF>. (ligne 1, colonne 14)"  # quoted


def test_a_subscription_refused_over_websocket_is_in_the_upgrade_language(client: TestClient) -> None:
    query = 'subscription { gameEvents(gameId: "nope") { id } }'
    with client.websocket_connect("/graphql", subprotocols=["graphql-transport-ws"], headers=FR) as ws:
        ws.send_json({"type": "connection_init", "payload": {}})
        assert ws.receive_json()["type"] == "connection_ack"
        ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": query}})
        message = ws.receive_json()
    assert message["type"] in {"error", "next"}
    errors = message["payload"] if message["type"] == "error" else message["payload"]["errors"]
    assert errors[0]["message"] == "Il n'y a pas de partie 'nope' (elle a peut-être expiré)."
    assert errors[0]["extensions"]["code"] == "game_not_found"


def test_a_graphql_transport_refusal_is_a_french_problem(client: TestClient) -> None:
    response = client.put("/graphql", json={"query": "{ rules { id } }"}, headers=FR)
    body = problem(response, 405, "method_not_allowed")
    assert body["title"] == "Méthode non autorisée" and response.headers["content-language"] == "fr"


def test_the_edge_refusals_are_in_french_too(client: TestClient) -> None:
    response = client.post("/v1/games", content=b"x", headers={"Content-Type": "text/plain", **FR})
    body = problem(response, 415, "unsupported_media_type")
    assert (
        body["detail"]
        == "Envoyez le corps en JSON avec `Content-Type: application/json` (reçu : text/plain)."
    )


def test_the_refusals_below_the_app_are_english_and_say_so() -> None:
    error = ProblemError(
        "header_too_large",
        Text("The request line and header are larger than {limit} bytes; send less.", limit=8),
    )
    token = languages.language.set(languages.FRENCH)
    try:
        raw = refusal_bytes(error)
    finally:
        languages.language.reset(token)
    assert b"content-language: en\r\n" in raw
    assert raw.endswith(b'"detail": "The request line and header are larger than 8 bytes; send less."}')


def test_a_problem_renders_in_the_language_of_the_moment_it_is_answered() -> None:
    error = ProblemError("seat_taken", Text("Seat {seat} is taken; join another or omit `seat`.", seat=2))
    assert str(error) == "Seat 2 is taken; join another or omit `seat`."  # logs: English
    token = languages.language.set(languages.FRENCH)
    try:
        assert error.to_dict()["title"] == "Ce siège est déjà pris"
        assert error.to_dict()["detail"] == "Le siège 2 est pris ; rejoignez-en un autre ou omettez `seat`."
    finally:
        languages.language.reset(token)
    assert error.to_dict()["detail"] == "Seat 2 is taken; join another or omit `seat`."


def test_engine_errors_keep_their_english_and_carry_template_and_values() -> None:
    m = engine.new_match("rough", seed=1)
    assert m.to_act is not None
    with pytest.raises(engine.IllegalAction) as caught:
        engine.apply(m, (m.to_act + 1) % 4, {"type": "pass"})
    error = caught.value
    assert str(error) == f"it is seat {m.to_act}'s turn, not seat {(m.to_act + 1) % 4}'s"
    assert error.template.format(**error.params) == str(error)
    french = Text(error.template, **error.params).render("fr")
    assert french == f"c'est au tour du siège {m.to_act}, pas du siège {(m.to_act + 1) % 4}"
    import pickle

    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.rule, again.code, again.params) == (
        str(error),
        error.rule,
        error.code,
        error.params,
    )


@pytest.mark.parametrize("limit", ["600/minute", "10/second", "300/2 hours", "5/day", "1/month", "2/year"])
def test_a_rate_limit_is_said_as_limits_prints_it(limit: str) -> None:
    item = parse(limit)
    assert limit_text(item).render("en") == str(item)
    assert " par " in limit_text(item).render("fr")


def test_stream_notices_are_in_the_language_of_the_stream() -> None:
    token = languages.language.set(languages.FRENCH)
    try:
        lagged = lagged_notice(StreamLagged("12-0"))
        closing = lagged_notice(StreamClosing("12-0"))
    finally:
        languages.language.reset(token)
    assert lagged["code"] == "stream_lagged" and lagged["detail"].startswith("Ce flux a pris trop de retard")
    assert closing["code"] == "server_closing" and closing["detail"].startswith("Ce serveur s'arrête")
    assert lagged_notice(StreamLagged("12-0"))["detail"].startswith("This stream fell too far behind")
