"""Players in Redis: one hash per player, the sorted set of the games they sit in, the index of every
game they ever sat in, their invitations, the players they block, and the identity of an app's
identity provider that points at them (keys in service/store/keys.py).

Every key is bounded: a player expires after ``idle_ttl`` seconds without a request (each request
refreshes the hash and the indexes that must outlive any game of theirs, in the same step as the
read, and only once the credential verified: :meth:`PlayerStore.load_player`); the games index holds
at most ``max_games`` entries and expires with the player; the seats index holds a game only while
that game exists (:meth:`PlayerStore.add_player_seat`); invitations are capped per player and per
inviter, and each carries its expiry; the blocks are capped per player; the notices stream is capped
like a bot's (``BOT_NOTICES_MAXLEN``); the hourly counters expire with their hour.

A player's name lives in the player hash and in the seats they hold, nowhere else: the games'
histories and the stored notices never carry it, so deleting the account removes it for good
(service/games/players.py), visiting every game of the seats index.
"""

from __future__ import annotations

import json
import time
from typing import Any

from service.store.connection import RegisteredScript, StorePart
from service.store.keys import (
    GAME_ID,
    game_key,
    identity_key,
    invites_sent_key,
    player_blocks_key,
    player_events_key,
    player_games_key,
    player_invites_key,
    player_key,
    player_seats_key,
)
from service.store.redis_clients import hash_reply
from service.store.scripts import ADD_PLAYER_GAME_LUA, FORGET_SEAT_LUA

# KEYS: the player, then the indexes that live as long as the player;  ARGV: default idle ttl, the
# hash of the token presented ("" when the caller proved the player otherwise).  The player's fields,
# the TTLs refreshed, only when the token's hash is the player's: a token that does not verify reads
# nothing and changes nothing (no TTL of the player it names is refreshed).
LOAD_PLAYER_LUA = """
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then return h end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[2] then return {} end
local ttl = tonumber(redis.call('HGET', KEYS[1], 'idle_ttl') or ARGV[1]) or tonumber(ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ttl) end
end
return h
"""

# KEYS: the player's invitations, the player;  ARGV: now, a new invitation id, the invitation (JSON,
# without its id: the hash field is the id), its game, its inviter, the cap per player, the cap per
# inviter, the key's TTL.  Expired invitations are dropped; one of the same game from the same
# inviter is refreshed in place (it keeps its id); otherwise the caps hold. Returns {outcome, id}:
# new, refreshed, inviter (the inviter holds the cap per inviter), full, gone (no such player).
PUT_INVITATION_LUA = """
if redis.call('EXISTS', KEYS[2]) == 0 then return {'gone', ''} end
local now = tonumber(ARGV[1])
local held = redis.call('HGETALL', KEYS[1])
local count, mine, same = 0, 0, nil
for i = 1, #held, 2 do
  local inv = cjson.decode(held[i + 1])
  if tonumber(inv.expires_at) <= now then
    redis.call('HDEL', KEYS[1], held[i])
  else
    count = count + 1
    if inv.from_player == ARGV[5] then
      mine = mine + 1
      if inv.game_id == ARGV[4] then same = held[i] end
    end
  end
end
local outcome, iid = 'new', ARGV[2]
if same then
  outcome, iid = 'refreshed', same
elseif mine >= tonumber(ARGV[7]) then
  return {'inviter', ''}
elseif count >= tonumber(ARGV[6]) then
  return {'full', ''}
end
redis.call('HSET', KEYS[1], iid, ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[8]))
return {outcome, iid}
"""

# KEYS: a counter;  ARGV: its window in seconds.  The count with this hit, and the seconds the window
# has left (a fixed window: it starts at the first hit).
COUNT_HIT_LUA = """
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
"""

# KEYS: the player's seats index, the player;  ARGV: game, when to check it.  Nothing for a player gone.
ADD_PLAYER_SEAT_LUA = """
local ttl = redis.call('TTL', KEYS[2])
if ttl < 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""

# KEYS: the player's blocks, the player;  ARGV: the player to block, the cap.
# 1 blocked (or already), 0 the player is gone, -1 the cap is reached.
BLOCK_LUA = """
local ttl = redis.call('TTL', KEYS[2])
if ttl < 0 then return 0 end
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""

