"""Every setting of the service, read from the environment in one place."""

from __future__ import annotations

import argparse
import sys
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from limits import parse_many
from pydantic import AfterValidator, AliasChoices, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.base.issuers import Issuers

DAY = 24 * 3600


MAX_RETRIES = 30
MAX_RETRY_DELAY = 7 * 24 * 3600


def retry_delays(text: str) -> tuple[float, ...]:
    """``"5,30,120"`` as ``(5.0, 30.0, 120.0)``: the seconds before each retry of a failed delivery."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    try:
        delays = tuple(float(part) for part in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of seconds such as '5,30,120'") from None
    if len(delays) > MAX_RETRIES or not all(0 < d <= MAX_RETRY_DELAY for d in delays):
        raise ValueError(
            f"{text!r}: at most {MAX_RETRIES} delays, each more than 0 and at most {MAX_RETRY_DELAY} seconds"
        )
    return delays


def _schedule_text(value: str) -> str:
    retry_delays(value)  # checked at startup rather than at the first failed delivery
    return value


ScheduleText = Annotated[str, AfterValidator(_schedule_text)]


def _rate_text(value: str) -> str:
    """A rate limit in the `limits` notation, checked at startup rather than on the first request."""
    try:
        parse_many(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a rate such as '600/minute' or '10/second;300/hour'") from None
    return value


RateText = Annotated[str, AfterValidator(_rate_text)]


class Settings(BaseSettings):
    """Environment variables: ``REDIS_URL`` and ``ATOUT_*``, every one here, by section (the
    table in docs/configuration.md lists them in this order, with their defaults: ``python -m
    service.base.settings --doc docs/configuration.md``)."""

    model_config = SettingsConfigDict(env_prefix="ATOUT_", extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "ATOUT_REDIS_URL"),
        description="Redis to use; unset means `atout serve` starts an embedded redis-server.",
    )
    admin_token: str | None = Field(
        default=None,
        validation_alias=AliasChoices("ATOUT_ADMIN_TOKEN", "admin_token"),
        description="Bearer token that alone may choose a game's seed or deal, read a key before the end "
        "and delete bot accounts.",
    )
    redis_cluster: bool = Field(
        default=False,
        description="true: `REDIS_URL` names any node of a Redis Cluster (a seed; the client finds the "
        "others). The RQ queues then need a plain Redis: `ATOUT_QUEUE_URL`.",
    )
    queue_url: str | None = Field(
        default=None,
        description="Plain Redis of the RQ queues (bot turns, turn timers, webhook deliveries, the "
        "watchdog's set); unset: `REDIS_URL`. Required with `ATOUT_REDIS_CLUSTER` (RQ does not speak "
        "Cluster).",
    )
    redis_wait_replicas: int = Field(
        default=1,
        ge=0,
        le=5,
        description="When the game's Redis master has replicas, a move (and a join, a new game) is "
        "acknowledged only once this many replicas have it (`WAIT`); 0: never wait.",
    )
    redis_wait_ms: int = Field(
        default=1000,
        ge=10,
        le=30_000,
        description="Milliseconds a write waits for its replicas; a write not confirmed in time answers "
        "503 store_unavailable (retry it with the same Idempotency-Key).",
    )
    redis_migration_wait_ms: int = Field(
        default=3000,
        ge=0,
        le=30_000,
        description="Milliseconds a script refused by a Redis Cluster slot migration (TRYAGAIN, ASK, "
        "MOVED, a non-local key) is tried again, with a growing pause, until the slot settles; past "
        "that the request answers 503 store_unavailable with Retry-After (a bot turn's job is retried).",
    )
    data_dir: str = Field(default="var/redis", description="Data folder of the embedded redis-server.")
    host: str = Field(default="127.0.0.1", description="Address `atout serve` listens on (`--host`).")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `atout serve` listens on (`--port`).")
    abandoned_ttl: int = Field(
        default=7 * DAY,
        ge=1,
        description="Seconds without activity before an unfinished game expires (refreshed every 16 moves).",
    )
    finished_ttl: int = Field(
        default=30 * DAY, ge=1, description="Seconds a finished game (and its replay log) is kept."
    )
    idempotency_ttl: int = Field(default=DAY, ge=1, description="Seconds an Idempotency-Key is remembered.")
    cas_retries: int = Field(
        default=5,
        ge=0,
        description="Retries of a move lost to a race when the client sent no expected_version.",
    )
    sse_ping: float = Field(default=15.0, gt=0, description="Seconds between SSE keep-alive comments.")
    sse_block_ms: int = Field(
        default=5000,
        ge=1,
        description="Milliseconds a stream may stay idle before it checks that its game still exists.",
    )
    # --- open streams (service/store/fanout.py): SSE and GraphQL subscriptions ---
    streams_per_client: int = Field(
        default=32,
        ge=1,
        description="Open streams (SSE and subscriptions) one token, or one address without a token, may "
        "hold on one API process; one more gets 429 too_many_streams.",
    )
    streams_per_process: int = Field(
        default=5000,
        ge=1,
        description="Open streams one API process holds in all; one more gets 503 server_full.",
    )
    redis_pool: int = Field(
        default=100,
        ge=4,
        description="Redis connections of one API process's requests; a burst beyond waits for one "
        "(up to redis_pool_wait seconds, then 503 store_unavailable) instead of failing.",
    )
    redis_pool_wait: float = Field(
        default=5.0, gt=0, le=60, description="Seconds a request waits for a free Redis connection."
    )
    stream_pool: int = Field(
        default=16,
        ge=2,
        description="Redis connections of the stream readers, apart from the pool of requests (streams "
        "never take a connection a request needs).",
    )
    stream_readers: int = Field(
        default=4,
        ge=1,
        description="Reader tasks per process; each XREADs every followed stream of its group at once "
        "(fewer than stream_pool, which also serves catch-up reads).",
    )
    stream_poll_ms: int = Field(
        default=50,
        ge=5,
        le=1000,
        description="On a Redis Cluster (where a read may not block on keys of several slots), how often "
        "an idle stream reader polls its games: one pipelined XREAD per node; lower means less delivery "
        "lag and more Redis work (each followed game is read once per poll).",
    )
    stream_queue: int = Field(
        default=256,
        ge=1,
        description="Events a stream may fall behind before it is ended with a retry hint (the client "
        "resumes from its last event id).",
    )
    stream_window: int = Field(
        default=1024,
        ge=16,
        description="Events a match keeps in its Redis stream for readers that resume (about: trimmed "
        "every 32 moves; ~95 B each, docs/operations.md). 1024 holds a whole Le Rough match of ~300 "
        "moves (~2.6 events a move), so a client back from the background resumes where it left; a "
        "reader resuming from an older id is told to resync from the view (`stream_window_passed`).",
    )
    finished_stream_ttl: int = Field(
        default=900,
        ge=1,
        description="Seconds a finished match's event stream stays for readers that resume (a phone "
        "back from 15 minutes in the background); then only the final state and the compact move log "
        "remain (`/log` replays it; a late reader gets `events_expired`).",
    )
    bot_queue: str = Field(
        default="atout-bots", description="RQ queue of bot turns (expert turns use `<name>-expert`)."
    )
    bot_budget: float = Field(
        default=1.0, gt=0, le=30, description="Seconds an expert bot may think per move."
    )
    bot_turn_timeout: int = Field(
        default=120,
        ge=1,
        description="Seconds a bot turn may stay unplayed before a worker's watchdog enqueues its job again "
        "(a job lost with a Redis restart or a deleted queue).",
    )
    worker_ttl: int = Field(
        default=30,
        ge=5,
        description="Seconds a worker's heartbeat stays fresh (an idle worker beats every ttl-15 s, at "
        "least every second); /readyz reports a queue whose freshest heartbeat is older as stale.",
    )
    worker_metrics_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        description="Port on which `atout worker` serves its Prometheus `/metrics` (bot decision time, Redis "
        "errors); 0: not served (`--metrics-port`). Under `atout serve` the API's /metrics includes them.",
    )
    worker_metrics_host: str = Field(
        default="127.0.0.1",
        description="Address of the worker's `/metrics`; `0.0.0.0` to let Prometheus scrape a worker pod.",
    )
    embedded_maxmemory: str = Field(
        default="512mb",
        description="maxmemory of the embedded redis-server (noeviction: when full, writes are refused "
        "with 503 server_full and no game is ever evicted).",
    )
    supervisor_max_backoff: float = Field(
        default=30.0,
        gt=0,
        description="Longest wait, in seconds, before `atout serve` restarts a redis-server or worker that "
        "keeps dying (the wait doubles from 0.5 s at each quick death).",
    )
    log_json: bool = Field(default=True, description="JSON logs (true) or console logs (false).")
    access_log: bool = Field(default=True, description="One structured log line per HTTP request.")
    cors_origins: str = Field(
        default="*",
        description="Comma-separated origins web front ends may call from ('*': any; tokens are bearer "
        "headers, never cookies).",
    )
    log_level: str = Field(default="info", description="debug, info, warning or error.")
    # --- input limits (service/api/limits.py) ---
    max_body_bytes: int = Field(
        default=65_536, ge=1024, description="Largest request body in bytes; a larger one gets 413."
    )
    max_json_depth: int = Field(
        default=32, ge=2, le=200, description="Deepest nesting of arrays/objects in a JSON body (400 beyond)."
    )
    max_int_digits: int = Field(
        default=30, ge=1, le=4000, description="Most digits of an integer in a JSON body (422 beyond)."
    )
    # --- the HTTP server (service/runtime/http_server.py): connections, headers, WebSockets, proxies ---
    trusted_proxies: str = Field(
        default="",
        description="Comma-separated addresses or CIDRs of the reverse proxies whose `X-Forwarded-For` "
        "and `X-Forwarded-Proto` are believed (the client address behind every per-address limit); "
        "empty: none, the client address is the connection's peer.",
    )
    max_connections: int = Field(
        default=4000,
        ge=16,
        description="Open connections (streams and WebSockets included) one API process accepts; one more "
        "is answered 503 and closed. Keep it below the process's file-descriptor limit.",
    )
    max_connections_per_address: int = Field(
        default=256,
        ge=1,
        description="Open connections one peer address (an IPv6 /64) may hold on one API process; one "
        "more is answered 503 and closed. Trusted proxies are exempt.",
    )
    header_timeout: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="Seconds a client has to send a request's whole header, from its connection (or its "
        "first byte on a kept-alive connection); then the connection is closed (408).",
    )
    body_timeout: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Seconds a client has to send a request's whole body once its header is in; then "
        "408 request_timeout.",
    )
    max_header_bytes: int = Field(
        default=16_384,
        ge=1024,
        le=1_048_576,
        description="Largest request line and header in bytes; a larger one is answered 431 and closed.",
    )
    keep_alive_timeout: float = Field(
        default=5.0, gt=0, le=300, description="Seconds an idle kept-alive HTTP connection stays open."
    )
    ws_max_message_bytes: int = Field(
        default=65_536,
        ge=1024,
        description="Largest WebSocket message (after decompression); a larger one closes the connection "
        "(1009).",
    )
    ws_compression: bool = Field(
        default=False,
        description="true: offer permessage-deflate on WebSockets (the message cap still applies to the "
        "decompressed size).",
    )
    ws_messages_per_second: int = Field(
        default=20,
        ge=1,
        description="WebSocket messages a connection may send per second (bursts of twice that); more "
        "closes it (1008).",
    )
    ws_connections_per_address: int = Field(
        default=16,
        ge=1,
        description="GraphQL WebSockets one client address (an IPv6 /64) may hold open on one API "
        "process; one more is refused 429 too_many_connections.",
    )
    metrics_admin_only: bool = Field(
        default=False,
        description="true: `/metrics` on the API port answers only the administrator token (Prometheus "
        "sends it as a bearer token: `authorization` in its scrape config).",
    )
    # --- rate limits (service/api/ratelimit.py), in Redis so every replica shares them ---
    rate_limits: bool = Field(default=True, description="false: no rate limits at all.")
    rate_sync_ms: int = Field(
        default=50,
        ge=5,
        le=5000,
        description="Milliseconds between two syncs of a process's rate-limit counters with Redis (one "
        "pipelined round trip): each process enforces its own count at once, and every replica's "
        "within this delay.",
    )
    rate_create_game: RateText = Field(default="60/minute", description="Games created per token.")
    rate_create_game_per_address: RateText = Field(
        default="300/minute", description="Games created per client address."
    )
    rate_join: RateText = Field(default="300/minute", description="Joins per token (a bot's API key).")
    rate_join_per_address: RateText = Field(default="600/minute", description="Joins per client address.")
    rate_act: RateText = Field(default="600/minute", description="Actions per token (one seat).")
    rate_act_per_address: RateText = Field(
        default="12000/minute",
        description="Actions per client address: 200 a second, so a bot playing 50 games at once is not "
        "slowed (one address, one seat token per game).",
    )
    rate_register_bot: RateText = Field(default="30/hour", description="Bot registrations per token.")
    rate_register_bot_per_address: RateText = Field(
        default="60/hour", description="Bot registrations per client address."
    )
    rate_create_player: RateText = Field(default="30/hour", description="Guest players created per token.")
    rate_create_player_per_address: RateText = Field(
        default="30/hour", description="Guest players created per client address (POST /v1/players)."
    )
    rate_open_stream: RateText = Field(
        default="120/minute", description="SSE streams and subscriptions opened per token."
    )
    rate_open_stream_per_address: RateText = Field(
        default="600/minute", description="SSE streams and subscriptions opened per client address."
    )
    # --- bounded data (service/games/quotas.py, the indexes of service/store/keys.py) ---
    max_open_games_per_creator: int = Field(
        default=100,
        ge=1,
        description="Unfinished games one creator (a bot account, else a client address) may have; "
        "one more gets 429 too_many_games.",
    )
    max_open_games: int = Field(
        default=1_000_000,
        ge=1,
        description="Unfinished games on the whole server (approximate across replicas); one more gets "
        "503 server_full.",
    )
    bot_idle_ttl: int = Field(
        default=90 * DAY,
        ge=1,
        description="Seconds a bot account is kept without its API key being used; then it expires.",
    )

    # --- tournaments (service/games/tournaments.py): ATOUT_TOURNAMENT_* ---------------------------------
    tournament_poll_seconds: float = Field(
        default=1.0,
        ge=0.1,
        le=60,
        description="Seconds between two checks of a tournament's round (an RQ job each): how soon the next "
        "round starts once the last game of a round is over.",
    )
    tournament_max_seconds: int = Field(
        default=DAY,
        ge=60,
        le=30 * DAY,
        description="Seconds a tournament may run; past them it stops (`stopped`), scored on the games "
        "finished, and its key is revealed. Bounds the checks a tournament can cost.",
    )
    matchmaking_bot_fill_seconds: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="Seconds a Play-now ticket waits for strangers before the empty chairs of its table "
        "(with at least one person) are filled with built-in bots near the people's rating.",
    )
    matchmaking_rated_bot_fill: bool = Field(
        default=False, description="Whether built-in bots may fill empty chairs of a rated Play-now table."
    )
    matchmaking_window_start: float = Field(
        default=5.0,
        ge=0,
        description="Display-rating points either side a rated Play-now ticket accepts at once (display "
        "ratings run from about 0, a new account, to 50).",
    )
    matchmaking_window_growth: float = Field(
        default=0.5, ge=0, description="Points the rated window widens by each second a ticket waits."
    )
    matchmaking_window_max: float = Field(
        default=50.0, ge=0, description="The widest rated window: past it, anyone of the pool."
    )
    matchmaking_ticket_seconds: int = Field(
        default=600, ge=10, le=DAY, description="Seconds a Play-now ticket waits before it expires."
    )
    matchmaking_max_waiting: int = Field(
        default=20_000,
        ge=1,
        description="Tickets the server holds waiting at once (each pass of the matcher reads them all); "
        "more: 503 server_full.",
    )
    matchmaking_interval: float = Field(
        default=1.0, gt=0, le=60, description="Seconds between two passes of a matcher (`atout matchmaker`)."
    )
    tournament_ttl: int = Field(
        default=30 * DAY,
        ge=3600,
        description="Seconds a tournament's record (standings, games, key) is kept after its last change.",
    )
    tournament_max_games: int = Field(
        default=4000,
        ge=2,
        le=100_000,
        description="Games one tournament may play in all (entrants, rounds and deals multiplied); a larger "
        "one is refused (422 invalid_tournament).",
    )
    tournament_account_max_games: int = Field(
        default=400,
        ge=2,
        le=100_000,
        description="Games a tournament a bot account creates may play in all (the administrator's: "
        "`tournament_max_games`); a larger one is refused (422 invalid_tournament).",
    )
    tournament_max_running_games: int = Field(
        default=2000,
        ge=1,
        le=1_000_000,
        description="Tournament games the whole server runs at once (every tournament's, the "
        "administrator's too), besides the caps on unfinished games every game counts against "
        "(`ATOUT_MAX_OPEN_GAMES_PER_CREATOR` for a bot account's tournaments, `ATOUT_MAX_OPEN_GAMES`). "
        "A round is admitted whole: one larger than this is refused at creation (422 invalid_tournament); "
        "a first round that does not fit yet gets 503 tournaments_full, a later one waits until it fits.",
    )
    tournament_account_running: int = Field(
        default=2,
        ge=1,
        le=100,
        description="Tournaments one bot account may have running at once; one more gets 429 "
        "too_many_tournaments.",
    )

    # --- webhooks to the apps' backends (service/games/webhooks.py, workers/jobs/webhooks.py) ----------
    webhook_queue: str = Field(
        default="atout-webhooks",
        description="RQ queue of webhook deliveries (`atout worker --queues webhooks`), apart from the bot "
        "queues: a slow receiver never delays a bot's move.",
    )
    webhook_allow_private: bool = Field(
        default=False,
        description="true: a webhook endpoint may resolve to a loopback, private, link-local or other "
        "non-public address (tests, a receiver beside the service); false: such an endpoint is refused at "
        "registration and every delivery to one is refused (no request to internal services).",
    )
    webhook_retry_schedule: ScheduleText = Field(
        default="5,30,120,600,1800,3600,10800,21600,43200",
        description="Seconds before each retry of a failed webhook delivery, comma-separated (each waits "
        "a random time between half and all of it); a message that fails its last retry is dead-lettered. "
        "The default retries nine times over 11 to 23 hours.",
    )
    webhook_connect_timeout: float = Field(
        default=5.0, gt=0, le=60, description="Seconds a webhook delivery may take to connect (TLS included)."
    )
    webhook_read_timeout: float = Field(
        default=10.0,
        gt=0,
        le=120,
        description="Seconds a webhook delivery waits for the receiver's answer; the whole exchange is cut "
        "after the connect and read timeouts together, however slowly the receiver trickles bytes.",
    )
    webhook_max_response_bytes: int = Field(
        default=65_536,
        ge=0,
        le=10_485_760,
        description="Bytes of a receiver's answer a delivery reads at most; then it closes the connection "
        "(the status alone says whether the message was delivered).",
    )
    webhook_max_endpoints: int = Field(
        default=50,
        ge=1,
        le=1000,
        description="Webhook endpoints the operator may register; one more is refused (webhook_limit).",
    )
    webhook_log_size: int = Field(
        default=1000, ge=10, le=100_000, description="Delivery attempts kept per endpoint (the newest)."
    )
    webhook_dead_letters: int = Field(
        default=1000,
        ge=10,
        le=100_000,
        description="Dead letters (messages that failed every retry) kept, the newest; older ones are "
        "dropped.",
    )

    @property
    def webhook_retry_delays(self) -> tuple[float, ...]:
        """The retry schedule as seconds (:data:`webhook_retry_schedule`, already checked)."""
        return retry_delays(self.webhook_retry_schedule)

    # --- rated games and ladders (service/games/ratings.py): ATOUT_RATING_*, ATOUT_RATED_* ---------------
    rating_provisional_matches: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="A rating is provisional (flagged on the ladder) until this many rated matches of the "
        "game kind.",
    )
    rating_repeat_full: int = Field(
        default=3,
        ge=1,
        le=100,
        description="Rated matches between the very same accounts within 24 hours that count in full; "
        "each further one counts half as much as the one before.",
    )
    rating_repeat_max: int = Field(
        default=6,
        ge=1,
        le=100,
        description="Past this many rated matches between the very same accounts within 24 hours, a match "
        "does not move their ratings at all (it is still recorded in their history, with weight 0).",
    )
    rating_turn_seconds: int = Field(
        default=86_400,
        ge=5,
        le=30 * 86_400,
        description="The turn clock of a rated game created without `turn_seconds`: when it runs out a bot "
        "plays the move, so a rated match cannot be stalled until it expires unrated.",
    )
    rating_timeouts_to_bot: int = Field(
        default=3,
        ge=1,
        le=100,
        description="The `timeouts_to_bot` of a rated game created without one: after this many timed-out "
        "turns in a row a bot takes the seat for good, and its account is rated as having left.",
    )
    rating_history_length: int = Field(
        default=200,
        ge=1,
        le=10_000,
        description="Rating changes kept per account and game kind (the oldest are dropped).",
    )
    rating_newcomer_weight: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="The share of its change an established account's rating moves by in a rated match "
        "against a provisional opponent (the provisional account moves in full): a win over a fresh guest "
        "or bot account, which costs one request, is worth little (service/games/ratings.py).",
    )
    rated_identities: Literal["any", "identified"] = Field(
        default="any",
        description="Who sits at a rated table: `any` identity (a guest player, a player of a trusted "
        "issuer, a bot account), or `identified` (never a guest player: only players signed in with a "
        "trusted issuer's JWT, bot accounts and built-in bots).",
    )

    # --- players, their games, invitations, reminders (service/games/players.py, invitations.py) ---------
    player_idle_ttl: int = Field(
        default=365 * DAY,
        ge=60,
        description="Seconds a player (guest or identified) is kept without a request of theirs; then "
        "the account expires like a deleted one.",
    )
    player_max_games: int = Field(
        default=300,
        ge=1,
        le=10_000,
        description="Games one player's list holds (finished ones are dropped first); a join beyond it "
        "gets 429 too_many_games.",
    )
    invitation_ttl: int = Field(
        default=7 * DAY, ge=60, description="Seconds an invitation to a table stays open."
    )
    invitations_per_player: int = Field(
        default=100, ge=1, description="Open invitations one player may hold; one more gets 429."
    )
    invitations_per_inviter: int = Field(
        default=3,
        ge=1,
        description="Open invitations one player may hold from one inviter (so nobody fills another's "
        "list alone); one more gets 429 too_many_pending_invitations. Inviting again to the same table "
        "refreshes the invitation instead.",
    )
    invitations_per_hour: int = Field(
        default=30,
        ge=1,
        description="Invitations one player may send in an hour, to everyone together (refreshed ones "
        "count); one more gets 429 too_many_invitations_sent.",
    )
    player_notices_per_sender: int = Field(
        default=10,
        ge=1,
        description="Notices one player's invitations and rematch offers may put on another player's "
        "stream in an hour; past it the invitation still lands in the list, without a notice.",
    )
    player_max_blocks: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="Players one player may block (refuse invitations from); one more gets 409 "
        "too_many_blocks (refusing everyone's is the `invitations` preference).",
    )
    reminder_min_turn_seconds: int = Field(
        default=3600,
        ge=1,
        description="A turn clock this long or longer sends the player a `reminder` before it runs out "
        "(when a quarter of it is left, at most a day before).",
    )
    # --- players signed in by their app (service/identity/, docs/operations.md "Identity from your app") ---
    jwt_issuers: Issuers = Field(
        default=[],
        description="JSON list of the issuers whose bearer JWTs say who a player is: `issuer`, `audience`, "
        "`jwks_url` or `keys` (PEM public keys or a JWKS), `algorithms` (RS256, ES256, EdDSA: default all).",
    )
    jwt_leeway_seconds: int = Field(
        default=60, ge=0, le=300, description="Seconds of clock skew allowed on a JWT's exp, nbf and iat."
    )
    jwks_refetch_seconds: int = Field(
        default=30, ge=1, le=3600, description="Least seconds between two fetches of an issuer's JWKS."
    )
    jwks_max_age_seconds: int = Field(
        default=3600, ge=1, le=DAY, description="Seconds an issuer's fetched keys are used before a refresh."
    )
    jwks_fetch_timeout: float = Field(
        default=5.0, gt=0, le=60, description="Seconds one JWKS fetch may take in all (connect and read)."
    )
    jwks_max_bytes: int = Field(
        default=65_536, ge=1024, le=1_048_576, description="Largest JWKS document read, in bytes."
    )

    # --- GraphQL documents (service/api/graphql/limits.py): ATOUT_GRAPHQL_* ------------------------------
    graphql_max_bytes: int = Field(
        default=32_768, ge=1024, description="Largest GraphQL document (the `query` text) in bytes."
    )
    graphql_max_tokens: int = Field(
        default=2_000,
        ge=100,
        description="Most lexical tokens in a GraphQL document (parsing stops there; GraphiQL's "
        "introspection query has 184).",
    )
    graphql_max_operations: int = Field(
        default=20, ge=1, description="Most operations in one GraphQL document."
    )
    graphql_max_fragments: int = Field(
        default=100, ge=0, description="Most fragment definitions in one GraphQL document."
    )
    graphql_max_spreads: int = Field(default=200, ge=0, description="Most fragment spreads in one document.")
    graphql_max_aliases: int = Field(default=30, ge=0, description="Most aliased fields in one document.")
    graphql_max_selections: int = Field(
        default=500,
        ge=10,
        description="Most selections (fields, spreads, inline fragments) written in one document.",
    )
    graphql_max_depth: int = Field(
        default=15,
        ge=1,
        description="Deepest nesting of selections (root fields at 0); the introspection query needs 14.",
    )
    graphql_max_cost: int = Field(
        default=2000,
        ge=10,
        description="Most fields an operation may resolve: each field costs 1 times the sizes of the lists "
        "around it (games 50 or its limit, seats 5, actions 50, events 50, webhooks, deliveries and "
        "deadLetters 50 or their limit), fragments expanded.",
    )
    graphql_max_value_depth: int = Field(
        default=32, ge=2, description="Deepest nesting of lists and objects in an argument literal."
    )
    graphql_introspection: bool = Field(
        default=True,
        description="false: `__schema` and `__type` queries are refused (introspection_disabled).",
    )

    @model_validator(mode="after")
    def _queues_need_plain_redis(self) -> Settings:
        if self.redis_cluster and self.redis_url and not self.queue_url:
            raise ValueError(
                "ATOUT_REDIS_CLUSTER needs ATOUT_QUEUE_URL: RQ queues live on a plain Redis, not a Cluster"
            )
        return self

    @property
    def queue_redis_url(self) -> str | None:
        """The Redis of the RQ queues: ``queue_url``, else the games' Redis."""
        return self.queue_url or self.redis_url


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def environment_name(name: str) -> str:
    """The environment variable of a setting (``REDIS_URL`` for ``redis_url``, else ``ATOUT_*``)."""
    alias = Settings.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return f"ATOUT_{name.upper()}"


