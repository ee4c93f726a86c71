"""docs/bots.md runs: its code blocks, in order, against a live ``atout serve`` (the toolkit's
``served`` fixture: a real redis-server and a real worker), as a reader would run them.

How each block is taken, by its fence's info string:

- ``python``: executed in one namespace shared by the page's Python blocks, in a fresh folder;
- ``python file=NAME``: written to ``NAME`` in that folder (the reader saves it);
- ``sh``: run by bash in that folder, with the environment the Python blocks set (``os.environ``) and
  the ``atout`` command of this installation on PATH; a ``&`` in it starts a process the page stops
  later, and whatever is left is killed by its process group at the end;
- ``console``: shown only (``make serve``, which the fixture replaces with the same ``atout serve``).

Any other fence fails the test, so a block cannot silently stop being run.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from toolkit_live import Serve

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "bots.md"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
BLOCK_SECONDS = 300


def blocks(text: str) -> list[tuple[str, str]]:
    """Each fenced block of the page: (info string, body), in order."""
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(text)]


@pytest.fixture
def environment() -> Iterator[None]:
    """The page's blocks set variables in ``os.environ`` (as a reader's shell would keep them): put
    it back as it was afterwards, for the tests that come next in this process."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_the_page_has_every_kind_of_block_it_promises() -> None:
    infos = [info for info, _ in blocks(PAGE.read_text())]
    assert "python" in infos and "sh" in infos and "console" in infos
    assert any(info.startswith("python file=") for info in infos)
    assert all(info in ("python", "sh", "console") or info.startswith("python file=") for info in infos), (
        infos
    )


def test_every_code_block_of_the_bot_tutorial_runs(
    served: Serve, tmp_path: Path, environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    os.environ.update(
        ATOUT_URL=served.base,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),  # the reader's files, then the checkout's
    )
    namespace: dict[str, object] = {"__name__": "__tutorial__"}
    groups: list[int] = []
    here = Path.cwd()
    os.chdir(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        for n, (info, body) in enumerate(blocks(PAGE.read_text()), 1):
            where = f"docs/bots.md block {n} ({info})"
            if info == "console":
                continue
            if info.startswith("python file="):
                (tmp_path / info.partition("=")[2]).write_text(body)
            elif info == "python":
                exec(compile(body, where, "exec"), namespace)  # the page's own code
            else:
                # Its output to a file, not a pipe: a process the block leaves running in the
                # background would hold a pipe open, and reading it would wait for that process.
                output = tmp_path / f"block-{n}.out"
                with open(output, "wb") as sink:
                    proc = subprocess.Popen(
                        ["bash", "-euo", "pipefail", "-c", body],
                        cwd=tmp_path,
                        env=dict(os.environ),
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,  # its own group: what it left running is killed with it
                    )
                groups.append(proc.pid)
                proc.wait(timeout=BLOCK_SECONDS)
                out = output.read_text(errors="replace")
                print(out)
                assert proc.returncode == 0, f"{where} failed:\n{out}"
    finally:
        os.chdir(here)
        sys.path.remove(str(tmp_path))
        for group in groups:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
    said = capsys.readouterr().out
    # What the page says the reader sees.
    assert "registered" in said and "finished winners:" in said
    assert re.search(r"against random: \+\d", said), said
    assert re.search(r"^1 \S", said, re.MULTILINE), said  # the tournament's first rank
