"""Computer players: the bot strategies (``workers.bots``) and the RQ jobs that run them.

A bot is a pure function of one seat's view and its legal actions, so
it can never see a hidden card (docs/rules.md ALL-7).
"""