# The table's sections, each named by its first setting (the settings follow the class's order), so
# docs/configuration.md has a heading, and an anchor, per concern: `configuration.md#rate-limits`.
SECTIONS: dict[str, str] = {
    "redis_url": "Redis, the server and game lifetimes",
    "streams_per_client": "Open streams",
    "bot_queue": "Workers and bot turns",
    "log_json": "Logs and CORS",
    "max_body_bytes": "Input limits",
    "trusted_proxies": "HTTP connections, headers, WebSockets and proxies",
    "rate_limits": "Rate limits",
    "max_open_games_per_creator": "Bounded data",
    "tournament_poll_seconds": "Tournaments and Play now",
    "webhook_queue": "Webhooks",
    "rating_provisional_matches": "Rated games and ladders",
    "player_idle_ttl": "Players, invitations and reminders",
    "jwt_issuers": "Players signed in by their app (JWT)",
    "graphql_max_bytes": "GraphQL documents",
}


def default_text(name: str) -> str:
    """A setting's default as the table shows it: ``(unset)`` for None, ``(empty)`` for ``""`` (an
    empty code span would not render), a boolean as it is written in the environment (``true``)."""
    default = Settings.model_fields[name].default
    if default is None:
        return "(unset)"
    if isinstance(default, bool):
        return f"`{str(default).lower()}`"
    return "(empty)" if default == "" else f"`{default}`"


