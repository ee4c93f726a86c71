"""Shim: the job functions under their first import path, from the layout before issue 20: RQ stores a
job's function by its path, so a bot turn or a turn timer queued by a worker or API of that layout
(``service.bots.play_turn``) must still run on a worker of this one. The functions are in
``workers.jobs.turns``; jobs are now enqueued as ``service.jobs.turns.*`` (``service/jobs/``).

End date: remove after 2027-01-31, with the next release: the previous release (5c5cea1) already
enqueued ``service.jobs.turns``, so a job under this path comes from two releases back, which the
upgrade policy (docs/operations.md, "Rolling upgrade": N-1) does not carry past one more release."""

from workers.jobs.turns import play_turn, turn_timeout

__all__ = ["play_turn", "turn_timeout"]
