"""The store's Redis keys, the statuses a game goes through and the patterns its ids must match.

Keys of game ``g`` (all share the hash tag ``{g}``, so a game lives in one Cluster slot):

- ``atout:game:{g}``      hash: ``version``, ``state`` (the engine's JSON), ``status``, the game's
  fixed facts (``game``, ``players``, ``options``, ``seed`` …) and one ``seat:<i>:*`` group per seat;
- ``atout:events:{g}``    stream: one entry per event, fields ``v`` (version) and ``e`` (event JSON);
- ``atout:log:{g}``       list: the applied actions in order, the replay log;
- ``atout:idem:{g}:<k>``  string: the first result of a request sent with an Idempotency-Key.

Bot account ``b``: ``atout:bot:{b}`` (name, API key hash), ``atout:botgames:{b}`` (its games) and
``atout:botturns:{b}`` (a stream of its "your turn" and "game over" notices). The account expires
after ``bot_idle_ttl`` seconds without its key being used; its two indexes expire with the games
they list (and its notices stream is capped in length): service/store/bot_accounts.py.

Keys shared by games, every one bounded: ``atout:open`` (listed games waiting for players, checked
on read; entries older than the abandoned-game TTL are pruned on every write and read, and the
key's own TTL is refreshed on write), ``atout:opengames:{0..15}`` (the unfinished games, sharded,
scored by expiry: the server-wide count of service/games/quotas.py) and ``atout:creator:{c}`` (one
creator's unfinished games, scored by expiry, at most the per-creator cap).

Player ``p`` (service/store/players.py): ``atout:player:{p}`` (name, locale, the guest token's hash,
the linked identity), ``atout:playergames:{p}`` (sorted set: the games the player sits in, scored by
the time of the join, at most ``player_max_games``), ``atout:playerevents:{p}`` (a capped stream of
the player's notices) and ``atout:playerinvites:{p}`` (hash: the invitations the player holds, each
with its expiry), ``atout:playerseats:{p}`` (sorted set: every game the player ever sat in, which the
games list's cap does not trim, each member dropped once its game is gone: what deleting the player
visits), ``atout:playerblocks:{p}`` (set: the players whose invitations ``p`` refuses, at most
``player_max_blocks``), ``atout:invitessent:{p}`` (a counter of the invitations ``p`` sent this hour)
and ``atout:noticesfrom:{p}:<sender>`` (a counter of the notices another player caused on ``p``'s
stream this hour). An identity from an app's identity provider points at its player:
``atout:identity:{<sha256 of issuer and subject>}``. A player expires after ``player_idle_ttl``
seconds without a request; every index with it (the counters expire with their hour).

Tournament ``t`` (service/store/tournaments.py): ``atout:tournament:{t}`` (its record, JSON, expiring
``tournament_ttl`` seconds after its last change) and ``atout:tournamentlock:{t}`` (held for seconds by
the one job advancing it) and ``atout:tournamentevents:{t}`` (its event stream, capped like an
account's notices, written and followed through the accounts' path: :func:`account_keys`).

A seat's ``owner`` names the account that holds it: a bot account's id, or ``player:<id>``
(:func:`player_owner`), so one notice path (a move's commit telling the account to act next) serves
both kinds of account.

Webhooks (service/store/webhooks.py), every key under the one hash tag ``{hooks}`` (a registration or
a delete is one script over several of them; there are few endpoints): ``atout:webhooks:{hooks}``
(the endpoints' ids, scored by creation), ``atout:webhook:{hooks}:<id>`` (an endpoint: URL, event
types, secret), ``atout:webhookevent:{hooks}:<type>`` (the enabled endpoints of an event type),
``atout:webhooklog:{hooks}:<id>`` (an endpoint's delivery log, a capped stream),
``atout:webhookdead:{hooks}`` (the dead letters, a capped stream) and
``atout:webhooksent:{hooks}:<id>:<message>`` (a keyed message enqueued for an endpoint, for an hour).

No command names two hash tags, so none ever names two Cluster slots.
"""

from __future__ import annotations

import hashlib
import re

OPEN_INDEX = "atout:open"  # sorted set of listed games with open seats: a hint, the game hash is the truth
OPEN_GAME_SHARDS = 16  # shards of the count of unfinished games (service/games/quotas.py)
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # a game's or a bot account's id
# A Redis stream id, ``<ms>-<seq>``; ``<ms>`` alone means ``<ms>-0`` (as XREAD reads it). At most 19
# digits each, so both stay below 2**64 as Redis requires; ASCII digits (Python's ``\d`` would take
# any script's).
STREAM_ID = "[0-9]{1,19}(-[0-9]{1,19})?"
# Where a stream resumes (Last-Event-ID, ``last_event_id``, GraphQL's ``after``): after an event id,
# or, empty, from the start, as an SSE client's last event id is empty until an event with an id
# came; the OpenAPI document gives it as these parameters' pattern. Match it with ``fullmatch``
# (``$`` alone would let a trailing newline through).
RESUME_AFTER_PATTERN = re.compile(f"^({STREAM_ID})?$")

STATUS_WAITING = "waiting"
STATUS_ACTIVE = "active"
STATUS_FINISHED = "finished"


def game_key(gid: str) -> str:
    return f"atout:game:{{{gid}}}"


