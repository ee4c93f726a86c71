"""Path ids in the contract and at the door (issue 32, Spectral's OWASP ruleset): every id in a REST
path is declared with its pattern and length, and a path id no id of ours can be is a 404 with the
resource's own code (``game_not_found`` …) before any handler or store reads it."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from service.api.rest import openapi_document
from service.api.rest.operation import ID_SCHEMA


def test_every_path_parameter_has_a_pattern_and_a_length() -> None:
    document = openapi_document()
    seen = 0
    for path, operations in document["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] != "path":
                    continue
                seen += 1
                schema = parameter["schema"]
                assert "enum" in schema or ("pattern" in schema and "maxLength" in schema), (path, parameter)
                if parameter["name"].endswith("_id") and parameter["name"] != "account_id":
                    assert schema == ID_SCHEMA, (path, parameter)
                    assert "404" in operation["responses"], path
    assert seen > 20


@pytest.mark.parametrize("bad", ["x" * 65, "a.b", "%00", "tab%09id", "é"])
@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/v1/games/{}", "game_not_found"),
        ("/v1/games/{}/view", "game_not_found"),
        ("/v1/tournaments/{}", "tournament_not_found"),
        ("/v1/games/{}/log", "game_not_found"),
    ],
)
def test_a_path_id_that_no_id_can_be_is_404_with_its_resources_code(
    client: TestClient, path: str, code: str, bad: str
) -> None:
    response = client.get(path.format(bad))
    assert response.status_code == 404, response.text
    body = response.json()
    assert body["code"] == code and "is not an id this server gives" in body["detail"]
    assert len(body["detail"]) < 300


def test_a_well_formed_unknown_id_still_gets_its_own_code(client: TestClient) -> None:
    response = client.get("/v1/games/NoSuchGame01")
    assert response.status_code == 404 and response.json()["code"] == "game_not_found"


def test_graphql_reads_meet_the_same_games_layer_check(client: TestClient) -> None:
    """The id check is the games layer's: GraphQL's ``game`` and ``tournament`` answer a 5,000-character
    id as REST does, with the resource's code and a detail that quotes at most 64 characters of it."""
    long = "x" * 5000
    for field, code in (("game", "game_not_found"), ("tournament", "tournament_not_found")):
        query = f"query($id: ID!) {{ {field}({field}Id: $id) {{ {field}Id }} }}"
        answer = client.post("/graphql", json={"query": query, "variables": {"id": long}}).json()
        [error] = answer["errors"]
        assert answer["data"] == {field: None}  # a root lookup is nullable: the rest of `data` stands
        assert error["extensions"]["code"] == code
        assert "is not an id this server gives" in error["message"] and len(error["message"]) < 300
