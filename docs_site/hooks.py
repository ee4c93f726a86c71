"""MkDocs hooks (mkdocs.yml ``hooks:``) that let the site be built from the guides as they are written
for the repository, and keep ``mkdocs build --strict`` a link check.

The guides in ``docs/`` are read on GitHub as much as on the site, so they link a repository file
outside ``docs/`` the way GitHub resolves it, ``../k8s/base/api.yaml``. The site has no such page:
MkDocs would warn (and fail ``--strict``) on every one. Here each such link whose file exists becomes a
link to ``extra.repository_url`` (the repository browsed online) when that is set, else the file's path
as code; a link to a file that does not exist is reported as a warning, so a broken link still fails.

The site also carries what lives outside ``docs/``, generated, never copied into it (a copy drifts):
the changelog (CHANGELOG.md at the root, its links made relative to ``docs/``) and the rendered API
reference the service serves at ``/reference`` (service/static/reference: Redoc's page and the GraphQL
page), its asset addresses made relative.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = get_plugin_logger("repository_links")

LINK = re.compile(
    r"(?P<image>!?)\[(?P<text>(?:[^\[\]]|\[[^\]]*\])*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)"
)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

CHANGELOG = "CHANGELOG.md"
INCLUDED = {CHANGELOG: "changelog.md"}
"""Repository files the site carries as pages: a link to one goes to its page."""
REFERENCE_DIR = Path("service/static/reference")
REFERENCE_FILES = {
    "index.html": "reference/rest.html",
    "rest.js": "reference/rest.js",
    "redoc.standalone.js": "reference/redoc.standalone.js",
    "LICENSES.txt": "reference/LICENSES.txt",
    "graphql.html": "reference/graphql.html",
}
SERVED_ASSETS = "/static/reference/"


def repository_root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the changelog page and the rendered reference to the site."""
    root = repository_root(config)
    changelog = (root / CHANGELOG).read_text(encoding="utf-8")
    files.append(File.generated(config, INCLUDED[CHANGELOG], content=from_root(changelog)))
    for name, uri in REFERENCE_FILES.items():
        source = root / REFERENCE_DIR / name
        if uri.endswith(".html"):
            page = source.read_text(encoding="utf-8").replace(SERVED_ASSETS, "")
            files.append(File.generated(config, uri, content=page))
        else:
            files.append(File.generated(config, uri, abs_src_path=str(source)))
    return files


def from_root(markdown: str) -> str:
    """Links written from the repository's root (CHANGELOG.md) made relative to ``docs/``."""

    def relative(link: re.Match[str]) -> str:
        target = link.group("target")
        if is_external(target) or target.startswith("#"):
            return link.group(0)
        return with_target(
            link, target.removeprefix("docs/") if target.startswith("docs/") else f"../{target}"
        )

    return rewrite_links(markdown, relative)


def is_external(target: str) -> bool:
    return bool(SCHEME.match(target)) or target.startswith(("/", "//"))


def with_target(link: re.Match[str], target: str) -> str:
    return f"{link.group('image')}[{link.group('text')}]({target}{link.group('title') or ''})"


def rewrite_links(markdown: str, rewrite: Callable[[re.Match[str]], str]) -> str:
    """``rewrite`` applied to every inline link outside fenced code (a link's text may span lines). A
    reference-style link to a file outside ``docs/`` is left to MkDocs, which reports it: write it inline."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            out.extend([LINK.sub(rewrite, "\n".join(prose))] if prose else [])
            prose = []
        elif fence is not None and opened and closes(opened.group(1), fence):
            fence = None
        elif fence is None:
            prose.append(line)
            continue
        out.append(line)
    out.extend([LINK.sub(rewrite, "\n".join(prose))] if prose else [])
    return "\n".join(out)


def closes(marker: str, fence: str) -> bool:
    return marker[0] == fence[0] and len(marker) >= len(fence)


def outside_docs(page: Page, config: MkDocsConfig, target: str) -> tuple[Path, str] | None:
    """The repository path (and ``#anchor``) a link of ``page`` names outside ``docs/``, or None for
    a link MkDocs checks itself (a page or file of the site) or one to elsewhere."""
    if is_external(target) or target.startswith("#"):
        return None
    path, _, anchor = target.partition("#")
    docs = Path(config.docs_dir).resolve()
    here = docs / PurePosixPath(page.file.src_uri).parent
    resolved = Path(unquote(str(here / path))).resolve()
    if resolved == docs or docs in resolved.parents:
        return None
    return resolved, f"#{anchor}" if anchor else ""


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Each link to a repository file outside ``docs/``: to its page here (the changelog), to the
    repository online (``extra.repository_url``) or its path as code; a warning if it does not exist."""
    root = repository_root(config)
    base = str(config.extra.get("repository_url") or "")
    depth = len(PurePosixPath(page.file.src_uri).parts) - 1

    def change(link: re.Match[str]) -> str:
        target = link.group("target")
        found = outside_docs(page, config, target)
        if found is None:
            return link.group(0)
        resolved, anchor = found
        if root not in resolved.parents or not resolved.exists():
            log.warning(f"{page.file.src_uri}: the link '{target}' names no file of the repository")
            return link.group(0)
        name = resolved.relative_to(root).as_posix()
        if name in INCLUDED:
            return with_target(link, "../" * depth + INCLUDED[name] + anchor)
        if base:
            return with_target(link, f"{base.rstrip('/')}/{name}{anchor}")
        text = link.group("text")
        if text == name:
            return f"`{name}`"
        return text if name in text else f"{text} (`{name}`)"

    return rewrite_links(markdown, change)
