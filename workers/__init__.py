"""Computer players: the bot strategies (``workers.bots``) and the arena that plays them against each
other (``workers.arena``). Pure code over one seat's view: the RQ worker that runs them for the
service is ``service.jobs`` (``atout worker``).

A bot is a pure function of one seat's view and its legal actions, so
it can never see a hidden card (docs/rules.md ALL-7).
"""
