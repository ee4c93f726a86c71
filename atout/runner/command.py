"""``atout bot``: ``run`` (connect a bot account and play every game it is seated in) and ``register``
(a new bot account: its id and API key). The service's ``atout`` command adds these to its own
(service/runtime/cli.py); they are here, with the runner, because a bot program carries no server code.

``run``'s options are :mod:`atout.runner.config`'s table (a TOML file with ``--config``, each flag
over it), so that its ``--help`` shows every one with its default and its place in the file.

Exit codes: 0 stopped by SIGTERM or Ctrl-C, or done (``--exit-when-done``); 2 what was asked cannot
be done (a bot spec that names no usable class, a program not found, a URL that is not one, a config
file with an unknown option, a key the service refuses, a join refused: the problem ``code`` is
printed); 3 the service cannot be reached (at the start, or longer than ``--max-outage`` later)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from typing import Any

from atout.client import ApiError, Client, ConnectionLost, RetryPolicy
from atout.runner.config import KEY_VARIABLE, ConfigError, add_flags, from_flags, key_file_exposed
from atout.runner.journal import ClientRecords, Journal
from atout.runner.play import Runner, ServiceGone
from atout.runner.state import StateError
from workers.arena import ArenaError

RUN_HELP = (
    "Follows the bot's stream (GET /v1/bots/me/stream) and answers each your_turn with the bot: a "
    "Python class's decide(view, legal_actions) (the class `atout arena --a-bot` plays), or a program in "
    "any language speaking the bot protocol, JSON lines on stdin/stdout (--cmd; workers/arena/protocol.py, "
    "examples/bots/node/bot.js). Joins --join games first, seeks --seek games (Play now), takes the seats "
    "of tournament games as they come, plays --concurrency games at once. Reconnects by itself. Logs one "
    "line per event on stderr (JSON unless --log-format text): a decision line per move, a bot_failed line "
    "(level error) when the bot raises, crashes, times out or answers an illegal move, then does what "
    f"--on-failure says. The API key: --token, the file's key, or ${KEY_VARIABLE} (--key-env)."
)


def add_commands(sub: Any) -> None:
    """Add ``bot run`` and ``bot register`` to an argparse subparsers object (the ``atout`` command's)."""
    bot = sub.add_parser(
        "bot", help="run a bot account (a Python class or a program) on a service, or register one"
    )
    add_bot_commands(bot.add_subparsers(dest="bot_command", required=True))


def main(argv: list[str] | None = None) -> int:
    """``python -m atout.runner run …`` / ``register …``: ``atout bot`` without the service's code to
    import (a bot's machine needs only this package, the engine, ``schema`` and ``workers``)."""
    parser = argparse.ArgumentParser(prog="python -m atout.runner", description="The Atout bot runner.")
    add_bot_commands(parser.add_subparsers(dest="bot_command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def add_bot_commands(commands: Any) -> None:
    """``run`` and ``register``, on a subparsers object."""
    run = commands.add_parser(
        "run",
        help="connect a bot account and play every game it is seated in, until SIGTERM",
        description=RUN_HELP,
    )
    add_flags(run)
    run.set_defaults(func=run_command)
    register = commands.add_parser(
        "register", help="register a bot account: prints its id and API key (once)"
    )
    register.add_argument("name", help="the bot's display name")
    register.add_argument("--url", required=True, help="the service, e.g. http://localhost:8000")
    register.add_argument("--contact", default=None, help="how to reach the bot's owner")
    register.set_defaults(func=register_command)


def _fail(code: int, message: str) -> int:
    print(f"atout bot: {message}", file=sys.stderr)
    return code


def _client(url: str, token: str | None, retry: RetryPolicy | None = None) -> Client:
    return Client(url, token, retry=retry)


def register_command(args: argparse.Namespace) -> int:
    try:
        with _client(args.url, None) as client:
            made = client.register_bot(args.name, args.contact)
    except ValueError as error:  # a bad URL, a name the API refuses
        return _fail(2, str(error))
    except ApiError as error:
        return _fail(2, f"{error.code}: {error.detail}")
    except ConnectionLost as error:
        return _fail(3, f"cannot reach {args.url}: {error}")
    print(json.dumps(made.model_dump(mode="json")))
    return 0


def run_command(args: argparse.Namespace) -> int:
    try:
        config = from_flags(args)
        journal = Journal(level=config.log_level, fmt=config.log_format)
        runner = Runner(config, journal)
    except (ConfigError, ArenaError, StateError, ValueError) as error:
        return _fail(2, str(error))
    if args.config is not None and config.key_from == str(args.config) and key_file_exposed(args.config):
        journal("key_in_file", level="warning", file=str(args.config), advice="chmod 600, or use key_env")
    client_log = logging.getLogger("atout.client")
    records = ClientRecords(journal)
    client_log.addHandler(records)
    client_log.propagate = False  # its records are journal lines, not text beside them
    try:
        asyncio.run(until_signalled(runner))
    except ApiError as error:
        return _fail(2, f"{error.code}: {error.detail}")
    except ConnectionLost as error:
        return _fail(3, f"cannot reach {config.url}: {error}")
    except ServiceGone as error:
        return _fail(3, str(error))
    finally:
        client_log.removeHandler(records)
        client_log.propagate = True
    journal("stopped", moves=runner.moves)
    return 0


async def until_signalled(runner: Runner) -> None:
    """:meth:`Runner.main`, stopped by SIGTERM and SIGINT (:meth:`Runner.stop`): after the moves in
    flight on the first, at once on a second."""
    loop = asyncio.get_running_loop()

    def stop(signum: signal.Signals) -> None:
        if not runner.stopping:
            runner.journal("stopping", signal=signum.name)
        runner.stop()

    signals = (signal.SIGTERM, signal.SIGINT)
    for signum in signals:
        loop.add_signal_handler(signum, stop, signum)
    try:
        await runner.main()
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
