"""What a runner is told to do (:class:`RunnerConfig`): from a TOML file (``atout bot run --config
bot.toml``), the command line over it, or a program (``RunnerConfig(...)``).

Every option is declared once, in :data:`OPTIONS`: its place in the file, its flag, its type, its
default and its help, from which the command's flags, its ``--help`` and the table of the docs
(:func:`options_table`) are made, so that none of them can forget one. A flag given overrides the
file (``--join`` and ``--seek`` replace the file's list; a bot given on the command line, a class or
``--cmd``, replaces the file's); what neither gives takes its default.

The API key is never needed in the file: ``--token``, else the file's ``service.key``, else the
environment variable ``service.key_env`` names (``ATOUT_BOT_KEY`` unless told). Paths (a bot
class's file, the state file, a program's command) are read from the folder the runner runs in, as
on the command line.

A file, every key shown (all are optional but the service's ``url``, and a bot's ``class`` or
``command``)::

    [service]
    url = "http://localhost:8000"
    key_env = "ATOUT_BOT_KEY"      # the variable holding the API key (or key = "...": not advised)
    state = "runner-state.json"    # where the stream's cursor is kept across restarts
    max_outage = 300.0
    ndjson = false

    [bot]
    command = "node examples/bots/node/bot.js"   # a program (any language), or
    # class = "examples/bot_class.py:HighCard"   # a Python class
    protocol = 1
    move_seconds = 10.0
    on_failure = "fallback"        # or "leave"

    [games]
    join = ["GAME_ID", "GAME_ID:2"]
    concurrency = 3
    exit_when_done = false

    [[games.seek]]                 # Play now: a ticket at a time per seek, `count` games in all
    kind = "rough"
    rated = false
    count = 2
    options = { target_score = 200 }

    [log]
    level = "info"
    format = "json"
"""

from __future__ import annotations

import argparse
import os
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from atout.client.session import checked_base_url
from atout.runner.journal import FORMATS, LEVELS
from schema.kinds import GameKind
from workers.arena.protocol import VERSION, VERSIONS

KEY_VARIABLE = "ATOUT_BOT_KEY"
POLICIES = ("fallback", "leave")
KINDS: tuple[str, ...] = get_args(GameKind)


class ConfigError(ValueError):
    """The configuration cannot be run: a sentence saying which option and why."""


@dataclass(frozen=True)
class Join:
    """A game to join at the start (its seat, or the first open one)."""

    game_id: str
    seat: int | None = None


@dataclass(frozen=True)
class Seek:
    """Play now: ``count`` games of ``kind`` (0: without end), one ticket at a time."""

    kind: str
    rated: bool = False
    count: int = 1
    options: dict[str, Any] | None = None


@dataclass(frozen=True)
class RunnerConfig:
    url: str
    key: str = field(default="", repr=False)
    bot: str | type | None = None
    """A bot class: ``module:Class``, ``path/to/file.py:Class`` or (from a program) the class itself."""
    command: str | None = None
    protocol: int = VERSION
    move_seconds: float = 10.0
    on_failure: str = "fallback"
    join: tuple[Join, ...] = ()
    seek: tuple[Seek, ...] = ()
    concurrency: int = 1
    exit_when_done: bool = False
    state: Path | None = None
    max_outage: float = 300.0
    ndjson: bool = False
    log_level: str = "info"
    log_format: str = "json"
    key_env: str = KEY_VARIABLE
    key_from: str = ""
    """Where the key was found (``--token``, the file, ``$ATOUT_BOT_KEY``): for the log, never the key."""

    def __post_init__(self) -> None:
        check(self)


# --- the options, declared once ---------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    path: str
    """Its place in the file, ``section.key``."""
    dest: str
    """The :class:`RunnerConfig` field it sets."""
    flag: str
    kind: str
    """``str``, ``int``, ``float``, ``bool``, ``path``, ``choice``, ``joins`` or ``seeks``."""
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    metavar: str | None = None


