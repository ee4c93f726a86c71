"""What a runner may remember across its own restarts: where its stream resumes (the last notice
handled). Nothing else is needed: the bot's API key acts in every seat its bot holds, so a runner
restarted without this file plays on (``tokens``, the seat tokens older runners kept, is read and
written back empty: no seat token is kept any more).

Kept in memory, and in a JSON file when the runner is given one (``--state``): written whole to a
temporary file then renamed over the old one (a crash leaves the old or the new, never half), readable
by its owner alone (it holds tokens)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class StateError(ValueError):
    """The state file cannot be read as a runner's state."""


@dataclass
class RunnerState:
    path: Path | None = None
    last_event_id: str | None = None
    tokens: dict[str, dict[int, str]] = field(default_factory=dict)
    """game id -> seat -> seat token; a game's entry goes with its ``game_finished``."""

    @classmethod
    def load(cls, path: Path | None) -> RunnerState:
        if path is None or not path.exists():
            return cls(path)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
            tokens = {
                str(g): {int(s): str(t) for s, t in seats.items()} for g, seats in data["tokens"].items()
            }
            cursor = data.get("last_event_id")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise StateError(f"cannot read the runner state {path}: {error}") from error
        return cls(path, cursor if isinstance(cursor, str) else None, tokens)

    def token(self, game_id: str, seat: int) -> str | None:
        return self.tokens.get(game_id, {}).get(seat)

    def hold(self, game_id: str, seat: int, token: str) -> None:
        self.tokens.setdefault(game_id, {})[seat] = token

    def forget(self, game_id: str) -> None:
        self.tokens.pop(game_id, None)

    def save(self) -> None:
        if self.path is None:
            return
        text = json.dumps(
            {
                "last_event_id": self.last_event_id,
                "tokens": {g: {str(s): t for s, t in seats.items()} for g, seats in self.tokens.items()},
            }
        )
        folder = self.path.resolve().parent
        fd, temporary = tempfile.mkstemp(prefix=".atout-runner-", dir=folder)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
