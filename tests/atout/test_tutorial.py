"""docs/bots.md runs: its code blocks, in order, against a live ``atout serve`` (the toolkit's
``served`` fixture: a real redis-server and a real worker), as a reader would run them
(tests/atout/guide_blocks.py runs them, as it does docs/apps.md's).

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
from collections.abc import Iterator
from pathlib import Path

import pytest
from guide_blocks import ROOT, PageRun, blocks, is_python_file, reader_environment, saved_environment
from toolkit_live import Serve

PAGE = ROOT / "docs" / "bots.md"


@pytest.fixture
def environment() -> Iterator[None]:
    with saved_environment():
        yield


def test_the_page_has_every_kind_of_block_it_promises() -> None:
    infos = [block.info for block in blocks(PAGE.read_text())]
    assert "python" in infos and "sh" in infos and "console" in infos
    assert any(is_python_file(info) for info in infos)
    assert all(info in ("python", "sh", "console") or is_python_file(info) for info in infos), infos


def test_every_code_block_of_the_bot_tutorial_runs(
    served: Serve, tmp_path: Path, environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    os.environ.update(reader_environment(served.base, tmp_path))
    PageRun(PAGE, tmp_path, served.base).run()
    said = capsys.readouterr().out
    # What the page says the reader sees.
    assert "registered" in said and "finished winners:" in said
    assert re.search(r"against random: \+\d", said), said
    assert re.search(r"^1 \S", said, re.MULTILINE), said  # the tournament's first rank
