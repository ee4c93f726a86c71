"""The runner's log: one JSON object a line (``ts``, ``level``, ``event`` and the event's fields) on
stderr, so that each decision's time can be read back by a program (``jq``, a test) as well as by a
person. The runner's own, not the service's structlog: a bot program carries no server code."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from typing import Any, TextIO


class Journal:
    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stderr
        self._lock = threading.Lock()

    def __call__(self, event: str, level: str = "info", **fields: Any) -> None:
        line = json.dumps(
            {"ts": round(time.time(), 3), "level": level, "event": event, **fields}, default=str
        )
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()


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
