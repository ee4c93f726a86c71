"""Bot accounts (``games.bots``): registration, deletion, a bot's status, and the notices of an
account's stream (its turns in any game)."""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import TypeAdapter

import engine
from schema.moments import Moment, rfc3339
from service.base.problems import ProblemError
from service.base.settings import Settings
from service.base.texts import Text
from service.games.core import Credentials, GameCore, new_game_id
from service.games.ratings import Ratings
from service.store import Store
from service.store.keys import STATUS_ACTIVE, STATUS_FINISHED, hash_token
from service.store.records import StoreError

LEGACY_NOTICE_FIELDS = {"game": "kind", "from_player": "from_player_id", "deadline": "deadline_at"}
"""A notice stored before v1 (a stream keeps a day of them): its fields by their v1 names."""
LEGACY_NOTICE_TYPES = {"game_over": "game_finished"}
MOMENTS = ("expires_at", "deadline_at")
"""The notice fields that are moments: stored as POSIX seconds, sent as RFC 3339 strings."""
_MOMENT: TypeAdapter[Any] = TypeAdapter(Moment)


def contract_notice(notice: dict[str, Any]) -> dict[str, Any]:
    """A stored notice in the contract's words (docs/glossary.md): v1 names for a notice stored before
    v1, and each moment an RFC 3339 string (the store keeps the seconds the game code holds)."""
    said = {
        # a string `game` is a pre-v1 kind; an object `game` (a tournament's finished game) keeps its name
        LEGACY_NOTICE_FIELDS.get(key, key) if not isinstance(value, dict) else key: value
        for key, value in notice.items()
    }
    said["type"] = LEGACY_NOTICE_TYPES.get(str(said.get("type")), said.get("type"))
    for key in MOMENTS:
        if said.get(key) is not None:
            said[key] = rfc3339(_MOMENT.validate_python(said[key]))
    return said


class BotAccounts:
    """Bot accounts and the notices of their streams; a deleted account's ratings are forgotten
    (``ratings``)."""

    def __init__(
        self, core: GameCore, store: Store, settings: Settings, credentials: Credentials, ratings: Ratings
    ) -> None:
        self.core = core
        self.store = store
        self.settings = settings
        self.credentials = credentials
        self.ratings = ratings

    async def register_bot(self, name: str, contact: str | None = None) -> tuple[str, str]:
        """A new bot account: its id and its API key (``atb_<id>_<secret>``, stored only hashed)."""
        bid = new_game_id()
        key = f"atb_{bid}_{secrets.token_urlsafe(32)}"
        await self.store.bots.create_bot(
            bid, name, hash_token(key), contact or "", self.settings.bot_idle_ttl
        )
        return bid, key

    async def delete_bot(self, bid: str, token: str | None) -> list[tuple[str, int]]:
        """The administrator's delete: the key stops working at once, and the seats the bot holds are
        given up (open again before the start, played out by a random bot after), so no game waits
        for a bot that is gone. Returns the (game, seat) pairs given up."""
        if not token:
            raise ProblemError(
                "missing_token", "Send the administrator token as `Authorization: Bearer <token>`."
            )
        if not self.credentials.is_admin(token):
            raise ProblemError("admin_required", "Deleting a bot account needs the administrator token.")
        games = await self.store.bots.bot_games(bid) if await self.store.bots.load_bot(bid) else None
        if games is None or not await self.store.bots.delete_bot(bid):
            raise ProblemError(
                "bot_not_found", Text("There is no bot account {bid!r} (it may have expired).", bid=bid)
            )
        await self.ratings.forget_ratings(f"bot:{bid}")
        released: list[tuple[str, int]] = []
        for gid in games:
            record = await self.store.games.load(gid)
            for i, seat in enumerate(record.seats if record and record.status != STATUS_FINISHED else []):
                if seat.owner != bid or not seat.token_hash:
                    continue
                try:
                    outcome = await self.store.games.leave(gid, i, seat.token_hash, "bot:random")
                except StoreError:
                    continue  # the seat changed hands or the game ended meanwhile
                released.append((gid, i))
                self.core.forget(gid)
                if outcome == "replaced":
                    fresh = await self.core.get(gid)
                    await self.core.maybe_enqueue_bot(fresh, self.core.match_of(fresh))
        return released

    async def account_notice(self, notice: dict[str, Any]) -> dict[str, Any] | None:
        """A stored notice as delivered to its account (a bot's or a player's): ``your_turn`` gains the
        seat's view and legal actions, or is dropped when its game has moved on; an ``invitation``
        gains the name the inviting player has now (stored notices hold no name:
        service/store/players.py); every one in the contract's words (:func:`contract_notice`)."""
        notice = contract_notice(notice)
        if notice.get("type") == "invitation":
            return {
                **notice,
                "from_name": await self.store.players.player_name(str(notice.get("from_player_id", ""))),
            }
        if notice.get("type") != "your_turn":
            return notice
        record = await self.store.games.load(str(notice["game_id"]))
        if record is None or record.version != notice["version"] or record.status != STATUS_ACTIVE:
            return None
        m = self.core.match_of(record)
        seat = int(notice["seat"])
        return {**notice, "view": engine.view(m, seat), "legal_actions": engine.legal_actions(m, seat)}

    async def bot_status(self, key: str | None) -> tuple[str, str, list[dict[str, Any]]]:
        """The bot's id, name and seats, with whether each is to act now (to catch up after a gap)."""
        bid = await self.credentials.bot_of(key)
        bot = await self.store.bots.load_bot(bid)
        assert bot is not None
        seats: list[dict[str, Any]] = []
        for gid in await self.store.bots.bot_games(bid):
            record = await self.store.games.load(gid)
            if record is None:
                await self.store.bots.forget_bot_game(bid, gid)  # the game expired
                continue
            m = self.core.match_of(record)
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