OPTIONS: tuple[Option, ...] = (
    Option("service.url", "url", "--url", "str", None, "the service, e.g. http://localhost:8000 (required)"),
    Option(
        "service.key",
        "key",
        "--token",
        "str",
        None,
        "the bot account's API key (better: leave it out of the file, in the variable key_env names)",
    ),
    Option(
        "service.key_env",
        "key_env",
        "--key-env",
        "str",
        KEY_VARIABLE,
        "the environment variable the API key is read from when neither --token nor key gives it",
    ),
    Option(
        "service.state",
        "state",
        "--state",
        "path",
        None,
        "a file keeping the stream's cursor across restarts (optional: the key plays on without it)",
    ),
    Option(
        "service.max_outage",
        "max_outage",
        "--max-outage",
        "float",
        300.0,
        "seconds the service may stay unreachable before the runner gives up (exit code 3)",
    ),
    Option(
        "service.ndjson",
        "ndjson",
        "--ndjson",
        "bool",
        False,
        "read the bot's stream as NDJSON rather than SSE (behind a proxy that buffers SSE)",
    ),
    Option(
        "bot.class",
        "bot",
        "BOT",
        "str",
        None,
        "a Python bot class, module:Class or path/to/file.py:Class (or give bot.command)",
    ),
    Option(
        "bot.command",
        "command",
        "--cmd",
        "str",
        None,
        "a bot program in any language, split like a shell command line, speaking the bot protocol "
        "(JSON lines on stdin/stdout: workers/arena/protocol.py); one process per seat and game",
    ),
    Option(
        "bot.protocol",
        "protocol",
        "--protocol",
        "choice",
        VERSION,
        "the bot protocol the program speaks: 1 (hello, game_start, your_turn, hand_end, game_end) or "
        "0 (the turn alone, as the arena's first programs)",
        VERSIONS,
    ),
    Option(
        "bot.move_seconds",
        "move_seconds",
        "--move-seconds",
        "float",
        10.0,
        "seconds a bot has for one move (a program's first also includes its start-up); later is a failure",
    ),
    Option(
        "bot.on_failure",
        "on_failure",
        "--on-failure",
        "choice",
        "fallback",
        "when the bot raises, crashes, times out or answers an illegal move (always logged as bot_failed): "
        "fallback plays a legal move (a pass if legal, else the first) and goes on; leave gives the seat "
        "up (a random bot of the service plays it out)",
        POLICIES,
    ),
    Option(
        "games.join",
        "join",
        "--join",
        "joins",
        (),
        "games to join at the start, GAME or GAME:SEAT (the flag repeats, and replaces the file's list)",
        metavar="GAME[:SEAT]",
    ),
    Option(
        "games.seek",
        "seek",
        "--seek",
        "seeks",
        (),
        "Play now (POST /v1/matchmaking/tickets): KIND[:rated][:COUNT] on the command line, a [[games.seek]] "
        "table (kind, rated, count, options) in the file; one ticket at a time per seek, while fewer than "
        "concurrency games are in play; count 0 seeks without end",
        metavar="KIND[:rated][:COUNT]",
    ),
    Option(
        "games.concurrency",
        "concurrency",
        "--concurrency",
        "int",
        1,
        "games played at once: decisions in flight at most, and the games Play now keeps going",
    ),
    Option(
        "games.exit_when_done",
        "exit_when_done",
        "--exit-when-done",
        "bool",
        False,
        "exit (code 0) once every game joined or sought is over, rather than wait for more",
    ),
    Option(
        "log.level", "log_level", "--log-level", "choice", "info", "the lowest level logged", tuple(LEVELS)
    ),
    Option(
        "log.format",
        "log_format",
        "--log-format",
        "choice",
        "json",
        "json: one JSON object a line; text: key=value lines for a terminal",
        FORMATS,
    ),
)
BY_PATH = {option.path: option for option in OPTIONS}


def options_table() -> str:
    """Every option as a Markdown table (file key, flag, default, meaning): for the docs. A default
    is written as the file takes it (``false``, not Python's ``False``)."""
    rows = ["| In the file | On the command line | Default | What it does |", "|---|---|---|---|"]
    for o in OPTIONS:
        shown = str(o.default).lower() if isinstance(o.default, bool) else o.default
        default = "—" if o.default in (None, ()) else f"`{shown}`"
        flag = f"`{o.flag}`" + (" (`--key`)" if o.flag == "--token" else "")
        flag += f" / `--no-{o.flag[2:]}`" if o.kind == "bool" else ""
        rows.append(f"| `{o.path}` | {flag} | {default} | {o.help.replace('|', '/')} |")
    return "\n".join(rows)


DOC_BEGIN = "<!-- runner-options: generated from atout/runner/config.py (OPTIONS) by make openapi -->"
DOC_END = "<!-- runner-options: end -->"


