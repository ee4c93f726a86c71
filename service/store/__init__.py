"""Redis: clients, keys, records and their scripts, the six stores (games, bot accounts, players,
ratings, webhooks, tournaments), retention and the stream fan-out. Above ``service.base``; knows
nothing of HTTP, RQ or the rules engine's moves.

One module per concern:

- ``redis_clients``: building a client, and the options that make every client survive a restart or
  a failover;
- ``keys``: key names, statuses and id patterns; ``records``: a game's record, a commit's outcome
  and the store's errors; ``scripts``: the Lua scripts;
- ``connection``: :class:`StoreConnection`, the client with its TTLs and replica-confirmed writes,
  and :class:`RegisteredScript`, how a store class declares the scripts it runs;
- ``games``: :class:`GameStore`; ``bot_accounts``: :class:`BotAccountStore`; ``players``:
  :class:`PlayerStore`; ``ratings``: :class:`RatingStore` (ratings, their histories, the ladders);
  ``webhooks``: :class:`WebhookStore` (the webhook endpoints, their delivery logs, the dead letters);
  ``tournaments``: :class:`TournamentStore` (the tournaments, their entrants, rounds and locks);
- ``retention``, ``fanout``, ``faults``: the move log and stream bounds, the streams hub, Redis
  faults as answers.

:class:`Store` is the six stores composed on one connection, as :class:`service.games.Games` composes
its concerns. Why one object rather than one store per caller: the server loop (``Games``) needs
several at every step (a move notifies the bot accounts seated and rates a finished game, a bot's
join takes a seat), so it would hold them anyway, and several objects on one client would leave it
unclear which one closes it; with one, the API and a worker build it once
(:meth:`StoreConnection.from_settings`) and close it once. Code that needs one concern only can say
so in its type (``GameStore``, ``BotAccountStore``, ...).
"""

from __future__ import annotations

from service.store.bot_accounts import BotAccountStore
from service.store.games import GameStore
from service.store.players import PlayerStore
from service.store.ratings import RatingStore
from service.store.tournaments import TournamentStore
from service.store.webhooks import WebhookStore

__all__ = [
    "BotAccountStore",
    "GameStore",
    "PlayerStore",
    "RatingStore",
    "Store",
    "TournamentStore",
    "WebhookStore",
]


class Store(GameStore, BotAccountStore, PlayerStore, RatingStore, WebhookStore, TournamentStore):
    """The games, the bot accounts, the players, the ratings, the webhooks and the tournaments in one
    Redis (or Redis Cluster), on one client."""
