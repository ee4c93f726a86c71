"""Build hook: compile the rules engine with mypyc where a C compiler is at hand.

Everything else about the package is in pyproject.toml. The engine is plain, mypy-strict Python;
mypyc turns each module into a C extension placed beside its source, and Python then imports the
extension. Without a compiler, or with ``ATOUT_PURE_ENGINE=1`` at build time, nothing is compiled
and the same modules run as plain Python (``engine.BUILD`` says which one is loaded; the same
variable at run time loads the plain modules even where the extensions exist).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

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


def build_cache() -> Path | None:
    """Where compiled extensions are kept between builds on this machine: ``ATOUT_BUILD_CACHE``, else
    ``~/.cache/atout/mypyc``; empty: no cache. A cache is only a shortcut, never needed: a fresh machine
    compiles."""
    where = os.environ.get("ATOUT_BUILD_CACHE", str(Path.home() / ".cache" / "atout" / "mypyc"))
    return Path(where) if where else None


def mypyc_version() -> str:
    try:
        from mypy.version import __version__
    except ImportError:  # no mypyc in this build: nothing is compiled
        return ""
    return __version__


mypy_version = mypyc_version()


class CachedBuildExt(build_ext):
    """``build_ext`` that reuses an extension compiled before from the same C sources (mypyc's output for
    the engine is the same as long as the engine is). gcc takes about a minute of one core for the
    engine at -O3, in ``make test`` and again in the image build, for code that seldom changes. The key is
    the content of every source and header of the extension (mypyc's runtime included), the compiler's
    command line and version and the Python ABI: whatever changes the object code changes the key, paths
    do not (pip builds in a new temporary folder each time)."""

    def build_extension(self, ext: Any) -> None:
        cache = build_cache()
        if cache is None:
            super().build_extension(ext)
            return
        target = Path(self.get_ext_fullpath(ext.name))
        cached = cache / f"{ext.name}-{self._key(ext)}{target.suffix}"
        if cached.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached, target)
            print(f"atout: {ext.name} reused from {cached}", file=sys.stderr)
            return
        super().build_extension(ext)
        cache.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        shutil.copyfile(target, partial)
        partial.replace(cached)  # whole or not at all, should two builds race

    def _key(self, ext: Any) -> str:
        digest = hashlib.sha256()
        compiler = [*self.compiler.compiler_so, *self.compiler.linker_so]
        version = subprocess.run([compiler[0], "--version"], capture_output=True, text=True, check=False)
        for part in (*compiler, version.stdout, sysconfig.get_config_var("EXT_SUFFIX") or "", sys.version,
                     mypy_version, *ext.extra_compile_args):  # fmt: skip
            digest.update(part.encode() + b"\0")
        headers = [
            Path(d, name)
            for d in ext.include_dirs
            if Path(d).is_dir()
            for name in sorted(os.listdir(d))
            if name.endswith((".h", ".c"))
        ]
        for path in [*map(Path, ext.sources), *map(Path, ext.depends), *headers]:
            if path.is_file():
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()[:24]


setup(ext_modules=engine_extensions(), cmdclass={"build_ext": CachedBuildExt})
