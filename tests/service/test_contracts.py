"""The committed API contracts match the code: openapi/openapi.json, schema/schema.graphql, and the
table of settings in docs/configuration.md."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from schema.views import EVENT_BODIES
from service.api.graphql import sdl
from service.api.rest import openapi_document
from service.base.settings import (
    END,
    SECTIONS,
    START,
    Settings,
    default_text,
    environment_name,
    markdown_table,
    with_table,
)
from service.base.settings import main as settings_main

ROOT = Path(__file__).resolve().parents[2]


def test_openapi_json_is_committed_and_current() -> None:
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    drifted = "openapi/openapi.json drifted: run `atout openapi -o openapi/openapi.json`"
    assert committed == openapi_document(), drifted


def test_graphql_sdl_is_committed_and_current() -> None:
    committed = (ROOT / "schema" / "schema.graphql").read_text()
    assert committed == sdl(), (
        "schema/schema.graphql drifted: run `python -m service.api.graphql > schema/schema.graphql`"
    )


def test_the_graphql_schema_is_typed_throughout() -> None:
    """No JSON scalar: a codegen user gets a type for the view, every action, event and option; the
    action input is @oneOf; cards are the Card scalar, moments the DateTime scalar."""
    from graphql import GraphQLScalarType, build_schema

    schema = build_schema(sdl())
    scalars = {name for name, kind in schema.type_map.items() if isinstance(kind, GraphQLScalarType)}
    assert scalars == {"Boolean", "Card", "DateTime", "Float", "ID", "Int", "String"}
    assert "input ActionInput @oneOf" in sdl()
    for interface, members in {
        "GameView": {"FiveHundredView", "RoughView", "EuchreView"},
        "GameEvent": {body.__name__ for body in EVENT_BODIES},  # the union: one type per event
        "Event": {body.__name__ for body in EVENT_BODIES},  # the interface each of them implements
    }.items():
        assert {kind.name for kind in schema.get_possible_types(schema.type_map[interface])} == members


def test_the_configuration_page_lists_every_setting_with_its_default() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    table = page.split(START, 1)[1].split(END, 1)[0]
    assert page == with_table(page), "docs/configuration.md's settings drifted: run `make openapi`"
    assert table == markdown_table()
    for name in Settings.model_fields:
        row = f"| `{environment_name(name)}` | {default_text(name)} |"
        assert table.count(row) == 1, f"{name}: no row {row!r} in docs/configuration.md"
    assert set(SECTIONS) <= set(Settings.model_fields), "a section starts at a setting that is gone"


def test_the_settings_generator_refuses_a_page_without_its_markers(tmp_path: Path) -> None:
    """`--doc` rewrites only between the markers: a page without them is left whole (exit 2)."""
    page = tmp_path / "page.md"
    page.write_text("# words someone wrote\n")
    assert settings_main(["--doc", str(page)]) == 2
    assert page.read_text() == "# words someone wrote\n"


def test_the_app_serves_its_openapi_document_and_docs(client: TestClient) -> None:
    assert client.get("/openapi.json").json() == openapi_document()
    assert "swagger-ui" in client.get("/docs").text


def test_every_route_under_v1_is_documented(client: TestClient) -> None:
    paths = openapi_document()["paths"]
    documented = {(path, method.upper()) for path, ops in paths.items() for method in ops}
    routes = {
        (route.path, method)
        for route in client.app.routes  # type: ignore[attr-defined]
        if getattr(route, "path", "").startswith("/v1")
        for method in (route.methods or set()) - {"HEAD"}
    }
    assert routes == documented


def test_every_documented_error_code_is_a_known_problem_code() -> None:
    from service.base.problems import CODES

    for ops in openapi_document()["paths"].values():
        for op in ops.values():
            for status, response in op["responses"].items():
                if "Problem" in response["description"]:
                    codes = [c.strip("` ") for c in response["description"].split(":", 1)[1].split(",")]
                    assert all(CODES[c].status == int(status) for c in codes)


def test_graphiql_is_served(client: TestClient) -> None:
    response = client.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200 and "graphiql" in response.text.lower()
