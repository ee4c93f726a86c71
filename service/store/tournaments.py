"""Tournaments in Redis: one JSON record each, and a short lock held by the job that advances it.

The record is small and written whole: the entrants, the rounds' games with their outcomes, the key
(secret until the end; the API shows only its commitment before). Whoever advances a tournament
(workers/jobs/tournaments.py) holds its lock, so two checks of one round never both start the next;
the lock expires by itself, so a job that died holding it delays the tournament, never stops it.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from service.store.connection import StorePart
from service.store.keys import GAME_ID, tournament_creator_key, tournament_key, tournament_lock_key


class TournamentStore(StorePart):
    """Async access to the tournaments' records."""

    async def save_tournament(self, tid: str, record: dict[str, Any], ttl: int) -> None:
        await self.r.set(tournament_key(tid), json.dumps(record, separators=(",", ":")), ex=ttl)

    async def load_tournament(self, tid: str) -> dict[str, Any] | None:
        if not GAME_ID.match(tid):
            return None
        raw = await self.r.get(tournament_key(tid))
        if raw is None:
            return None
        record: dict[str, Any] = json.loads(raw)
        return record

    async def lock_tournament(self, tid: str, seconds: int) -> str | None:
        """A token when the lock was free (now held for ``seconds``), else None."""
        token = secrets.token_hex(8)
        taken = await self.r.set(tournament_lock_key(tid), token, nx=True, ex=seconds)
        return token if taken else None

    async def unlock_tournament(self, tid: str, token: str) -> None:
        """Release the lock if it is still ours (it may have expired and been taken since)."""
        key = tournament_lock_key(tid)
        if await self.r.get(key) == token:
            await self.r.delete(key)

    async def admit_tournament(self, bid: str, tid: str, cap: int, until: float) -> bool:
        """Count ``tid`` among the running tournaments of bot account ``bid`` unless it has ``cap``
        already (those past ``until``, their deadline, are dropped first); False: refused."""
        key = tournament_creator_key(bid)
        now = time.time()
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zcard(key)
            _, running = await pipe.execute()
        if int(running) >= cap:
            return False
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {tid: until})
            pipe.expireat(key, int(until) + 1)
            await pipe.execute()
        return True

    async def end_tournament(self, bid: str, tid: str) -> None:
        await self.r.zrem(tournament_creator_key(bid), tid)
