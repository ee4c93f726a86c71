"""The bot runner: ``atout bot run my_module:MyBot --url … --token …`` connects a bot account to a
service and plays every game it is seated in, with the same ``Bot`` class that ``atout arena
--a-bot my_module:MyBot`` plays locally.

A bot is a class built with no argument, with one method, ``decide(view, legal_actions) -> action``
(JSON objects: the seat's view and its legal actions as a ``your_turn`` notice carries them; a
discard comes as a template). :class:`Runner` is the loop (:mod:`atout.runner.play`), usable from a
program; :mod:`atout.runner.command` is the command line."""

from atout.runner.journal import Journal
from atout.runner.play import Runner, ServiceGone, Stopped
from atout.runner.state import RunnerState
from workers.arena import Bot, load_bot

__all__ = ["Bot", "Journal", "Runner", "RunnerState", "ServiceGone", "Stopped", "load_bot"]
