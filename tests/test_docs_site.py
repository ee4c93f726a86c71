"""The docs site and the rendered API reference: ``mkdocs build --strict`` is the link check (a broken
link, #anchor or repository path fails it, and it passes on the guides with no warning); the committed
reference is the one the committed contract gives; the service serves it under its pages' policy."""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from graphql import build_schema
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from starlette.testclient import TestClient

from service.api import graphql_reference, rest_reference

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "service" / "static" / "reference"
MKDOCS = Path(sys.executable).parent / "mkdocs"
GUIDES = ["apps", "bots", "operations", "configuration", "rules", "fairness", "engine", "architecture"]
GUIDES += ["benchmarks", "errors", "glossary"]


def load_hooks() -> ModuleType:
    """docs_site/hooks.py as MkDocs loads it: by its path (it is no package)."""
    spec = importlib.util.spec_from_file_location("atout_docs_hooks", ROOT / "docs_site" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = load_hooks()


def test_the_site_builds_strict_with_no_warning(tmp_path: Path) -> None:
    environment = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    command = [str(MKDOCS), "build", "--strict", "--site-dir", str(tmp_path / "site")]
    built = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    site = tmp_path / "site"
    for page in ["index", *GUIDES, "changelog", "reference"]:
        assert (site / f"{page}.html").is_file(), page
    assert (site / "search" / "search_index.json").is_file()  # Material's search, in the page (lunr)
    for name in ("rest.html", "rest.js", "redoc.standalone.js", "graphql.html"):
        assert (site / "reference" / name).is_file(), name
    rest = (site / "reference" / "rest.html").read_text(encoding="utf-8")
    assert '<script src="redoc.standalone.js">' in rest and "/static/" not in rest


def test_the_changelog_page_is_the_root_changelog_not_a_copy(tmp_path: Path) -> None:
    assert not (ROOT / "docs" / "changelog.md").exists()
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    files = config.plugins.on_files(Files([]), config=config)  # the hooks as MkDocs runs them
    changelog = files.get_file_from_path("changelog.md")
    assert changelog is not None
    assert all(heading in changelog.content_string for heading in headings)
    assert "](docs/" not in changelog.content_string  # its links to the guides made relative to docs/


def strict_build_warnings(tmp_path: Path, page: str, caplog: pytest.LogCaptureFixture) -> str:
    """Build the site from a docs folder holding one page (plus a target page) and say what failed."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(page, encoding="utf-8")
    (docs / "rules.md").write_text("# Rules\n\n## Dealing\n", encoding="utf-8")
    config = load_config(
        str(ROOT / "mkdocs.yml"),
        docs_dir=str(docs),
        site_dir=str(tmp_path / "site"),
        nav=[{"Home": "index.md"}, {"Rules": "rules.md"}],
    )
    with caplog.at_level(logging.WARNING, logger="mkdocs"), pytest.raises(Abort, match="strict"):
        build(config)
    return "\n".join(record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING)


def test_a_link_to_a_missing_page_fails_the_build(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    warnings = strict_build_warnings(tmp_path, "# Home\n\nSee [the apps guide](app.md).\n", caplog)
    assert "app.md" in warnings


def test_a_link_to_a_missing_section_fails_the_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    page = "# Home\n\n[Dealing](rules.md#dealing) is there; [bidding](rules.md#bidding) is not.\n"
    warnings = strict_build_warnings(tmp_path, page, caplog)
    assert "#bidding" in warnings and "#dealing" not in warnings


def test_a_link_to_a_missing_repository_file_fails_the_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    page = "# Home\n\nThe manifests: [api.yaml](../k8s/base/no-such-file.yaml).\n"
    warnings = strict_build_warnings(tmp_path, page, caplog)
    assert "../k8s/base/no-such-file.yaml" in warnings


def rewritten(markdown: str, src_uri: str = "operations.md", repository_url: str = "") -> str:
    config = load_config(str(ROOT / "mkdocs.yml"))
    config.extra["repository_url"] = repository_url
    page = Page(None, File(src_uri, config.docs_dir, config.site_dir, config.use_directory_urls), config)
    return hooks.on_page_markdown(markdown, page=page, config=config, files=Files([]))


def test_a_link_to_a_repository_file_becomes_its_path() -> None:
    markdown = "The [api manifest](../k8s/base/api.yaml); [k8s/base/api.yaml](../k8s/base/api.yaml)."
    assert rewritten(markdown) == "The api manifest (`k8s/base/api.yaml`); `k8s/base/api.yaml`."


def test_a_link_to_a_repository_file_goes_to_the_repository_when_its_address_is_set() -> None:
    markdown = "The [settings](../service/base/settings.py#L10)."
    assert rewritten(markdown, repository_url="https://git.example/atout/blob/main/") == (
        "The [settings](https://git.example/atout/blob/main/service/base/settings.py#L10)."
    )


def test_a_link_to_the_changelog_goes_to_its_page() -> None:
    assert (
        rewritten("See [the changelog](../CHANGELOG.md#v100).") == "See [the changelog](changelog.md#v100)."
    )


def test_links_between_pages_and_in_code_blocks_are_left_to_mkdocs() -> None:
    markdown = (
        "[Rules](rules.md#dealing) and [out](https://example.org/a).\n\n```md\n[x](../nowhere.md)\n```\n"
    )
    assert rewritten(markdown) == markdown


def test_the_graphql_reference_is_the_committed_schemas() -> None:
    sdl = (ROOT / "schema" / "schema.graphql").read_text(encoding="utf-8")
    committed = (REFERENCE / "graphql.html").read_text(encoding="utf-8")
    assert committed == graphql_reference.render(sdl), "stale: run `make openapi`"


def test_the_graphql_reference_has_every_operation_and_type_with_its_defaults() -> None:
    sdl = (ROOT / "schema" / "schema.graphql").read_text(encoding="utf-8")
    schema = build_schema(sdl)
    page = graphql_reference.render(sdl)
    for label, root in graphql_reference.roots(schema):
        for name in root.fields:
            assert f'<section id="{label.lower()}-{name}">' in page, (label, name)
    for name in schema.type_map:
        if not name.startswith("__") and name not in {"Query", "Mutation", "Subscription"}:
            assert f'<section id="{name}">' in page, name
    assert 'clientSeed: <a href="#String">String</a>! = &quot;&quot;' in page  # as the SDL writes it


def test_the_rest_reference_is_built_from_the_committed_document_and_the_pinned_redoc() -> None:
    page = (REFERENCE / "index.html").read_text(encoding="utf-8")
    recorded = re.search(rf'<meta name="{rest_reference.SOURCE_META}" content="([^"]+)">', page)
    assert recorded is not None
    openapi = (ROOT / "openapi" / "openapi.json").read_bytes()
    assert recorded.group(1) == rest_reference.source_line(openapi, rest_reference.redoc_version()), (
        "stale: run `make openapi`"
    )
    bundle = rest_reference.REDOC / "bundles" / "redoc.standalone.js"
    assert (REFERENCE / "redoc.standalone.js").read_bytes() == bundle.read_bytes()
    assert (REFERENCE / "LICENSES.txt").read_text(encoding="utf-8") == rest_reference.licences()


def test_the_rest_reference_loads_only_the_services_scripts() -> None:
    page = (REFERENCE / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == [
        '<script src="/static/reference/redoc.standalone.js">',
        '<script src="/static/reference/rest.js">',
    ]
    assert not rest_reference.FETCHED_ELSEWHERE.findall(page)


@pytest.mark.parametrize(
    ("path", "title"),
    [("/reference", "Atout REST reference"), ("/reference/graphql", "Atout GraphQL reference")],
)
def test_the_service_serves_the_reference(client: TestClient, path: str, title: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert f"<title>{title}</title>" in page.text
    for asset in re.findall(r'<script src="([^"]+)"', page.text):
        served = client.get(asset)
        assert served.status_code == 200 and "javascript" in served.headers["content-type"], asset
