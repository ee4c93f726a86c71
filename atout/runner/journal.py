"""The runner's log: one line an event (``ts``, ``level``, ``event`` and the event's fields) on stderr.
``json`` (the default): one JSON object a line, so that each decision's time can be read back by a
program (``jq``, a test) as well as by a person; ``text``: the same fields as ``key=value`` after the
time, the level and the event, for a terminal. Lines below the journal's level are not written. The
runner's own, not the service's structlog: a bot program carries no server code."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from typing import Any, TextIO

LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40}
FORMATS = ("json", "text")


class Journal:
    def __init__(self, out: TextIO | None = None, level: str = "info", fmt: str = "json") -> None:
        if level not in LEVELS:
            raise ValueError(f"a log level is one of {', '.join(LEVELS)}, not {level!r}")
        if fmt not in FORMATS:
            raise ValueError(f"a log format is one of {', '.join(FORMATS)}, not {fmt!r}")
        self.out = out if out is not None else sys.stderr
        self.threshold, self.fmt = LEVELS[level], fmt
        self._lock = threading.Lock()
        self._fd: int | None = None
        """Stderr's descriptor, written to directly by default: one ``os.write`` a line, so that a
        bot thread's ``print(…, file=sys.stderr)`` (two writes, text then newline, into the stream's
        buffer) never splits a journal line."""
        if out is None:
            with contextlib.suppress(AttributeError, OSError, ValueError):
                self._fd = sys.stderr.fileno()

    def __call__(self, event: str, level: str = "info", **fields: Any) -> None:
        if LEVELS.get(level, 40) < self.threshold:
            return
        now = time.time()
        if self.fmt == "json":
            line = json.dumps({"ts": round(now, 3), "level": level, "event": event, **fields}, default=str)
        else:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1000):03d}"
            pairs = " ".join(f"{key}={_text(value)}" for key, value in fields.items())
            line = f"{stamp} {level.upper():<7} {event} {pairs}".rstrip()
        with self._lock:
            if self._fd is None:
                self.out.write(line + "\n")
                self.out.flush()
                return
            data = (line + "\n").encode()
            while data:
                data = data[os.write(self._fd, data) :]


def _text(value: Any) -> str:
    """A field for the text format: a plain word as it is, anything else as JSON (quoted, one line)."""
    if isinstance(value, str) and value and all(c.isalnum() or c in "-_.:/" for c in value):
        return value
    return json.dumps(value, default=str)


class ClientRecords(logging.Handler):
    """The client's own log records (``atout.client``: each retry, with its reason and wait) as lines
    of the journal, ``client_retry``, rather than plain text between its JSON lines."""

    def __init__(self, journal: Journal) -> None:
        super().__init__(logging.INFO)
        self.journal = journal

    def emit(self, record: logging.LogRecord) -> None:
        fields = getattr(record, "atout_retry", None)
        if not isinstance(fields, dict):
            fields = {"message": record.getMessage()}
        self.journal("client_retry", level=record.levelname.lower(), **fields)
