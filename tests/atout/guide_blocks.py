"""Run a guide's code blocks as a reader would, in order, against a live service: the machinery that
docs/bots.md (tests/atout/test_tutorial.py) and docs/apps.md (tests/atout/test_guide_apps.py) share.

How each block is taken, by its fence's info string:

- ``python``: executed in one namespace shared by the page's Python blocks, in a fresh folder;
- ``python file=NAME``: written to ``NAME`` in that folder (the reader saves it);
- ``sh``: run by bash (``-euo pipefail``) in that folder, with the environment the Python blocks set
  (``os.environ``) and the ``atout`` command of this installation on PATH; a ``&`` in it starts a
  process the page stops later, and whatever is left is killed by its process group at the end. With
  ``shared_shell``, the variables one ``sh`` block sets are there in the next (a reader's terminal);
- ``console``: shown only (a command the fixture stands in for, such as ``make serve``);
- an info string of ``checked_elsewhere`` (``typescript``, ``kotlin``…): left to the page's other
  tests, which compile or check it.

Any other fence fails, so a block cannot silently stop being run. The page's own address of the
service (``http://localhost:8000``) is replaced by the live one's in every block.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
BLOCK_SECONDS = 300
PAGE_ADDRESS = "localhost:8000"
SHELL_STATE = ".shell-state"
"""Where a shared shell's variables are kept between blocks (``export -p`` of a shell run with
``set -a``, so that every variable a block assigns is in it)."""


@dataclass(frozen=True)
class Block:
    info: str
    body: str
    number: int


def blocks(text: str) -> list[Block]:
    """Each fenced block of the page: its info string and body, numbered in order from 1."""
    return [Block(m.group(1).strip(), m.group(2), n) for n, m in enumerate(FENCE.finditer(text), 1)]


def is_python_file(info: str) -> bool:
    return info.startswith("python file=")


@contextmanager
def saved_environment() -> Iterator[None]:
    """The page's blocks set variables in ``os.environ`` (as a reader's shell would keep them): put
    it back as it was afterwards, for the tests that come next in this process."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class PageRun:
    """One run of a page's blocks in ``folder`` against the service at ``base``."""

    page: Path
    folder: Path
    base: str
    checked_elsewhere: frozenset[str] = frozenset()
    shared_shell: bool = False
    groups: list[int] = field(default_factory=list)
    namespace: dict[str, object] = field(default_factory=lambda: {"__name__": "__tutorial__"})

    def where(self, block: Block) -> str:
        return f"{self.page.relative_to(ROOT)} block {block.number} ({block.info})"

    def body(self, block: Block) -> str:
        return block.body.replace(PAGE_ADDRESS, self.base.removeprefix("http://"))

    def run(self) -> None:
        """Every block of the page, in order; an assertion names the first that fails."""
        here = Path.cwd()
        os.chdir(self.folder)
        sys.path.insert(0, str(self.folder))
        try:
            for block in blocks(self.page.read_text()):
                self.run_block(block)
        finally:
            os.chdir(here)
            sys.path.remove(str(self.folder))
            for group in self.groups:
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)

    def run_block(self, block: Block) -> None:
        if block.info == "console" or block.info in self.checked_elsewhere:
            return
        if is_python_file(block.info):
            (self.folder / block.info.partition("=")[2]).write_text(self.body(block))
        elif block.info == "python":
            exec(compile(self.body(block), self.where(block), "exec"), self.namespace)  # the page's own code
        elif block.info == "sh":
            self.run_shell(block)
        else:
            raise AssertionError(f"{self.where(block)}: no runner for a fence of {block.info!r}")

    def run_shell(self, block: Block) -> None:
        script = self.body(block)
        if self.shared_shell:
            state = self.folder / SHELL_STATE
            script = f"set -a\n[ ! -f {state} ] || . {state}\ntrap 'export -p > {state}' EXIT\n{script}"
        # Its output to a file, not a pipe: a process the block leaves running in the background
        # would hold a pipe open, and reading it would wait for that process.
        output = self.folder / f"block-{block.number}.out"
        with open(output, "wb") as sink:
            proc = subprocess.Popen(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=self.folder,
                env=dict(os.environ),
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: what it left running is killed with it
            )
        self.groups.append(proc.pid)
        proc.wait(timeout=BLOCK_SECONDS)
        out = output.read_text(errors="replace")
        print(out)
        assert proc.returncode == 0, f"{self.where(block)} failed:\n{out}"


def reader_environment(base: str, folder: Path) -> dict[str, str]:
    """What a reader's shell holds after installing Atout: the service's address, the ``atout``
    command of this installation on PATH, and their own files importable before the checkout's."""
    return dict(
        ATOUT_URL=base,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]),
    )
