"""Atout for bot authors: what a bot program needs and would otherwise write itself.

- ``atout.client``: a typed HTTP client of the service, sync and async (bearer tokens,
  an Idempotency-Key on every move, retries on 503/429 after Retry-After, streams that resume by
  themselves, problems raised as exceptions carrying their ``code``);
- ``atout.runner``: ``atout bot run module:Class``, which connects a bot account and plays every game
  it is seated in, the same ``Bot`` class that ``atout arena`` plays locally;
- ``atout.learn``: observation tensors and legal-action masks over a fixed action space per game
  (numpy), OpenSpiel registrations, PettingZoo and Gymnasium environments (optional extras).

A package of its own, above the engine, the API's models (``schema``) and the built-in bots
(``workers``) and beside the service: it imports nothing of ``service`` (an import-linter contract),
so a bot author's program carries no server code, and the service's ``atout`` command only calls into it.
"""
