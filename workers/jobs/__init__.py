"""The RQ side of the service: the producer the API calls (enqueue a bot turn, a turn timer, a
tournament check, a webhook delivery; the workers' health), the job functions a worker runs (a bot's
turn through ``service.games``, a timer, a reminder, a tournament's round, a delivery), the watchdog
of lost turns and the worker classes ``atout worker`` runs. Above ``service.games``, below
``service.api``; the strategies the jobs call are ``workers.bots``.

The jobs are still enqueued under their previous import paths (``service.jobs.*``, see
:mod:`workers.jobs.queue`), which ``service/jobs/`` keeps importable."""