def with_options_table(page: str) -> str:
    """``page`` (docs/bots.md) with the part between its two markers replaced by :func:`options_table`,
    so that the guide lists every option the runner takes (tests/test_docs_generated.py checks it);
    a page without the markers is refused, not overwritten."""
    head, begin, rest = page.partition(DOC_BEGIN)
    _, end, tail = rest.partition(DOC_END)
    if not begin or not end:
        raise ValueError(f"the page has no section between {DOC_BEGIN!r} and {DOC_END!r}")
    return f"{head}{DOC_BEGIN}\n{options_table()}\n{DOC_END}{tail}"


def write_options_table(path: str | Path) -> None:
    """Rewrite the options table of the page at ``path`` in place (``make openapi``)."""
    page = Path(path)
    page.write_text(with_options_table(page.read_text(encoding="utf-8")), encoding="utf-8")


# --- values -----------------------------------------------------------------------------------------


def _joins(value: Any, where: str) -> tuple[Join, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} is a list of GAME or GAME:SEAT strings")
    joins = []
    for spec in value:
        game, colon, seat = spec.partition(":")
        if not game or (colon and not seat.isdigit()):
            raise ConfigError(f"{where} takes GAME or GAME:SEAT, not {spec!r}")
        joins.append(Join(game, int(seat) if colon else None))
    return tuple(joins)


def seek_of_spec(spec: str) -> Seek:
    """``KIND[:rated][:COUNT]``, the command line's seek."""
    kind, *rest = spec.split(":")
    rated = bool(rest) and rest[0] == "rated"
    rest = rest[1:] if rated else rest
    if len(rest) > 1 or (rest and not rest[0].isdigit()):
        raise ConfigError(f"--seek takes KIND[:rated][:COUNT], e.g. rough:rated:3, not {spec!r}")
    return Seek(kind, rated, int(rest[0]) if rest else 1)


def _seek_of_table(table: Any, where: str) -> Seek:
    if isinstance(table, str):
        return seek_of_spec(table)
    if not isinstance(table, dict):
        raise ConfigError(f"{where} holds tables (kind, rated, count, options) or KIND[:rated][:COUNT]")
    unknown = set(table) - {"kind", "rated", "count", "options"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r} (kind, rated, count, options)")
    kind, rated, count, options = (table.get(k) for k in ("kind", "rated", "count", "options"))
    if not isinstance(kind, str):
        raise ConfigError(f"{where} needs a kind ({', '.join(KINDS)})")
    if not isinstance(rated, bool | None) or not (count is None or type(count) is int):
        raise ConfigError(f"{where}: rated is true or false, count a whole number")
    if options is not None and not isinstance(options, dict):
        raise ConfigError(f"{where}: options is a table of rule options, e.g. {{ target_score = 200 }}")
    return Seek(kind, bool(rated), 1 if count is None else count, options)


def _seeks(value: Any, where: str) -> tuple[Seek, ...]:
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where} is a list of seeks ([[games.seek]] tables)")
    return tuple(v if isinstance(v, Seek) else _seek_of_table(v, where) for v in value)


def _scalar(option: Option, value: Any, where: str) -> Any:
    kind = option.kind
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int" and type(value) is int:
        return value
    if kind == "float" and type(value) in (int, float):
        return float(value)
    if kind in ("str", "path") and isinstance(value, str | Path) and str(value):
        return Path(value) if kind == "path" else value
    if kind == "choice" and value in option.choices:
        return value
    if kind == "str" and option.dest == "bot" and isinstance(value, type):
        return value  # a class, given by a program
    wanted = {"bool": "true or false", "int": "a whole number", "float": "a number", "path": "a path"}
    expected = wanted.get(kind, "a string") if kind != "choice" else " or ".join(map(repr, option.choices))
    raise ConfigError(f"{where} is {expected}, not {value!r}")


def value_of(option: Option, value: Any, where: str) -> Any:
    """``value`` checked and converted for ``option`` (``where``: how to name it in an error)."""
    if option.kind == "joins":
        return _joins(value, where)
    if option.kind == "seeks":
        return _seeks(value, where)
    return _scalar(option, value, where)


# --- the file, the command line, the key ------------------------------------------------------------


