"""Build hook: compile the rules engine with mypyc where a C compiler is at hand.

Everything else about the package is in pyproject.toml. The engine is plain, mypy-strict Python;
mypyc turns each module into a C extension placed beside its source, and Python then imports the
extension. Without a compiler, or with ``ATOUT_PURE_ENGINE=1`` at build time, nothing is compiled
and the same modules run as plain Python (``engine.BUILD`` says which one is loaded; the same
variable at run time loads the plain modules even where the extensions exist).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

ENGINE_MODULES = sorted(
    str(p) for p in Path("engine").glob("*.py") if p.name not in ("__init__.py", "_build.py")
)
"""``engine/__init__.py`` and ``engine/_build.py`` stay plain Python: they choose, at import,
between the two builds."""
BOT_MODULES = sorted(
    str(p) for p in Path("workers/bots").rglob("*.py") if p.parent.name != "bots" or p.name != "__init__.py"
)
"""The bots' search and heuristics (their playouts are most of the expert's time), compiled
the same way; ``workers/bots/__init__.py`` stays plain Python, it chooses the build."""


def compiler_available() -> bool:
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(cc) is not None and headers.exists()


def engine_extensions() -> list[object]:
    if os.environ.get("ATOUT_PURE_ENGINE") == "1":
        print("atout: ATOUT_PURE_ENGINE=1, the engine is not compiled", file=sys.stderr)
        return []
    if not compiler_available():
        print("atout: no C compiler or Python headers, the engine stays plain Python", file=sys.stderr)
        return []
    from mypyc.build import mypycify

    # the [tool.mypy] overrides for the service's imports are unused when only the engine is compiled
    return list(mypycify(["--no-warn-unused-configs", *ENGINE_MODULES, *BOT_MODULES], opt_level="3"))


setup(ext_modules=engine_extensions())
