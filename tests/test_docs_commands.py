"""The code blocks of the guides that `make test` cannot run whole (they start containers, apply
manifests to a cluster or run for minutes: docs/operations.md, docs/benchmarks.md) are still checked
against what they name, so a renamed flag, target or file breaks a test rather than a reader's day:

- every block says its language, and only the languages below are used;
- ``sh``: bash parses it; each ``atout …`` command (and the arguments given to the image, whose
  entry point is ``atout``) is accepted by the real command-line parser; each ``make`` target is in
  the Makefile; each repository path it names exists;
- ``json``: parses, and the list of trusted issuers is one the settings model accepts;
- ``python``: compiles (docs/engine.md's blocks are run by tests/test_docs_truth.py);
- ``text``: a diagram, shown only.

The guides whose blocks run against a live service (docs/apps.md, docs/bots.md, the README) have
their own tests (tests/atout/test_guide_apps.py, tests/atout/test_tutorial.py,
tests/service/test_readme.py)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.base.settings import Settings
from service.runtime.cli import parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["operations.md", "benchmarks.md", "configuration.md", "engine.md", "architecture.md", "glossary.md"]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
LANGUAGES = {"sh", "json", "python", "text"}
IMAGE = "localhost/atout:dev"
REPOSITORY_PATH = re.compile(
    r"^(?:\./)?((?:tests|k8s|bench|docs|service|schema|workers|engine|atout)/[\w./-]*\w)$"
)


def blocks(page: str) -> list[tuple[str, str]]:
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer((ROOT / "docs" / page).read_text())]


def commands(script: str) -> list[list[str]]:
    """The simple commands of a shell block: continuations joined, comments dropped, split at
    ``&&``, ``||``, ``;`` and ``|``."""
    out = []
    for line in script.replace("\\\n", " ").splitlines():
        words = shlex.split(re.sub(r"\$\([^)]*\)", "X", line), comments=True)  # $(…): one word
        current: list[str] = []
        for word in [*words, ";"]:
            if not current and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", word):
                continue  # an environment assignment before the command
            if word in ("&&", "||", ";", "|"):
                if current:
                    out.append(current)
                current = []
            else:
                current.append(word)
    return out


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.MULTILINE))


def atout_arguments(command: list[str]) -> list[str] | None:
    """The arguments ``atout`` gets from a command: ``atout …`` itself, or what follows the image's
    name in ``podman run`` (None when the command does not run atout, or runs the image's default)."""
    if command[0] in ("atout", ".venv/bin/atout"):
        return command[1:]
    if command[:2] == ["podman", "run"] and IMAGE in command:
        return command[command.index(IMAGE) + 1 :] or None
    return None


@pytest.mark.parametrize("page", PAGES)
def test_every_block_names_a_language_the_checks_know(page: str) -> None:
    languages = [info for info, _ in blocks(page)]
    assert set(languages) <= LANGUAGES, (page, set(languages) - LANGUAGES)


@pytest.mark.parametrize("page", PAGES)
def test_the_shell_blocks_parse_and_name_real_commands_targets_and_files(page: str) -> None:
    targets, cli = make_targets(), parser()
    for info, body in blocks(page):
        if info != "sh":
            continue
        parsed = subprocess.run(["bash", "-n"], input=body, text=True, capture_output=True, check=False)
        assert parsed.returncode == 0, (page, body, parsed.stderr)
        for command in commands(body):
            if command[0] == "make":
                assert set(command[1:]) <= targets, (page, command)
            arguments = atout_arguments(command)
            if arguments is not None:
                cli.parse_args(arguments)  # exits (SystemExit) on an unknown command or flag
            for word in command:
                if path := REPOSITORY_PATH.match(word.split("=")[-1]):
                    assert (ROOT / path[1]).exists(), (page, word)


def test_the_trusted_issuers_example_is_a_setting_the_service_accepts() -> None:
    """The example as written, its elided PEM key (``…``) filled with a real one."""
    (block,) = [body for info, body in blocks("operations.md") if info == "json"]
    pem = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    elided = "-----BEGIN PUBLIC KEY-----\\n…\\n-----END PUBLIC KEY-----"
    assert elided in block
    issuers = json.loads(block.replace(elided, json.dumps(pem.decode())[1:-1]))
    settings = Settings(jwt_issuers=issuers)
    assert len(settings.jwt_issuers) == len(issuers)


@pytest.mark.parametrize("page", PAGES)
def test_the_python_blocks_compile(page: str) -> None:
    for info, body in blocks(page):
        if info == "python":
            compile(body, f"docs/{page}", "exec")


def test_a_renamed_flag_would_fail_here() -> None:
    """The parser check is not a no-op: a flag the CLI does not have is refused."""
    with pytest.raises(SystemExit):
        parser().parse_args(["worker", "--queues", "nosuchqueue"])
    assert commands("a --x 1 && b | c # d\nmake \\\n  docs") == [
        ["a", "--x", "1"],
        ["b"],
        ["c"],
        ["make", "docs"],
    ]
