"""The bottom layer: settings, structured logs, problem codes and the process's own counters.

Nothing here knows Redis, HTTP or the games: every other layer may import it."""
