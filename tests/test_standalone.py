"""The repository stands alone: nothing in it points outside it, and its rule ids close up.

Whoever clones the project, and every container build context, gets the repository's files
and nothing else. A reference to a sibling folder, or to a rule book kept somewhere else,
is a dead link for all of them. The rules live in ``docs/rules.md``; an id such as F5-12
must lead from there to the code that enforces it and to a test that checks it, so:

- no file outside ``.ci/`` mentions a path or a document outside the repository;
- every rule id cited anywhere is defined in ``docs/rules.md``;
- every id defined there is named by at least one test function under ``tests/``.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
HERE = Path(__file__).resolve()

OUTSIDE = re.compile(
    r"\.\./shared"  # the sibling folder the project was seeded from
    r"|\bshared/(?:vectors|seeds|hooks)\b"  # its sub-folders, however they are reached
    r"|\b(?:RULES|DESIGN|STYLE)\.md\b"  # the documents it held
)
"""What points outside the repository. The pattern does not match its own source text."""

DEFINITION = re.compile(r"^- \*\*([A-Z][A-Z0-9]*)-(\d+)\*\*", re.MULTILINE)
"""A rule is defined by a list item that opens with its bold id: ``- **F5-12** ...``."""

NOT_SCANNED = (".ci/",)
"""The machinery that runs the project's sessions, which is not part of the project."""

UNTRACKED_DIRS = {".git", ".venv", "build", "var", "node_modules", "__pycache__"}


def project_files() -> list[str]:
    """Paths (relative, POSIX) of the files a clone holds: tracked, plus new files not ignored.

    Untracked files count too, so a reference is caught before it is committed. Outside a
    git checkout (an unpacked source tree), every file but the usual build debris is read.
    """
    git = shutil.which("git")
    if git is not None and (ROOT / ".git").exists():
        out = subprocess.run(
            [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        names = sorted({n for n in out.decode().split("\0") if n})
        return [n for n in names if (ROOT / n).is_file()]
    names = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if path.is_file() and not UNTRACKED_DIRS & set(rel.parts) and not rel.parts[0].endswith(".egg-info"):
            names.append(rel.as_posix())
    return sorted(names)


def text_of(name: str) -> str | None:
    """A file's text, or None for a binary file."""
    data = (ROOT / name).read_bytes()
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def scanned_texts() -> Iterator[tuple[str, str]]:
    for name in project_files():
        if name.startswith(NOT_SCANNED):
            continue
        text = text_of(name)
        if text is not None:
            yield name, text


def defined_ids() -> list[str]:
    return [f"{prefix}-{n}" for prefix, n in DEFINITION.findall(RULES.read_text(encoding="utf-8"))]


def citation_pattern(ids: list[str]) -> re.Pattern[str]:
    """Any id with one of the prefixes the rule book uses (``ALL``, ``F5`` ...), defined or not."""
    prefixes = sorted({i.rsplit("-", 1)[0] for i in ids})
    return re.compile(r"\b(?:" + "|".join(map(re.escape, prefixes)) + r")-\d+\b")


def hits(pattern: re.Pattern[str], name: str, text: str) -> list[str]:
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in pattern.finditer(text)]


def test_no_file_points_outside_the_repository() -> None:
    """Not a sibling folder, not a document that only exists beside the repository."""
    found = [h for name, text in scanned_texts() for h in hits(OUTSIDE, name, text)]
    assert not found, "references to files outside the repository:\n" + "\n".join(found)


def test_the_scan_reads_the_project_files() -> None:
    """The first test passes vacuously if the file listing comes back empty or misses a tree."""
    names = [name for name, _ in scanned_texts()]
    for expected in ("README.md", "docs/rules.md", "engine/base.py", "tests/test_standalone.py"):
        assert expected in names, expected
    for tree in ("engine/", "service/", "schema/", "workers/", "tests/"):
        assert sum(n.startswith(tree) for n in names) >= 3, tree


def test_the_rule_book_defines_each_id_once_numbered_in_order() -> None:
    """Each game's ids run 1, 2, 3 ... in the order the rules are written, with no gap."""
    ids = defined_ids()
    assert len(ids) == len(set(ids)), "an id is defined twice"
    by_prefix: dict[str, list[int]] = {}
    for i in ids:
        prefix, n = i.rsplit("-", 1)
        by_prefix.setdefault(prefix, []).append(int(n))
    assert set(by_prefix) == {"ALL", "F5", "RG", "E5"}
    for prefix, numbers in by_prefix.items():
        assert numbers == list(range(1, len(numbers) + 1)), prefix


def test_every_cited_rule_id_is_defined_in_the_rule_book() -> None:
    """A citation of an id the rule book lacks is a dead link (or a typo) in code or docs."""
    ids = defined_ids()
    pattern = citation_pattern(ids)
    known = set(ids)
    undefined = [
        h
        for name, text in scanned_texts()
        if name != "docs/rules.md"
        for h in hits(pattern, name, text)
        if h.rsplit(": ", 1)[1] not in known
    ]
    assert not undefined, "rule ids cited but not defined in docs/rules.md:\n" + "\n".join(undefined)


def test_every_rule_id_is_named_by_a_test() -> None:
    """A test function names its rule in its name (``test_f5_12_...``, ``test_rg7_...``) or in
    its docstring or body; a mention in a module docstring or a helper does not count."""
    ids = defined_ids()
    pattern = citation_pattern(ids)
    prefixes = sorted({i.rsplit("-", 1)[0] for i in ids})
    in_name = re.compile(r"^test_(" + "|".join(p.lower() for p in prefixes) + r")_?(\d+)(?:_|$)")
    named: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path == HERE:
            continue
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                named.update(pattern.findall(ast.get_source_segment(source, node) or ""))
                m = in_name.match(node.name)
                if m:
                    named.add(f"{m.group(1).upper()}-{m.group(2)}")
    untested = [i for i in ids if i not in named]
    assert not untested, "rules no test function names: " + ", ".join(untested)
