"""Redis: clients, keys, records and their scripts, the six stores (games, bot accounts, players,
ratings, webhooks, tournaments), retention and the stream fan-out. Above ``service.base``; knows
nothing of HTTP, RQ or the rules engine's moves.

One module per concern:

- ``redis_clients``: building a client, and the options that make every client survive a restart or
  a failover;
- ``keys``: key names, statuses and id patterns; ``records``: a game's record, a commit's outcome
  and the store's errors; ``scripts``: the Lua scripts;
- ``connection``: :class:`StoreConnection`, the client with its TTLs and replica-confirmed writes,
  :class:`StorePart`, a part of the store on it, and :class:`RegisteredScript`, how a part declares
  the scripts it runs;
- ``games``: :class:`GameStore`; ``bot_accounts``: :class:`BotAccountStore`; ``players``:
  :class:`PlayerStore`; ``ratings``: :class:`RatingStore` (ratings, their histories, the ladders);
  ``webhooks``: :class:`WebhookStore` (the webhook endpoints, their delivery logs, the dead letters);
  ``tournaments``: :class:`TournamentStore` (the tournaments, their entrants, rounds and locks);
- ``retention``, ``fanout``, ``faults``: the move log and stream bounds, the streams hub, Redis
  faults as answers.

:class:`Store` holds the six stores as its parts, on one connection (:class:`StoreConnection`: the client,
its TTLs, its replicated writes): ``store.games``, ``store.bots``, ``store.players``,
``store.ratings``, ``store.webhooks``, ``store.tournaments``, so a call names the part that answers it
(``store.bots.load_bot(bid)``). No part needs another (a player's deletion, a rated game: the games
layer calls each part in turn). Why one object rather than one store per caller: the server loop
(``Games``) needs several at every step (a move notifies the bot accounts seated and rates a finished
game, a bot's join takes a seat), so it would hold them anyway, and several objects on one client
would leave it unclear which one closes it; with one, the API and a worker build it once
(:meth:`Store.from_settings`) and close it once. Code that needs one part only takes that part
(``GameStore``, ``BotAccountStore``, ...).
"""

from __future__ import annotations

from typing import Any, Self, Unpack

from service.base.settings import Settings
from service.store.bot_accounts import BotAccountStore
from service.store.connection import StoreConnection
from service.store.games import GameStore
from service.store.matchmaking import MatchmakingStore
from service.store.players import PlayerStore
from service.store.ratings import RatingStore
from service.store.redis_clients import PoolOptions
from service.store.tournaments import TournamentStore
from service.store.webhooks import WebhookStore

__all__ = [
    "BotAccountStore",
    "GameStore",
    "MatchmakingStore",
    "PlayerStore",
    "RatingStore",
    "Store",
    "StoreConnection",
    "TournamentStore",
    "WebhookStore",
]


class Store:
    """The games, the bot accounts, the players, the ratings, the webhooks and the tournaments in one
    Redis (or Redis Cluster), each a part held on the one connection they share."""

    def __init__(self, connection: StoreConnection) -> None:
        self.connection = connection
        self.games = GameStore(connection)
        self.bots = BotAccountStore(connection)
        self.players = PlayerStore(connection)
        self.ratings = RatingStore(connection)
        self.webhooks = WebhookStore(connection)
        self.tournaments = TournamentStore(connection)
        self.matchmaking = MatchmakingStore(connection)

    @classmethod
    def from_url(
        cls,
        url: str,
        abandoned_ttl: int,
        finished_ttl: int,
        idempotency_ttl: int,
        *,
        cluster: bool = False,
        wait_replicas: int = 0,
        wait_ms: int = 1000,
        migration_wait_ms: int = 0,
        **pool: Unpack[PoolOptions],
    ) -> Self:
        """A store on its own client: :meth:`StoreConnection.from_url` says what each option does."""
        return cls(
            StoreConnection.from_url(
                url,
                abandoned_ttl,
                finished_ttl,
                idempotency_ttl,
                cluster=cluster,
                wait_replicas=wait_replicas,
                wait_ms=wait_ms,
                migration_wait_ms=migration_wait_ms,
                **pool,
            )
        )

    @classmethod
    def from_settings(cls, settings: Settings, **pool: Unpack[PoolOptions]) -> Self:
        """The store every process of the server uses (the API, a bot worker): the settings' Redis,
        lifetimes and replication; ``pool`` is what the process sizes for itself."""
        return cls(StoreConnection.from_settings(settings, **pool))

    @property
    def r(self) -> Any:
        """The shared client, for what reads Redis across the parts (the API's metrics)."""
        return self.connection.r

    async def close(self) -> None:
        await self.connection.close()

    async def ping(self) -> bool:
        return await self.connection.ping()
