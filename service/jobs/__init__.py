"""RQ: the producer the API calls (enqueue a bot turn, a turn timer, worker health), the watchdog,
and the worker side that plays a turn through ``service.games``. Above ``service.games``."""