def markdown_table() -> str:
    """Every setting with its default and meaning, one table per section (:data:`SECTIONS`), as
    docs/configuration.md shows them between its markers (a test keeps them equal)."""
    header = ["| Variable | Default | Meaning |", "| --- | --- | --- |"]
    rows: list[str] = []
    for name, field in Settings.model_fields.items():
        if name in SECTIONS:
            rows += [*([""] if rows else []), f"## {SECTIONS[name]}", "", *header]
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{environment_name(name)}` | {default_text(name)} | {meaning} |")
    return "\n".join(rows) + "\n"


START, END = "<!-- settings:start -->\n", "<!-- settings:end -->"


def with_table(page: str) -> str:
    """``page`` with the text between its settings markers replaced by the current table; a page
    without both markers is refused (``ValueError``) rather than overwritten."""
    if START not in page or END not in page:
        raise ValueError(f"no {START.strip()} ... {END} markers in the page: nothing to rewrite")
    head, rest = page.split(START, 1)
    return head + START + markdown_table() + END + rest.split(END, 1)[1]


def main(argv: list[str]) -> int:
    """``python -m service.base.settings`` prints the table; ``--doc docs/configuration.md`` rewrites
    it in that page between its markers (``make openapi`` does)."""
    parser = argparse.ArgumentParser(prog="python -m service.base.settings", description=main.__doc__)
    parser.add_argument("--doc", type=Path, metavar="PAGE", help="rewrite the table between PAGE's markers")
    args = parser.parse_args(argv)
    if args.doc is None:
        sys.stdout.write(markdown_table())
        return 0
    try:
        args.doc.write_text(with_table(args.doc.read_text()))
    except ValueError as refused:
        print(f"{args.doc}: {refused}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
