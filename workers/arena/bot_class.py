"""A bot written as a Python class (``BotClass``), loaded from ``module:Class``: the same class plays
in the arena (``atout arena --a-bot my_module:MyBot``) and on the service (``atout bot run
my_module:MyBot``, :mod:`atout.runner`), so a bot is tested locally exactly as it will play.

A bot class is built with no argument, one instance per seat per match (no state, and no card,
passes from one seat or match to another), and has one method::

    class MyBot:
        def decide(self, view: dict, legal_actions: list[dict]) -> dict:
            return legal_actions[0]

``view`` and ``legal_actions`` are what a ``your_turn`` notice carries (``engine.view`` and
``engine.legal_actions`` for the seat: a discard comes as a template ``{"type": "discard", "count":
n, "choices": [...]}``, answered with ``{"type": "discard", "cards": [n of them]}``); a ``decide`` that
annotates its view with a model of schema/ (``schema.views.View``) gets models, and may answer one.
Optional methods ``on_game_start``, ``on_hand_end`` and ``on_game_end`` hear the bot protocol's
messages (``workers.arena.protocol``), in the arena as under ``atout bot run``. Its answers are
untrusted, as an external program's: an exception (in ``decide`` or a callback) or an illegal action
is a forfeit, not a crash of the arena — the arena is where a bot author learns the bot is broken."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import random
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast, runtime_checkable

from workers.arena.base import JSON, ArenaError, BotFailure, Player
from workers.arena.protocol import CALLBACKS, Message, SeatFeed, action_json, as_models, wants_models

METHOD = "decide"


@runtime_checkable
class Bot(Protocol):
    """A bot: the seat's view and its legal actions in, one action out (JSON objects)."""

    def decide(self, view: JSON, legal_actions: list[JSON]) -> JSON: ...


def _module(name: str) -> ModuleType:
    """``name`` imported: a dotted module name (found from the current folder too, as ``python -m``
    does), or a ``.py`` file's path."""
    if name.endswith(".py"):
        path = Path(name)
        if not path.is_file():
            raise ArenaError(f"no such file: {name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ArenaError(f"cannot load {name} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    return importlib.import_module(name)


def load_bot(spec: str) -> type[Bot]:
    """The bot class ``spec`` names (``package.module:Class`` or ``path/to/file.py:Class``), checked
    to be a class with a ``decide(view, legal_actions)`` method; ArenaError with a sentence saying
    what is wrong otherwise."""
    module_name, colon, class_name = spec.rpartition(":")
    if not colon or not module_name or not class_name:
        raise ArenaError(f"a bot is named module:Class (e.g. my_bot:MyBot), not {spec!r}")
    try:
        module = _module(module_name)
    except ArenaError:
        raise
    except Exception as error:  # an import error, or any error the module raises as it loads
        raise ArenaError(f"cannot import {module_name!r}: {type(error).__name__}: {error}") from error
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ArenaError(f"module {module_name!r} has no {class_name!r}")
    if not inspect.isclass(cls):
        raise ArenaError(f"{spec} is not a class (a bot is a class with a decide method)")
    method = getattr(cls, METHOD, None)
    if not callable(method):
        raise ArenaError(f"{spec} has no {METHOD}(self, view, legal_actions) method")
    try:
        inspect.signature(cls).bind()
    except TypeError as error:
        raise ArenaError(f"{spec} must be built with no argument: {error}") from None
    except ValueError:
        pass  # no signature to read (a builtin): it is tried when first built
    return cast("type[Bot]", cls)


@dataclass(frozen=True)
class BotClass:
    """A side played by a bot class: a fresh instance per seat and match."""

    spec: str
    cls: type[Bot] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cls", load_bot(self.spec))

    @property
    def name(self) -> str:
        return self.spec

    def player(self, seat: int, rng: random.Random) -> Player:
        return _BotPlayer(self.cls, seat)


def _crash(error: BaseException, where: str) -> BotFailure:
    tail = "".join(traceback.format_exception_only(error)).strip()
    return BotFailure("crash", f"the bot's {where} raised {tail}")


class _BotPlayer:
    """One seat played by a fresh instance of the class, fed the protocol's messages (``SeatFeed``)."""

    external = True

    def __init__(self, cls: type[Bot], seat: int) -> None:
        self.cls, self.typed = cls, wants_models(cls)
        self.feed = SeatFeed(None, seat, 0.0)
        self.bot: Bot | None = None

    def decide(self, view: JSON, legal: list[JSON]) -> JSON:
        *told, _ = self.feed.turn(view, legal, None)
        try:
            if self.bot is None:
                self.bot = self.cls()
        except Exception as error:
            raise _crash(error, "constructor") from error
        for message in told:
            self._callback(message)
        try:
            answer: object = self.bot.decide(*(as_models(view, legal) if self.typed else (view, legal)))
        except Exception as error:
            raise _crash(error, "decide") from error
        return action_json(answer)

    def finish(self, view: JSON) -> None:
        """The match is over: the last ``hand_end`` and ``game_end`` to the callbacks."""
        for message in self.feed.end(view, "finished"):
            self._callback(message)

    def _callback(self, message: Message) -> None:
        name = CALLBACKS.get(type(message))
        method = getattr(self.bot, name, None) if name else None
        if callable(method):
            try:
                method(message)
            except Exception as error:
                raise _crash(error, str(name)) from error

    def close(self) -> None:
        self.bot = None