# KEYS: game;  ARGV: seat, owner.  A seat given up before the start (open again) is nobody's: its
# owner and client seed cleared if ``owner`` still has it (a seat taken again meanwhile is left be).
FREE_SEAT_LUA = """
local seat = 'seat:' .. ARGV[1]
if redis.call('HGET', KEYS[1], seat .. ':kind') ~= 'open' then return 0 end
if redis.call('HGET', KEYS[1], seat .. ':owner') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], seat .. ':owner', '', seat .. ':client_seed', '')
return 1
"""

SEAT_CHECKS = 50
"""Members of a seats index whose check is due, checked (and dropped if their game is gone) per add."""

INVITATIONS_NOBODY = "nobody"
"""The player field ``invitations`` of a player who takes no invitation (absent: everyone's)."""

GAME_FIELDS = ("game", "players", "status", "version", "to_act", "updated_at", "created_at", "listed")
"""What a player's list of games reads of each game (never its state): enough to sort and show it."""


class PlayerStore(StorePart):
    """Async access to the players in one Redis (or Redis Cluster)."""

    _load_player = RegisteredScript(LOAD_PLAYER_LUA)
    _add_game = RegisteredScript(ADD_PLAYER_GAME_LUA)
    _add_seat = RegisteredScript(ADD_PLAYER_SEAT_LUA)
    _forget_seat = RegisteredScript(FORGET_SEAT_LUA)
    _free_seat = RegisteredScript(FREE_SEAT_LUA)
    _put_invitation = RegisteredScript(PUT_INVITATION_LUA)
    _count_hit = RegisteredScript(COUNT_HIT_LUA)
    _block = RegisteredScript(BLOCK_LUA)

    async def create_player(self, pid: str, fields: dict[str, str], idle_ttl: int) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(
                player_key(pid),
                mapping={**fields, "created_at": repr(time.time()), "idle_ttl": str(idle_ttl)},
            )
            pipe.expire(player_key(pid), idle_ttl)
            await pipe.execute()

    async def load_player(self, pid: str, idle_ttl: int, token_hash: str = "") -> dict[str, str] | None:
        """The player, the idle TTL refreshed in the same step, with the indexes that must live as long
        as the player (the seats index, which deleting the player visits, and the blocks); the games
        index is refreshed when it is written. With ``token_hash`` (a guest token's), None and
        nothing refreshed unless it is the player's: a made-up ``atp_<id>_x`` must not keep the player
        ``<id>`` alive, so the check and the refresh are one step."""
        if not GAME_ID.match(pid):
            return None
        keys = [player_key(pid), player_seats_key(pid), player_blocks_key(pid)]
        flat = await self._load_player(keys=keys, args=[str(idle_ttl), token_hash])
        return hash_reply(flat) or None

    async def player_name(self, pid: str) -> str:
        """A player's display name, "" for none: read without refreshing the player's idle TTL (a
        notice delivered to someone else is no request of theirs)."""
        if not GAME_ID.match(pid):
            return ""
        return str(await self.r.hget(player_key(pid), "name") or "")

    async def player_exists(self, pid: str) -> bool:
        return bool(GAME_ID.match(pid)) and bool(await self.r.exists(player_key(pid)))

    async def update_player(self, pid: str, fields: dict[str, str]) -> bool:
        """Change fields of an existing player (never creates one)."""
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.exists(player_key(pid))
            pipe.hset(player_key(pid), mapping=fields)
            exists, _ = await pipe.execute()
        if not exists:
            await self.r.delete(player_key(pid))
        return bool(exists)

    async def delete_player(self, pid: str) -> None:
        """The player's keys (one slot: one command); the identity pointing at it is the caller's. The
        hourly counters of notices sent to the player expire within the hour (they hold no name)."""
        await self.r.delete(
            player_key(pid),
            player_games_key(pid),
            player_events_key(pid),
            player_invites_key(pid),
            player_seats_key(pid),
            player_blocks_key(pid),
            invites_sent_key(pid),
        )

    # --- the identity of an app's identity provider -------------------------------------------

    async def player_of_identity(self, issuer: str, subject: str) -> str | None:
        value = await self.r.get(identity_key(issuer, subject))
        return None if value is None else str(value)

    async def claim_identity(self, issuer: str, subject: str, pid: str, ttl: int) -> str:
        """Point the identity at ``pid`` unless it points at a player already; the player it points
        at afterwards (``pid``, or the one that had it)."""
        key = identity_key(issuer, subject)
        if await self.r.set(key, pid, nx=True, ex=ttl):
            return pid
        current = await self.r.get(key)
        return pid if current is None else str(current)

    async def refresh_identity(self, issuer: str, subject: str, ttl: int) -> None:
        await self.r.expire(identity_key(issuer, subject), ttl)

    async def forget_identity(self, issuer: str, subject: str, pid: str) -> None:
        key = identity_key(issuer, subject)
        if await self.r.get(key) == pid:
            await self.r.delete(key)

    # --- the player's games --------------------------------------------------------------------

    async def add_player_game(self, pid: str, gid: str, max_games: int) -> bool:
        """Index a game the player joined (in the games list, and in the seats index that deleting
        the player visits); False (nothing written) when the list is full of games that are not over:
        the caller refuses the join before it takes the seat."""
        added = bool(
            await self._add_game(
                keys=[player_games_key(pid), player_key(pid)],
                args=[gid, repr(time.time()), str(max_games)],
            )
        )
        if added:
            await self.add_player_seat(pid, gid)
        return added

    async def add_player_seat(self, pid: str, gid: str) -> None:
        """Add ``gid`` to the player's seats index: every game they ever sat in, which the games list's
        cap does not trim, so that deleting the player removes the name from a finished game long
        dropped from the list. Why not resolve names at read time instead: a table's names are fixed
        when the seats are taken (a rename does not change them mid-match), and every view, summary
        and stream would read the player records. The index is bounded by the games' own TTLs: a
        member is scored by when to look at its game again (first ``abandoned_ttl`` ahead); each add
        looks at up to ``SEAT_CHECKS`` members due, dropping those whose game is gone and putting the
        others off by their game's TTL left, so a member lives about as long as its game."""
        key = player_seats_key(pid)
        now = time.time()
        due = [str(g) for g in await self.r.zrangebyscore(key, "-inf", now, start=0, num=SEAT_CHECKS)]
        if due:
            async with self.r.pipeline(transaction=False) as pipe:
                for old in due:
                    pipe.ttl(game_key(old))
                ttls = await pipe.execute()
            gone = [g for g, ttl in zip(due, ttls, strict=True) if int(ttl) == -2]
            later = {g: now + max(60, int(ttl)) for g, ttl in zip(due, ttls, strict=True) if int(ttl) != -2}
            async with self.r.pipeline(transaction=True) as pipe:
                if gone:
                    pipe.zrem(key, *gone)
                if later:
                    pipe.zadd(key, later, xx=True)
                await pipe.execute()
        await self._add_seat(
            keys=[key, player_key(pid)], args=[gid, repr(now + self.connection.abandoned_ttl)]
        )

    async def player_seat_game_ids(self, pid: str) -> list[str]:
        """Every game of the seats index (each a game the player sat in, that may still exist)."""
        return [str(g) for g in await self.r.zrange(player_seats_key(pid), 0, -1)]

    async def forget_player_game(self, pid: str, gid: str) -> None:
        await self.r.zrem(player_games_key(pid), gid)

    async def player_game_ids(self, pid: str) -> list[str]:
        """Every game of the index, most recently joined first."""
        return [str(g) for g in await self.r.zrevrange(player_games_key(pid), 0, -1)]

    async def count_player_games(self, pid: str) -> int:
        return int(await self.r.zcard(player_games_key(pid)))

    async def game_facts(self, gids: list[str], seats: int = 5) -> list[dict[str, str] | None]:
        """A few fields of each game (:data:`GAME_FIELDS` and every seat's owner and name), in one
        round trip; None for a game gone. A pipeline per node on a Cluster (games are in many slots)."""
        fields = [*GAME_FIELDS, *(f"seat:{i}:{f}" for i in range(seats) for f in ("owner", "name", "kind"))]
        async with self.r.pipeline(transaction=False) as pipe:
            for gid in gids:
                pipe.hmget(game_key(gid), fields)
            replies = await pipe.execute()
        out: list[dict[str, str] | None] = []
        for values in replies:
            if values[0] is None:
                out.append(None)
            else:
                out.append({f: v for f, v in zip(fields, values, strict=True) if v is not None})
        return out

    async def forget_seat(self, gid: str, seat: int, owner: str) -> bool:
        """Remove the name and the token of ``owner``'s seat (an account deleted): the seat stays in
        the game, held by nobody, so a finished game still replays for the others."""
        return bool(await self._forget_seat(keys=[game_key(gid)], args=[str(seat), owner]))

    async def free_seat(self, gid: str, seat: int, owner: str) -> bool:
        """Clear the owner of a seat ``owner`` gave up before the start (the store's leave opened it
        and took its token and name): otherwise the seat still names them, and one player, one seat
        refuses their join of another seat of the table (409), an invitation to them says they are
        seated, and their list still shows the game. A seat taken again meanwhile is left be."""
        return bool(await self._free_seat(keys=[game_key(gid)], args=[str(seat), owner]))

    # --- invitations, blocks, and the hourly counters of what one player sends another ------------

    async def put_invitation(
        self, pid: str, iid: str, invitation: dict[str, Any], cap: int, per_inviter: int
    ) -> tuple[str, str]:
        """Store an invitation for ``pid`` (expired ones dropped first), in one step: ``("new", iid)``;
        ``("refreshed", the id it had)`` when the same inviter invited ``pid`` to the same game
        already (one entry, its expiry renewed: repeating an invitation adds nothing to the list);
        ``("inviter", "")`` when ``pid`` holds ``per_inviter`` open invitations from this inviter (so
        no single inviter can fill the list); ``("full", "")`` at ``cap``; ``("gone", "")`` when the
        player does not exist."""
        fields = {k: v for k, v in invitation.items() if k != "invitation_id"}
        # every invitation lives as long (the setting), so the newest is the last to expire
        ttl = max(1, int(invitation["expires_at"] - time.time()) + 60)
        outcome, held = await self._put_invitation(
            keys=[player_invites_key(pid), player_key(pid)],
            args=[
                repr(time.time()),
                iid,
                json.dumps(fields),
                str(invitation["game_id"]),
                str(invitation["from_player"]),
                str(cap),
                str(per_inviter),
                str(ttl),
            ],
        )
        return str(outcome), str(held)

    async def invitations(self, pid: str) -> dict[str, dict[str, Any]]:
        """The player's live invitations by id (expired ones dropped)."""
        await self.prune_invitations(pid)
        raw = await self.r.hgetall(player_invites_key(pid))
        return {str(k): {**json.loads(v), "invitation_id": str(k)} for k, v in raw.items()}

    async def take_invitation(self, pid: str, iid: str) -> dict[str, Any] | None:
        """Remove and return one invitation (None when there is none, or it expired)."""
        key = player_invites_key(pid)
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hget(key, iid)
            pipe.hdel(key, iid)
            raw, _ = await pipe.execute()
        if raw is None:
            return None
        invitation: dict[str, Any] = {**json.loads(raw), "invitation_id": iid}
        return invitation if invitation["expires_at"] > time.time() else None

    async def prune_invitations(self, pid: str) -> None:
        key = player_invites_key(pid)
        now = time.time()
        raw = await self.r.hgetall(key)
        expired = [k for k, v in raw.items() if json.loads(v)["expires_at"] <= now]
        if expired:
            await self.r.hdel(key, *expired)

    async def count_hit(self, key: str, window: int = 3600) -> tuple[int, int]:
        """One more hit on an hourly counter (a fixed window from its first hit): the count with it,
        and the seconds the window has left (a refusal's Retry-After)."""
        count, left = await self._count_hit(keys=[key], args=[str(window)])
        return int(count), max(1, int(left))

    async def refuses_invitations(self, pid: str, inviter: str) -> bool:
        """Whether ``pid`` takes no invitation from ``inviter``: blocked, or nobody's taken."""
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hget(player_key(pid), "invitations")
            pipe.sismember(player_blocks_key(pid), inviter)
            preference, blocked = await pipe.execute()
        return preference == INVITATIONS_NOBODY or bool(blocked)

    async def block_player(self, pid: str, other: str, cap: int) -> int:
        """Add ``other`` to the players ``pid`` blocks: 1 done (or already), 0 ``pid`` is gone, -1 the
        cap is reached. The set expires with the player (and is refreshed with it)."""
        return int(await self._block(keys=[player_blocks_key(pid), player_key(pid)], args=[other, str(cap)]))

    async def unblock_player(self, pid: str, other: str) -> None:
        await self.r.srem(player_blocks_key(pid), other)

    async def blocked_players(self, pid: str) -> list[str]:
        return sorted(str(b) for b in await self.r.smembers(player_blocks_key(pid)))
