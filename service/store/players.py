"""Players in Redis: one hash per player, the sorted set of the games they sit in, their invitations
and the identity of an app's identity provider that points at them (keys in service/store/keys.py).

Every key is bounded: a player expires after ``idle_ttl`` seconds without a request (each request
refreshes the hash, in the same step as the read); the games index holds at most ``max_games``
entries and expires with the player; invitations are capped per player and each carries its expiry;
the notices stream is capped like a bot's (``BOT_NOTICES_MAXLEN``).

A player's name lives in the player hash and in the seats they hold, nowhere else: the games'
histories and the stored notices never carry it, so deleting the account removes it for good
(service/games/players.py).
"""

from __future__ import annotations

import json
import time
from typing import Any

from service.store.connection import RegisteredScript, StoreConnection
from service.store.keys import (
    GAME_ID,
    game_key,
    identity_key,
    player_events_key,
    player_games_key,
    player_invites_key,
    player_key,
)
from service.store.redis_clients import hash_reply
from service.store.scripts import ADD_PLAYER_GAME_LUA, FORGET_SEAT_LUA, LOAD_BOT_LUA

GAME_FIELDS = ("game", "players", "status", "version", "to_act", "updated_at", "created_at", "listed")
"""What a player's list of games reads of each game (never its state): enough to sort and show it."""


class PlayerStore(StoreConnection):
    """Async access to the players in one Redis (or Redis Cluster)."""

    _load_player = RegisteredScript(LOAD_BOT_LUA)  # the same read-and-refresh as a bot account's
    _add_game = RegisteredScript(ADD_PLAYER_GAME_LUA)
    _forget_seat = RegisteredScript(FORGET_SEAT_LUA)

    async def create_player(self, pid: str, fields: dict[str, str], idle_ttl: int) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(
                player_key(pid),
                mapping={**fields, "created_at": repr(time.time()), "idle_ttl": str(idle_ttl)},
            )
            pipe.expire(player_key(pid), idle_ttl)
            await pipe.execute()

    async def load_player(self, pid: str, idle_ttl: int) -> dict[str, str] | None:
        """The player, the idle TTL refreshed in the same step (the player's indexes are refreshed
        when they are written or read: see :meth:`player_games`)."""
        if not GAME_ID.match(pid):
            return None
        flat = await self._load_player(keys=[player_key(pid)], args=[str(idle_ttl)])
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
        """The player's keys (one slot: one command); the identity pointing at it is the caller's."""
        await self.r.delete(
            player_key(pid), player_games_key(pid), player_events_key(pid), player_invites_key(pid)
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
        """Index a game the player joined; False (nothing written) when the index is full of games
        that are not over: the caller refuses the join before it takes the seat."""
        return bool(
            await self._add_game(
                keys=[player_games_key(pid), player_key(pid)],
                args=[gid, repr(time.time()), str(max_games)],
            )
        )

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

    # --- invitations -----------------------------------------------------------------------------

    async def put_invitation(self, pid: str, iid: str, invitation: dict[str, Any], cap: int) -> bool:
        """Store an invitation for ``pid`` (False when the player holds ``cap`` live ones already or
        does not exist). Expired ones are dropped first."""
        await self.prune_invitations(pid)
        key = player_invites_key(pid)
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.exists(player_key(pid))
            pipe.hlen(key)
            exists, held = await pipe.execute()
        if not exists or held >= cap:
            return False
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key, iid, json.dumps(invitation))
            # every invitation lives as long (the setting), so the newest is the last to expire
            pipe.expire(key, max(1, int(invitation["expires_at"] - time.time()) + 60))
            await pipe.execute()
        return True

    async def invitations(self, pid: str) -> dict[str, dict[str, Any]]:
        """The player's live invitations by id (expired ones dropped)."""
        await self.prune_invitations(pid)
        raw = await self.r.hgetall(player_invites_key(pid))
        return {str(k): json.loads(v) for k, v in raw.items()}

    async def take_invitation(self, pid: str, iid: str) -> dict[str, Any] | None:
        """Remove and return one invitation (None when there is none, or it expired)."""
        key = player_invites_key(pid)
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hget(key, iid)
            pipe.hdel(key, iid)
            raw, _ = await pipe.execute()
        if raw is None:
            return None
        invitation: dict[str, Any] = json.loads(raw)
        return invitation if invitation["expires_at"] > time.time() else None

    async def prune_invitations(self, pid: str) -> None:
        key = player_invites_key(pid)
        now = time.time()
        raw = await self.r.hgetall(key)
        expired = [k for k, v in raw.items() if json.loads(v)["expires_at"] <= now]
        if expired:
            await self.r.hdel(key, *expired)