def read_file(path: Path) -> dict[str, Any]:
    """The options a TOML file sets, by :class:`RunnerConfig` field; a key it does not know is an
    error (a typo must not be ignored)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read the config file {path}: {error.strerror or error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not TOML: {error}") from error
    found: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict) or section not in {o.path.split(".")[0] for o in OPTIONS}:
            raise ConfigError(f"{path}: unknown section [{section}] (service, bot, games, log)")
        for key, value in table.items():
            option = BY_PATH.get(f"{section}.{key}")
            if option is None:
                raise ConfigError(f"{path}: unknown option {section}.{key}")
            found[option.dest] = value_of(option, value, f"{section}.{key} in {path}")
    if "key" in found:
        found["key_from"] = str(path)
    return found


def _converter(option: Option) -> Callable[[str], Any]:
    if option.kind == "choice":
        return type(option.choices[0])
    return {"int": int, "float": float}.get(option.kind, str)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """``--config`` and a flag per option, each None (or absent) unless given: the file's values and
    the defaults are applied by :func:`from_flags`, so that the help shows each default once."""
    parser.add_argument("--config", type=Path, default=None, help="a TOML file of these options (below)")
    for o in OPTIONS:
        text = o.help + ("" if o.default in (None, ()) else f" (default: {o.default})")
        text += f" [{o.path}]"
        if o.flag == "BOT":
            parser.add_argument("bot", nargs="?", default=None, metavar="BOT", help=text)
        elif o.kind == "bool":
            parser.add_argument(
                o.flag, dest=o.dest, action=argparse.BooleanOptionalAction, default=None, help=text
            )
        elif o.kind in ("joins", "seeks"):
            parser.add_argument(
                o.flag, dest=o.dest, action="append", default=None, metavar=o.metavar, help=text
            )
        else:
            flags = (o.flag, "--key") if o.flag == "--token" else (o.flag,)
            parser.add_argument(
                *flags, dest=o.dest, type=_converter(o), default=None, help=text, choices=o.choices or None
            )


def from_flags(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> RunnerConfig:
    """The configuration of ``atout bot run``: the file (``--config``), the flags given over it, the
    defaults under both, and the key (``--token``, the file's, or ``$key_env``)."""
    given: dict[str, Any] = read_file(args.config) if args.config is not None else {}
    if getattr(args, "bot", None) is not None or getattr(args, "command", None) is not None:
        given.pop("bot", None)  # a bot on the command line, class or program, replaces the file's
        given.pop("command", None)
    for o in OPTIONS:
        value = getattr(args, o.dest, None)
        if value is not None and not (o.dest == "key" and value == ""):  # --token "": not given
            given[o.dest] = value_of(
                o, [seek_of_spec(v) for v in value] if o.kind == "seeks" else value, o.flag
            )
            if o.dest == "key":
                given["key_from"] = "--token"
    env = os.environ if environ is None else environ
    if not given.get("key"):
        variable = given.get("key_env", KEY_VARIABLE)
        given["key"], given["key_from"] = env.get(variable, ""), f"${variable}"
    if not given.get("url"):
        raise ConfigError("give the service's URL: --url, or url in the config file's [service]")
    return RunnerConfig(**given)


def key_file_exposed(path: Path | None) -> bool:
    """Whether a config file holding the key may be read by others than its owner."""
    if path is None:
        return False
    try:
        return bool(path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO))
    except OSError:
        return False


def check(config: RunnerConfig) -> None:
    """What makes a configuration impossible to run, said in a sentence (:class:`ConfigError`)."""
    try:
        checked_base_url(config.url)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if not config.key:
        raise ConfigError(
            f"give the bot account's API key: --token, key in the config file, or ${config.key_env}"
        )
    if (config.bot is None) == (config.command is None):
        raise ConfigError("give one bot: a Python class (BOT, bot.class) or a program (--cmd, bot.command)")
    if config.protocol not in VERSIONS:
        raise ConfigError(f"bot.protocol is one of {', '.join(map(str, VERSIONS))}, not {config.protocol!r}")
    if not config.move_seconds > 0 or not config.max_outage >= 0:
        raise ConfigError("bot.move_seconds is more than 0 and service.max_outage 0 or more")
    if config.on_failure not in POLICIES:
        raise ConfigError(f"bot.on_failure is fallback or leave, not {config.on_failure!r}")
    if config.concurrency < 1:
        raise ConfigError(f"games.concurrency is 1 or more, not {config.concurrency}")
    for seek in config.seek:
        if seek.kind not in KINDS or seek.count < 0:
            raise ConfigError(f"a seek is of a game kind ({', '.join(KINDS)}) and a count 0 or more: {seek}")
    if config.exit_when_done and not (config.join or config.seek):
        raise ConfigError("games.exit_when_done needs games to join or seek")
    if config.exit_when_done and any(seek.count == 0 for seek in config.seek):
        raise ConfigError("games.exit_when_done needs every seek to have a count (0 seeks without end)")
    if config.log_level not in LEVELS or config.log_format not in FORMATS:
        raise ConfigError(f"log.level is one of {', '.join(LEVELS)}; log.format json or text")
