"""Shim: the bot-turn jobs under their previous path ``service.jobs.turns`` (see ``service/jobs/__init__.py``;
remove after 2027-06-01, once no release that enqueues this path can be running)."""

from workers.jobs.turns import play_turn, turn_reminder, turn_timeout

__all__ = ["play_turn", "turn_reminder", "turn_timeout"]
