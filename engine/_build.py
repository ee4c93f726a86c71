"""Which build of the engine a process loads: the mypyc extensions or the plain modules.

Compiled, each module ``engine/x.py`` has an extension ``engine/x.<abi>.so`` beside it, and
Python's own finder prefers the extension. ``prefer_source`` puts a finder first that loads the
engine's submodules from their ``.py`` source instead; it must run before any submodule is
imported: ``engine/__init__.py`` imports this module first, and it does so at import when
``ATOUT_PURE_ENGINE=1``. Plain Python on purpose: never compiled (setup.py leaves it out).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType


class _SourceFirst(importlib.abc.MetaPathFinder):
    def __init__(self, package: str, folder: Path) -> None:
        self.package, self.folder = package, folder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parent, _, name = fullname.rpartition(".")
        source = self.folder / f"{name}.py"
        if parent != self.package or not source.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def prefer_source(package: str, package_path: Sequence[str]) -> None:
    """Load ``package``'s submodules from source from now on (once per process)."""
    if not any(isinstance(f, _SourceFirst) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst(package, Path(package_path[0])))


def stale_extensions(folder: Path) -> list[str]:
    """The modules whose source changed after their extension was built: in a checkout installed
    with ``pip install -e .``, an edit to ``engine/x.py`` is not in ``engine/x.<abi>.so`` until
    the next install, and the old extension would silently run instead of the edit."""
    stale = []
    for extension in folder.glob("*.so"):
        source = folder / f"{extension.name.split('.')[0]}.py"
        if source.is_file() and source.stat().st_mtime > extension.stat().st_mtime:
            stale.append(source.name)
    return sorted(stale)


def _choose() -> None:
    folder = Path(__file__).parent
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        prefer_source(__package__ or "engine", [str(folder)])
        return
    stale = stale_extensions(folder)
    if stale:
        prefer_source(__package__ or "engine", [str(folder)])
        print(
            f"atout engine: {', '.join(stale)} changed since the engine was compiled; running the "
            "plain modules (`make compile` or `pip install -e .` compiles them again)",
            file=sys.stderr,
        )


_choose()
