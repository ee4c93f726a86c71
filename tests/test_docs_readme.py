"""The README is a landing page a newcomer reads in minutes (issue 37): at most 200 lines, opening
with the two commands that install and run everything (`make serve`, `make test`), and one click
from every guide. What a guide holds stays in the guide: the README links to it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDES = (
    "docs/apps.md",
    "docs/bots.md",
    "docs/operations.md",
    "docs/configuration.md",
    "docs/rules.md",
    "docs/fairness.md",
    "docs/engine.md",
    "docs/architecture.md",
    "docs/benchmarks.md",
    "docs/glossary.md",
    "docs/errors.md",
    "CHANGELOG.md",
)
"""One guide per reader, by the names every page links to (issue 37's fixed list)."""
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")


def readme() -> str:
    return README.read_text()


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(readme().splitlines()) <= 200


def test_every_guide_is_one_click_from_the_readme() -> None:
    linked = set(LINK.findall(readme()))
    assert set(GUIDES) <= linked, sorted(set(GUIDES) - linked)


def test_every_link_of_the_readme_to_a_file_of_the_repository_resolves() -> None:
    local = [target for target in LINK.findall(readme()) if "://" not in target]
    assert local and [target for target in local if not (ROOT / target).exists()] == []


def test_the_readme_opens_with_make_serve_and_make_test() -> None:
    """The first code block of the page, right after the introduction, is the two commands."""
    text = readme()
    first = re.search(r"^```\w*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert first is not None
    commands = [line.split("#")[0].strip() for line in first.group(1).splitlines()]
    assert commands == ["make serve", "make test"]
    assert text.index("make serve") > text.index("# Atout") and text.count("\n## ", 0, first.start()) <= 1


def test_the_versioning_pointer_leads_to_the_guides_section() -> None:
    assert "docs/apps.md#versioning" in readme()
    assert "\n## Versioning\n" in (ROOT / "docs" / "apps.md").read_text()
