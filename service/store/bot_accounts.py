"""Bot accounts in Redis: one hash per account, the set of its games and a stream of its "your turn"
and "game over" notices (keys in service/store/keys.py).

Every key of an account is bounded: the account expires after its ``idle_ttl`` seconds without its
key being used (each use refreshes it, in the same step as the read), its two indexes expire with
the games they list, and its notices stream keeps about ``BOT_NOTICES_MAXLEN`` notices.
"""

from __future__ import annotations

import json
import time
from typing import Any

from service.store.connection import RegisteredScript, StorePart
from service.store.keys import (
    BOT_NOTICES_MAXLEN,
    GAME_ID,
    account_keys,
    bot_games_key,
    bot_key,
    bot_turns_key,
)
from service.store.redis_clients import hash_reply
from service.store.scripts import LOAD_BOT_LUA, NOTIFY_BOT_LUA

DEFAULT_BOT_IDLE_TTL = 90 * 24 * 3600  # for a bot account registered before accounts had a TTL


class BotAccountStore(StorePart):
    """Async access to the bot accounts in one Redis (or Redis Cluster)."""

    _load_bot = RegisteredScript(LOAD_BOT_LUA)
    _notify_bot = RegisteredScript(NOTIFY_BOT_LUA)

    async def create_bot(
        self, bid: str, name: str, key_hash: str, contact: str = "", idle_ttl: int = DEFAULT_BOT_IDLE_TTL
    ) -> None:
        """A new account, expiring after ``idle_ttl`` seconds unless its key is used (see load_bot)."""
        fields = {
            "name": name,
            "key_hash": key_hash,
            "contact": contact,
            "created_at": repr(time.time()),
            "idle_ttl": str(idle_ttl),
        }
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(bot_key(bid), mapping=fields)
            pipe.expire(bot_key(bid), idle_ttl)
            await pipe.execute()

    async def load_bot(self, bid: str) -> dict[str, str] | None:
        """The account, its idle TTL refreshed in the same step: every use of the key keeps it alive."""
        if not GAME_ID.match(bid):
            return None
        flat = await self._load_bot(keys=[bot_key(bid)], args=[str(DEFAULT_BOT_IDLE_TTL)])
        return hash_reply(flat) or None

    async def delete_bot(self, bid: str) -> bool:
        """Delete the account and its indexes (one slot: one command); False when there was none."""
        if not GAME_ID.match(bid):
            return False
        return bool(await self.r.delete(bot_key(bid), bot_games_key(bid), bot_turns_key(bid)) > 0)

    async def add_bot_game(self, bid: str, gid: str) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.sadd(bot_games_key(bid), gid)
            pipe.expire(bot_games_key(bid), self.connection.game_lifetime)
            await pipe.execute()

    async def forget_bot_game(self, bid: str, gid: str) -> None:
        await self.r.srem(bot_games_key(bid), gid)

    async def bot_games(self, bid: str) -> list[str]:
        return sorted(await self.r.smembers(bot_games_key(bid)))

    async def notify_account(self, owner: str, notice: dict[str, Any]) -> None:
        """Append a notice to the stream of a seat's ``owner``, a bot account or a player (kept to the
        last ``BOT_NOTICES_MAXLEN`` or so, and for as long as a game lives); a deleted or expired
        account gets none (no stream is created for it)."""
        await self._notify_bot(
            keys=list(account_keys(owner)),
            args=[json.dumps(notice), str(BOT_NOTICES_MAXLEN), str(self.connection.game_lifetime)],
        )

    async def account_notices(
        self, owner: str, after: str, block_ms: int | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """The notices of a bot account or a player (``owner`` as a seat names it) after stream id
        ``after`` (exclusive), oldest first; with ``block_ms``, waiting up to that long for the first
        ([] on timeout)."""
        entries = await self.connection._entries_after(account_keys(owner)[1], after, 1000, block_ms)
        return [(eid, json.loads(fields["e"])) for eid, fields in entries]
