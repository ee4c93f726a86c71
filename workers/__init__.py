"""Computer players and the workers that run them.

- ``workers.bots``: the bot strategies (``random``, ``heuristic``, ``expert``), pure code over one
  seat's view and its legal actions, so a bot can never see a hidden card (docs/rules.md ALL-7);
- ``workers.arena``: plays the strategies (or bot programs) against each other;
- ``workers.tournament``: the maths of tournaments (pairings, standings), pure code too;
- ``workers.jobs``: the RQ jobs and the worker process (``atout worker``) that play the service's bot
  turns, turn timers, tournament rounds and webhook deliveries through ``service.games``.

The first three are pure code on ``engine``, without any server dependency: the bot authors' toolkit
(``atout``) and the service both build on them. ``workers.jobs`` is the service's: it sits above
``service.games`` and below ``service.api`` (the layers in pyproject.toml), and this package's
``__init__`` imports none of its sub-packages, so importing a bot never pulls in the service.
"""
