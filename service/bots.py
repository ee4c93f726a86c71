"""The job functions under their first import path, for a rolling upgrade: RQ stores a job's function
by its path, so a bot turn or a turn timer queued by a worker or API of the previous layout
(``service.bots.play_turn``) must still run on a worker of this one. New jobs name
``service.jobs.turns``; this module can go once no job of the old layout can be queued any more
(the longest is a turn timer, ``ATOUT_BOT_TURN_TIMEOUT`` plus a turn's seconds)."""

from service.jobs.turns import play_turn, turn_timeout

__all__ = ["play_turn", "turn_timeout"]
