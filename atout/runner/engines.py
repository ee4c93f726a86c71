"""How the runner asks a bot: one *engine* per seat and game, fed by the bot protocol's
``SeatFeed`` (``workers.arena.protocol``), so that a bot hears the same messages here as in the arena.

- :class:`ClassEngine`: a Python class in the runner's process (``atout bot run module:Class``), one
  instance per seat and game. Its ``decide(view, legal_actions)`` gets dicts, or schema/'s models
  when it annotates its view with one (``wants_models``); its optional methods ``on_game_start``,
  ``on_hand_end`` and ``on_game_end`` get the protocol's messages (``GameStart``, ``HandEnd``,
  ``GameEnd``: frozen dataclasses). Each call runs in a thread of its own, so that a slow bot holds
  no other game up and a move past ``move_seconds`` is a ``timeout`` (the thread is left to finish:
  Python cannot stop it; the seat gets a fresh instance).
- :class:`ProgramEngine`: a program in any language (``--cmd``): ``workers.arena.command``'s
  ``ProgramSeat``, the arena's own, in a thread: one process per seat and game. A process per seat,
  not one multiplexing every game: partners never share a process (ALL-7, as in the arena), a crash
  or a hang costs one seat of one game, and a program is written for one game at a time, the same
  for the arena and the service.

A failure is a ``BotFailure`` (``crash`` with the traceback when Python raised, ``timeout``,
``garbage``); an engine whose own state is lost by it (a process killed, an instance abandoned)
says ``broken`` and is replaced before the seat's next turn."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from atout.runner.config import ConfigError, RunnerConfig
from atout.runner.journal import Journal
from workers.arena import ArenaError, BotFailure, Command, load_bot
from workers.arena.command import ProgramSeat
from workers.arena.protocol import CALLBACKS, Message, SeatFeed, wants_models

T = TypeVar("T")
JSON = dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """One turn of one seat: the view and legal actions as the service's models and as JSON."""

    game_id: str
    seat: int
    version: int
    view: Any
    legal: list[Any]
    view_json: JSON
    legal_json: list[JSON]


class Crash(BotFailure):
    """The bot's Python code raised: ``crash``, with the whole traceback for the log."""

    def __init__(self, error: BaseException, where: str = "decide") -> None:
        tail = "".join(traceback.format_exception_only(error)).strip()
        super().__init__("crash", f"the bot raised {tail}" + (f" in {where}" if where != "decide" else ""))
        self.trace = "".join(traceback.format_exception(error)).rstrip()


