"""The server loop's one object, :class:`Games`, and its composition root, :func:`build_games`.

REST (:mod:`service.api.rest`), GraphQL (:mod:`service.api.graphql`) and the RQ workers
(:mod:`workers.jobs`) call a part of :class:`Games`, named at the call (``games.lobby.create(...)``);
each part is a plain class in a module of its own, built with what it needs (the store, the settings,
the shared pieces of :mod:`service.games.core`, and the sibling parts it calls):

- ``games.credentials`` (:class:`service.games.core.Credentials`): who a bearer token names
  (``is_admin``, ``bot_of``, ``player_of``, ``account_token``; a JWT verifier, ``use_identities``);
- ``games.core`` (:class:`service.games.core.GameCore`): the game cache (``get``, ``match_of``), who
  calls in a game (``caller_of``), and what a change sets going (a bot's job, a turn timer, the seated
  accounts' notices, a player's webhooks);
- ``games.lobby`` (:mod:`service.games.lobby`): create, list, summary, join, leave, rematch;
- ``games.invitations`` (:mod:`service.games.invitations`): invite, list, accept (a join of the lobby),
  decline;
- ``games.play`` (:mod:`service.games.play`): view, legal actions, submit and ``act_as`` (the move),
  replay log;
- ``games.players`` (:mod:`service.games.players`): guests, identities, the player's record, blocks and
  list of games, deleting a player, a long turn's reminder;
- ``games.ratings`` (:mod:`service.games.ratings`): rated matches and the ladders;
- ``games.bots`` (:mod:`service.games.bot_accounts`): bot accounts, their status and their notices;
- ``games.events`` (:mod:`service.games.events`): following a game's events and an account's notices;
- ``games.tournaments`` (:mod:`service.games.tournaments`);
- ``games.matchmaking`` (:mod:`service.games.matchmaking`): Play now's tickets and parties, and the
  matcher's pass (the pure matching: :mod:`service.games.matching`);
- ``games.webhooks`` (:mod:`service.games.webhooks`): the administrator's webhook endpoints, and
  ``emit_webhook``, which the core is given as its callback.

Who calls whom (each passed in the caller's constructor): the lobby calls the players; invitations
the lobby and the players; play the ratings (a finished rated match); players and bot accounts the
ratings (a deleted account's); players and invitations the webhooks; every part that reads or
changes games the core, and the core the credentials and the webhooks' ``emit_webhook``.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.base.counters import Metrics
from service.base.settings import Settings
from service.games.bot_accounts import BotAccounts
from service.games.core import (
    ENGINE_CODES,
    Caller,
    Credentials,
    EnqueueBot,
    GameCore,
    ScheduleTimer,
    engine_problem,
    new_game_id,
)
from service.games.events import EventDelivery
from service.games.invitations import Invitations
from service.games.lobby import Lobby
from service.games.matchmaking import Matchmaking
from service.games.play import Play
from service.games.players import Players
from service.games.ratings import Ratings
from service.games.tournaments import EnqueueTournament, Tournaments
from service.games.webhooks import EnqueueWebhook, Webhooks
from service.store import Store

__all__ = [
    "ENGINE_CODES",
    "Caller",
    "EnqueueBot",
    "EnqueueTournament",
    "EnqueueWebhook",
    "Games",
    "ScheduleTimer",
    "build_games",
    "engine_problem",
    "new_game_id",
]


@dataclass(frozen=True, eq=False)
class Games:
    """Games as REST, GraphQL and the workers see them: one instance per process, state in Redis only,
    each concern a part it holds (built by :func:`build_games`)."""

    credentials: Credentials
    core: GameCore
    webhooks: Webhooks
    ratings: Ratings
    players: Players
    lobby: Lobby
    invitations: Invitations
    play: Play
    bots: BotAccounts
    events: EventDelivery
    tournaments: Tournaments
    matchmaking: Matchmaking


def build_games(
    store: Store,
    settings: Settings,
    metrics: Metrics | None = None,
    enqueue_bot: EnqueueBot | None = None,
    schedule_timer: ScheduleTimer | None = None,
    enqueue_webhook: EnqueueWebhook | None = None,
    enqueue_tournament: EnqueueTournament | None = None,
) -> Games:
    """The composition root: every part of :class:`Games`, each given what it needs, for the API
    (service/api/app.py), the RQ workers (workers/jobs/turns.py) and the tests alike. The callbacks set
    work going elsewhere (the games layer imports no job): a bot's turn, a turn timer, a webhook's
    delivery, a tournament's next check; a process without one does without (nothing is enqueued)."""
    credentials = Credentials(store.bots, store.players, settings)
    webhooks = Webhooks(store.webhooks, settings, credentials, enqueue_webhook)
    core = GameCore(store, settings, credentials, webhooks.emit_webhook, enqueue_bot, schedule_timer)
    ratings = Ratings(store, settings)
    players = Players(core, store, settings, credentials, ratings, webhooks)
    lobby = Lobby(core, store, settings, credentials, players, metrics)
    return Games(
        credentials=credentials,
        core=core,
        webhooks=webhooks,
        ratings=ratings,
        players=players,
        lobby=lobby,
        invitations=Invitations(core, store, settings, lobby, players, webhooks),
        play=Play(core, store, settings, credentials, ratings, metrics),
        bots=BotAccounts(core, store, settings, credentials, ratings),
        events=EventDelivery(core, store, credentials),
        tournaments=Tournaments(core, store, settings, credentials, enqueue_tournament),
        matchmaking=Matchmaking(core, store, settings, credentials, players),
    )