def events_key(gid: str) -> str:
    return f"atout:events:{{{gid}}}"


def log_key(gid: str) -> str:
    return f"atout:log:{{{gid}}}"


def idem_key(gid: str, scope: str, key: str) -> str:
    digest = hashlib.sha256(f"{scope}\0{key}".encode()).hexdigest()
    return f"atout:idem:{{{gid}}}:{digest}"


BOT_NOTICES_MAXLEN = 10_000
"""A bot's notice stream keeps about this many notices (service/store/bot_accounts.py)."""


def bot_key(bid: str) -> str:
    return f"atout:bot:{{{bid}}}"


def bot_games_key(bid: str) -> str:
    return f"atout:botgames:{{{bid}}}"


def bot_turns_key(bid: str) -> str:
    return f"atout:botturns:{{{bid}}}"


PLAYER_OWNER = "player:"
"""A seat ``owner`` that starts with this is a player's (the rest is the player id); any other is a
bot account's id (bot ids never hold a colon)."""


def tournament_key(tid: str) -> str:
    return f"atout:tournament:{{{tid}}}"


def tournament_events_key(tid: str) -> str:
    return f"atout:tournamentevents:{{{tid}}}"


def tournament_owner(tid: str) -> str:
    """A tournament as the owner of a notices stream (its event stream reuses the accounts' path)."""
    return f"tournament:{tid}"


def tournament_creator_key(bid: str) -> str:
    """A bot account's running tournaments (sorted set, scored by when each must have ended)."""
    return f"atout:tournaments:{{{bid}}}"


def tournament_lock_key(tid: str) -> str:
    return f"atout:tournamentlock:{{{tid}}}"


def player_owner(pid: str) -> str:
    return f"{PLAYER_OWNER}{pid}"


def owner_player(owner: str) -> str | None:
    """The player id of a seat owner, or None when the owner is a bot account (or nobody)."""
    return owner[len(PLAYER_OWNER) :] if owner.startswith(PLAYER_OWNER) else None


def player_key(pid: str) -> str:
    return f"atout:player:{{{pid}}}"


def player_games_key(pid: str) -> str:
    return f"atout:playergames:{{{pid}}}"


def player_events_key(pid: str) -> str:
    return f"atout:playerevents:{{{pid}}}"


def player_invites_key(pid: str) -> str:
    return f"atout:playerinvites:{{{pid}}}"


def player_seats_key(pid: str) -> str:
    return f"atout:playerseats:{{{pid}}}"


def player_blocks_key(pid: str) -> str:
    return f"atout:playerblocks:{{{pid}}}"


def invites_sent_key(pid: str) -> str:
    return f"atout:invitessent:{{{pid}}}"


def notices_from_key(recipient: str, sender: str) -> str:
    """The hourly count of the notices ``sender``'s actions put on ``recipient``'s stream (in the
    recipient's slot: one key a command)."""
    return f"atout:noticesfrom:{{{recipient}}}:{sender}"


def identity_key(issuer: str, subject: str) -> str:
    digest = hashlib.sha256(f"{issuer}\0{subject}".encode()).hexdigest()
    return f"atout:identity:{{{digest}}}"


def account_keys(owner: str) -> tuple[str, str]:
    """The account hash and the notices stream of a seat's owner, player or bot account (or of a
    tournament: its record and its event stream, which follow the same path)."""
    pid = owner_player(owner)
    if pid is not None:
        return player_key(pid), player_events_key(pid)
    if owner.startswith("tournament:"):
        tid = owner.partition(":")[2]
        return tournament_key(tid), tournament_events_key(tid)
    return bot_key(owner), bot_turns_key(owner)


def open_games_key(gid: str) -> str:
    """One of ``OPEN_GAME_SHARDS`` sorted sets counting the server's unfinished games (a shard per hash
    tag, so no key holds them all and each lives in its own Cluster slot)."""
    shard = int.from_bytes(hashlib.sha256(gid.encode()).digest()[:4], "big") % OPEN_GAME_SHARDS
    return open_games_shard(shard)


def open_games_shard(shard: int) -> str:
    return f"atout:opengames:{{{shard}}}"


def creator_key(creator: str) -> str:
    """The sorted set of one creator's unfinished games (``creator`` is already a digest)."""
    return f"atout:creator:{{{creator}}}"


def hash_token(token: str) -> str:
    """What the store keeps of a seat token, an invite code or a bot's API key: its SHA-256, never the
    secret itself."""
    return hashlib.sha256(token.encode()).hexdigest()


WEBHOOK_ID = re.compile(r"^wh_[0-9a-f]{16}$")  # an endpoint's id, as service/games/webhooks.py makes it
WEBHOOKS_INDEX = "atout:webhooks:{hooks}"
WEBHOOK_DEAD = "atout:webhookdead:{hooks}"


def webhook_key(wid: str) -> str:
    return f"atout:webhook:{{hooks}}:{wid}"


def webhook_event_key(event_type: str) -> str:
    return f"atout:webhookevent:{{hooks}}:{event_type}"


def webhook_log_key(wid: str) -> str:
    return f"atout:webhooklog:{{hooks}}:{wid}"


def webhook_sent_key(wid: str, message_id: str) -> str:
    return f"atout:webhooksent:{{hooks}}:{wid}:{message_id}"
