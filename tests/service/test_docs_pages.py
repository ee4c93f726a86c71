"""The interactive docs are served whole by the service: every script and style sheet of /docs
(Swagger UI) and of /graphql's GraphiQL page is one of our own URLs, and answers; the GraphiQL
assets are byte for byte the files of the npm packages pinned in package-lock.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "service" / "static" / "vendor"
ASSET = re.compile(r"""<(?:script|link)\b[^>]*\s(?:src|href)=["']([^"']+)["']""")
TYPES = {".js": "javascript", ".css": "text/css"}


def assets_of(html: str) -> list[str]:
    return ASSET.findall(html)


@pytest.mark.parametrize(
    ("path", "headers"), [("/docs", {}), ("/graphql", {"Accept": "text/html"}), ("/play", {})]
)
def test_a_docs_page_loads_only_our_own_assets(
    client: TestClient, path: str, headers: dict[str, str]
) -> None:
    page = client.get(path, headers=headers)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assets = assets_of(page.text)
    assert len(assets) >= 2
    for url in assets:
        assert url.startswith("/static/"), f"{path} loads {url} from elsewhere"
        served = client.get(url)
        assert served.status_code == 200, url
        assert TYPES[Path(url).suffix] in served.headers["content-type"], url
        assert len(served.content) > 100


def test_the_page_scripts_name_no_outside_address(client: TestClient) -> None:
    for script in ("/static/docs.js", "/static/graphiql.js"):
        assert "//" not in re.sub(r"^\s*//.*$", "", client.get(script).text, flags=re.M), script


def test_swagger_ui_is_version_5_which_reads_openapi_3_1(client: TestClient) -> None:
    bundle = client.get("/static/swagger/swagger-ui-bundle.js").text
    assert re.search(r'"5\.\d+\.\d+"', bundle)
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_the_static_folder_gives_nothing_outside_it(client: TestClient) -> None:
    # dots encoded: a client library resolves a plain ../ before it sends the request
    for probe in (
        "/static/%2e%2e/app.py",
        "/static/%2e%2e%2fapp.py",
        "/static/swagger/%2e%2e/%2e%2e/rest.py",
        "/static/vendor/%2e%2e/%2e%2e/settings.py",
        "/static/nope.js",
    ):
        answer = client.get(probe)
        assert answer.status_code == 404 and "import" not in answer.text, probe


# What `make vendor` copies (the Makefile's VENDORED), by npm package
VENDORED = {
    "graphiql.min.js": ("graphiql", "graphiql.min.js"),
    "graphiql.min.css": ("graphiql", "graphiql.min.css"),
    "react.production.min.js": ("react", "umd/react.production.min.js"),
    "react-dom.production.min.js": ("react-dom", "umd/react-dom.production.min.js"),
}


@pytest.mark.parametrize("name", sorted(VENDORED))
def test_the_vendored_graphiql_assets_are_the_pinned_npm_files(name: str) -> None:
    package, path = VENDORED[name]
    modules = ROOT / "node_modules"
    assert (modules / ".installed").exists(), "run `make test` (it installs the npm packages: npm ci)"
    pinned = json.loads((ROOT / "package-lock.json").read_text())["packages"][f"node_modules/{package}"]
    assert json.loads((modules / package / "package.json").read_text())["version"] == pinned["version"]
    assert f"{package} {pinned['version']}\n" in (VENDOR / "LICENSES.txt").read_text()
    source = modules / package / path
    assert (VENDOR / name).read_bytes() == source.read_bytes(), f"{name} differs from {source}: make vendor"


def test_the_play_page_modules_import_only_each_other(client: TestClient) -> None:
    """The web table is plain ES modules served from /static/play: every import is one of them (no
    CDN, no bundler), and every one answers as JavaScript."""
    folder = ROOT / "service" / "static" / "play"
    for module in folder.glob("*.js"):
        for imported in re.findall(r'^import .* from "([^"]+)";', module.read_text(), re.M):
            assert imported.startswith("./") and (folder / imported).exists(), (
                f"{module.name} imports {imported}"
            )
            served = client.get(f"/static/play/{imported[2:]}")
            assert served.status_code == 200 and "javascript" in served.headers["content-type"]
        assert "http://" not in module.read_text() or module.name == "cards.js"  # the SVG namespace only
        assert "https://" not in module.read_text()