async def in_thread(fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
    """``fn(*args)`` in a daemon thread of its own, awaited up to ``timeout`` seconds (TimeoutError
    then; the thread runs on, its result dropped). Not the loop's executor: a bot that never answers
    would hold one of its few threads for good."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = fn(*args)
        except BaseException as raised:  # handed to the awaiting task, whatever it is
            error = raised
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, daemon=True, name="atout-bot").start()
    return await asyncio.wait_for(done, timeout)


class SeatEngine(Protocol):
    broken: bool

    async def turn(self, turn: Turn) -> object:
        """The bot's answer (a dict, or a model), or a ``BotFailure``."""
        ...

    async def end(self, view: JSON | None, reason: str, winners: list[int] | None) -> None:
        """Tell the end (the last ``hand_end``, ``game_end``) and let the bot go."""
        ...

    def close_now(self) -> None:
        """Let the bot go at once (the runner is aborting)."""
        ...


class ClassEngine:
    def __init__(
        self, cls: type, typed: bool, game_id: str, seat: int, budget_s: float, journal: Journal
    ) -> None:
        self.cls, self.typed, self.journal = cls, typed, journal
        self.feed = SeatFeed(game_id, seat, budget_s)
        self.bot: Any = None
        self.broken = False

    async def turn(self, turn: Turn) -> object:
        try:
            return await in_thread(self._turn, turn, timeout=self.feed.budget_s)
        except TimeoutError:
            self.broken = True  # its thread may still be in decide: the next turn gets a new instance
            raise BotFailure("timeout", f"decide did not answer within {self.feed.budget_s:g} s") from None

    def _turn(self, turn: Turn) -> object:
        *told, _ = self.feed.turn(turn.view_json, turn.legal_json, turn.version)
        if self.bot is None:
            try:
                self.bot = self.cls()
            except BaseException as error:
                raise Crash(error, "its constructor") from error
        for message in told:
            self._callback(message)
        view, legal = (turn.view, turn.legal) if self.typed else (turn.view_json, turn.legal_json)
        try:
            return self.bot.decide(view, legal)
        except BaseException as error:  # SystemExit too: the bot's failure, not the runner's end
            raise Crash(error) from error

    def _callback(self, message: Message) -> None:
        """The bot's ``on_…`` method for ``message``, if it has one; what it raises is logged (the
        move is not at stake)."""
        name = CALLBACKS.get(type(message))
        method = getattr(self.bot, name, None) if name else None
        if not callable(method):
            return
        try:
            method(message)
        except BaseException as error:
            crash = Crash(error, name or "")
            feed = self.feed
            self.journal(
                "bot_failed",
                level="error",
                game=feed.game_id,
                seat=feed.seat,
                reason="crash",
                detail=crash.detail,
                traceback=crash.trace,
                policy="logged (a callback: no move at stake)",
            )

    async def end(self, view: JSON | None, reason: str, winners: list[int] | None) -> None:
        messages = self.feed.end(view, reason, winners)
        if self.bot is None or self.broken or not messages:
            return
        with contextlib.suppress(TimeoutError):
            await in_thread(self._callbacks, messages, timeout=self.feed.budget_s)
        self.bot = None

    def _callbacks(self, messages: list[Message]) -> None:
        for message in messages:
            self._callback(message)

    def close_now(self) -> None:
        self.bot = None


class ProgramEngine:
    def __init__(self, command: Command, game_id: str, seat: int) -> None:
        self.program = ProgramSeat(command, "runner", game_id, seat)
        self.broken = False

    async def turn(self, turn: Turn) -> object:
        try:
            return await in_thread(self.program.decide, turn.view_json, turn.legal_json, turn.version)
        except ArenaError as error:  # it cannot start (any more): a crash of this seat's bot
            self.broken = True
            raise BotFailure("crash", str(error)) from error
        except BotFailure:
            self.broken = True  # a process that failed is stopped: the next turn starts another
            raise

    async def end(self, view: JSON | None, reason: str, winners: list[int] | None) -> None:
        await in_thread(self.program.finish, view, reason, winners)
        await in_thread(self.program.close)

    def close_now(self) -> None:
        self.program.close()


class Engines:
    """Makes the engine of each seat from the configuration: the bot class loaded (and checked)
    once, or the program's command checked to be found."""

    def __init__(self, config: RunnerConfig, journal: Journal) -> None:
        self.journal, self.budget_s = journal, config.move_seconds
        self.command: Command | None = None
        self.cls: type | None = None
        if config.command is not None:
            try:
                self.command = Command(config.command, config.move_seconds, config.protocol)
            except ArenaError as error:
                raise ConfigError(str(error)) from error
            program = self.command.argv()[0]
            if shutil.which(program) is None:
                raise ConfigError(f"cannot find the bot program {program!r} (of --cmd {config.command!r})")
            self.label = config.command
        else:
            bot = config.bot
            self.cls = bot if isinstance(bot, type) else load_bot(str(bot))
            self.label = bot if isinstance(bot, str) else f"{self.cls.__module__}:{self.cls.__qualname__}"
        self.typed = self.cls is not None and wants_models(self.cls)

    def new(self, game_id: str, seat: int) -> SeatEngine:
        if self.command is not None:
            return ProgramEngine(self.command, game_id, seat)
        assert self.cls is not None
        return ClassEngine(self.cls, self.typed, game_id, seat, self.budget_s, self.journal)
