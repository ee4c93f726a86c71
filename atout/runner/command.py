"""``atout bot``: ``run`` (connect a bot account and play every game it is seated in) and ``register``
(a new bot account: its id and API key). The service's ``atout`` command adds these to its own
(service/runtime/cli.py); they are here, with the runner, because a bot program carries no server code.

Exit codes: 0 stopped by SIGTERM or Ctrl-C; 2 what was asked cannot be done (a bot spec that names
no usable class, a URL that is not one, a key the service refuses, a join refused: the problem
``code`` is printed); 3 the service cannot be reached (at the start, or longer than
``--max-outage`` later)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from atout.client import NO_RETRY, ApiError, Client, ConnectionLost, RetryPolicy
from atout.runner.journal import ClientRecords, Journal
from atout.runner.play import Runner, ServiceGone, Stopped
from atout.runner.state import RunnerState, StateError
from workers.arena import ArenaError, load_bot

KEY_VARIABLE = "ATOUT_BOT_KEY"


def add_commands(sub: Any) -> None:
    """Add ``bot run`` and ``bot register`` to an argparse subparsers object (the ``atout`` command's)."""
    bot = sub.add_parser("bot", help="run a bot account (a Python class) on a service, or register one")
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
        description="Follows the bot's stream (GET /v1/bots/me/stream) and answers each your_turn with "
        "the class's decide(view, legal_actions), the same class `atout arena --a-bot` plays. Joins "
        "--join games first; takes the seats of tournament games as they come. Reconnects by itself. "
        "Logs one JSON line per decision on stderr.",
    )
    run.add_argument("bot", help="the bot class: module:Class, or path/to/file.py:Class")
    run.add_argument("--url", required=True, help="the service, e.g. http://localhost:8000")
    run.add_argument("--token", default=None, help=f"the bot account's API key (default: ${KEY_VARIABLE})")
    run.add_argument(
        "--join", action="append", default=[], metavar="GAME[:SEAT]", help="join this game first (repeatable)"
    )
    run.add_argument(
        "--state",
        type=Path,
        default=None,
        help="a file to keep the stream cursor (optional: the key plays on without it)",
    )
    run.add_argument(
        "--max-outage",
        type=float,
        default=300.0,
        help="seconds the service may stay unreachable (default 300)",
    )
    run.add_argument("--ndjson", action="store_true", help="read the stream as NDJSON rather than SSE")
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


def _joins(specs: list[str]) -> list[tuple[str, int | None]]:
    joins: list[tuple[str, int | None]] = []
    for spec in specs:
        game, colon, seat = spec.partition(":")
        if not game or (colon and not seat.isdigit()):
            raise ValueError(f"--join takes GAME or GAME:SEAT, not {spec!r}")
        joins.append((game, int(seat) if colon else None))
    return joins


def run_command(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get(KEY_VARIABLE)
    if not token:
        return _fail(2, f"give the bot account's API key: --token, or ${KEY_VARIABLE}")
    try:
        bot = load_bot(args.bot)
        joins = _joins(args.join)
        state = RunnerState.load(args.state)
        client = _client(args.url, token)
    except (ArenaError, StateError, ValueError) as error:
        return _fail(2, str(error))
    journal = Journal()
    runner = Runner(bot, client, state, journal, max_outage=args.max_outage, ndjson=args.ndjson)
    client_log = logging.getLogger("atout.client")
    records = ClientRecords(journal)
    client_log.addHandler(records)
    client_log.propagate = False  # its records are journal lines, not text beside them
    try:
        with stopped_by_signals(runner):
            try:
                with _client(args.url, token, NO_RETRY) as once:  # at the start a wrong URL fails at once
                    Runner(bot, once, state, journal).check()
                for game, seat in joins:
                    runner.join(game, seat)
                runner.run()
            except Stopped:
                pass
    except ApiError as error:
        return _fail(2, f"{error.code}: {error.detail}")
    except ConnectionLost as error:
        return _fail(3, f"cannot reach {args.url}: {error}")
    except ServiceGone as error:
        return _fail(3, str(error))
    finally:
        client.close()
        client_log.removeHandler(records)
        client_log.propagate = True
    journal("stopped", moves=runner.moves)
    return 0


@contextmanager
def stopped_by_signals(runner: Runner) -> Iterator[None]:
    """SIGTERM and SIGINT stop the runner (:meth:`Runner.stop`): at once while it waits, after the
    move in flight otherwise; a second signal does not wait for that move."""
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}

    def handler(signum: int, frame: FrameType | None) -> None:
        if runner.stopping:
            raise Stopped
        runner.journal("stopping", signal=signal.Signals(signum).name)
        runner.stop()

    for signum in previous:
        signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)
