"""The job paths of the previous release, kept importable for a rolling upgrade: the RQ jobs moved to
``workers.jobs``, but RQ stores a job's function by its import path, and this release still enqueues
them under these paths (:data:`workers.jobs.queue.PLAY_TURN` and the rest) so that the previous
release's workers, which cannot import ``workers.jobs``, run them during a deploy. Only the job
functions are here (``turns``, ``tournaments``, ``webhooks``); nothing else of the old package is.

End date: remove after 2027-06-01, in two steps. First a release switches the five paths in
``workers/jobs/queue.py`` to ``workers.jobs.*`` (its previous release, this one, imports both); the
release after it deletes this package, once no job of a release that enqueued these paths can still
be queued (the longest wait is a turn timer: ``ATOUT_BOT_TURN_TIMEOUT`` plus a turn's seconds).
"""
