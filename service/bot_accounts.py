"""Bot accounts: registration and the notices of a bot's stream (its turns in any game)."""

from __future__ import annotations

import secrets
from typing import Any

import engine
from service.core import (
    GameCore,
    new_game_id,
)
from service.store import (
    STATUS_ACTIVE,
    hash_token,
)


class BotAccounts(GameCore):
    """Bot accounts and the notices of their streams."""

    async def register_bot(self, name: str, contact: str | None = None) -> tuple[str, str]:
        """A new bot account: its id and its API key (``atb_<id>_<secret>``, stored only hashed)."""
        bid = new_game_id()
        key = f"atb_{bid}_{secrets.token_urlsafe(32)}"
        await self.store.create_bot(bid, name, hash_token(key), contact or "")
        return bid, key

    async def bot_notice(self, notice: dict[str, Any]) -> dict[str, Any] | None:
        """A stored notice as delivered: ``your_turn`` gains the seat's view and legal actions, or is
        dropped when its game has moved on; ``game_over`` is delivered as is."""
        if notice.get("type") != "your_turn":
            return notice
        record = await self.store.load(str(notice["game_id"]))
        if record is None or record.version != notice["version"] or record.status != STATUS_ACTIVE:
            return None
        m = self.match_of(record)
        seat = int(notice["seat"])
        return {**notice, "view": engine.view(m, seat), "legal_actions": engine.legal_actions(m, seat)}

    async def bot_status(self, key: str | None) -> tuple[str, str, list[dict[str, Any]]]:
        """The bot's id, name and seats, with whether each is to act now (to catch up after a gap)."""
        bid = await self.bot_of(key)
        bot = await self.store.load_bot(bid)
        assert bot is not None
        seats: list[dict[str, Any]] = []
        for gid in await self.store.bot_games(bid):
            record = await self.store.load(gid)
            if record is None:
                await self.store.forget_bot_game(bid, gid)  # the game expired
                continue
            m = self.match_of(record)
            for i, seat in enumerate(record.seats):
                if seat.owner == bid:
                    to_act = m.to_act if record.status == STATUS_ACTIVE else None
                    seats.append(
                        {
                            "game_id": gid,
                            "seat": i,
                            "status": record.status,
                            "version": record.version,
                            "your_turn": to_act == i,
                        }
                    )
        return bid, bot.get("name", ""), seats
