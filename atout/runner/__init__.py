"""The bot runner: ``atout bot run my_module:MyBot --url … --token …`` (or ``--cmd "node bot.js"``,
or ``--config bot.toml``) connects a bot account to a service and plays every game it is seated in,
several at once, with the same bot that ``atout arena`` plays locally.

A bot is a Python class built with no argument, with one method, ``decide(view, legal_actions) ->
action`` (JSON objects: the seat's view and its legal actions as a ``your_turn`` notice carries them;
a discard comes as a template; schema/'s models when ``decide`` annotates its view with one), and
optional ``on_game_start``, ``on_hand_end``, ``on_game_end``; or a program in any language speaking
the bot protocol (``workers.arena.protocol``). :class:`Runner` is the loop (:mod:`atout.runner.play`),
usable from a program with a :class:`RunnerConfig`; :mod:`atout.runner.config` its options (a TOML
file, the command line); :mod:`atout.runner.command` the command line."""

from atout.runner.config import ConfigError, Join, RunnerConfig, Seek, options_table
from atout.runner.journal import Journal
from atout.runner.play import Runner, ServiceGone, Stopped
from atout.runner.state import RunnerState
from workers.arena import Bot, load_bot
from workers.arena.protocol import GameEnd, GameStart, HandEnd, YourTurn

__all__ = [
    "Bot",
    "ConfigError",
    "GameEnd",
    "GameStart",
    "HandEnd",
    "Join",
    "Journal",
    "Runner",
    "RunnerConfig",
    "RunnerState",
    "Seek",
    "ServiceGone",
    "Stopped",
    "YourTurn",
    "load_bot",
    "options_table",
]
