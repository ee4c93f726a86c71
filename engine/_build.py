"""Which build a process loads: the mypyc extensions or the plain modules.

Compiled (setup.py), each module ``engine/x.py`` has an extension ``engine/x.<abi>.so`` beside
it, and Python's own finder prefers the extension; the bots (``workers/bots``) are compiled the
same way. ``prefer_source`` puts a finder first that loads a package's modules from their
``.py`` source instead. It must run before any of them is imported: ``engine/__init__.py``
imports this module first (which decides for ``engine``), and ``workers/bots/__init__.py``
calls ``choose`` before importing its own modules. ``ATOUT_PURE_ENGINE=1`` loads the plain
modules of both; an extension older than its source is never run. Plain Python on purpose:
never compiled (setup.py leaves it out).
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
        if not fullname.startswith(self.package + "."):
            return None
        where = self.folder.joinpath(*fullname[len(self.package) + 1 :].split("."))
        if where.is_dir() and (where / "__init__.py").is_file():  # a subpackage
            init = where / "__init__.py"
            return importlib.util.spec_from_file_location(
                fullname, init, submodule_search_locations=[str(where)]
            )
        source = where.with_suffix(".py")
        if not source.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def prefer_source(package: str, folder: Path) -> None:
    """Load ``package``'s modules (and its subpackages') from source from now on (once per process)."""
    if not any(isinstance(f, _SourceFirst) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst(package, folder))


def stale_extensions(folder: Path) -> list[str]:
    """The modules whose source changed after their extension was built: in a checkout installed
    with ``pip install -e .``, an edit to ``engine/x.py`` is not in ``engine/x.<abi>.so`` until
    the next install, and the old extension would silently run instead of the edit."""
    stale = []
    for extension in folder.rglob("*.so"):
        source = extension.parent / f"{extension.name.split('.')[0]}.py"
        if source.is_file() and source.stat().st_mtime > extension.stat().st_mtime:
            stale.append(str(source.relative_to(folder)))
    return sorted(stale)


def choose(package: str, folder: Path) -> str:
    """Decide, before its modules are imported, which build of ``package`` this process runs:
    ``"pure"`` with ``ATOUT_PURE_ENGINE=1`` or a stale extension (said on stderr), else whatever
    is installed (``"compiled"`` where the extensions exist)."""
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        prefer_source(package, folder)
        return "pure"
    stale = stale_extensions(folder)
    if stale:
        prefer_source(package, folder)
        print(
            f"atout {package}: {', '.join(stale)} changed since it was compiled; running the plain "
            "modules (`make compile` or `pip install -e .` compiles them again)",
            file=sys.stderr,
        )
        return "pure"
    return "compiled" if any(folder.rglob("*.so")) else "pure"


choose(__package__ or "engine", Path(__file__).parent)
