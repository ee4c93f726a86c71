"""Bot classes the toolkit's tests load by path (``tests/atout/toolkit_bots.py:Slow``): a slow one
(a SIGTERM arrives while it thinks), one that raises, one without ``decide``, one that needs an
argument."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from examples.bot_class import HighCard


class Slow(HighCard):
    """HighCard after a pause, saying on stderr (the runner's log) when it starts to think."""

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        print(json.dumps({"event": "thinking", "version": view.get("hand")}), file=sys.stderr, flush=True)
        time.sleep(1.5)
        return super().decide(view, legal_actions)


class Raises:
    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        raise RuntimeError("this bot always fails")


class NoDecide:
    def act(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return legal_actions[0]


class NeedsArgument:
    def __init__(self, depth: int) -> None:
        self.depth = depth

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return legal_actions[0]
