"""What the store reads and writes, as Python sees it: a game's record and seats, a start computed
before the join that takes the last seat, a stream event, a commit's outcome; and the store's
expected failures, each raised by the script outcome that names it (service/store/games.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import TimeoutError as RedisTimeoutError


class StoreError(Exception):
    """Base of the store's expected failures."""


class GameMissing(StoreError):
    def __init__(self, gid: str) -> None:
        super().__init__(f"no game {gid}")
        self.gid = gid


class VersionConflict(StoreError):
    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class SeatLost(StoreError):
    """The seat's credential no longer holds it (the player left, a bot took over)."""

    def __init__(self, seat: int | None) -> None:
        super().__init__(f"seat {seat} is no longer held by this credential")
        self.seat = seat


class GameOver(StoreError):
    def __init__(self, gid: str) -> None:
        super().__init__(f"game {gid} is over")
        self.gid = gid


class AlreadySeated(StoreError):
    """The player joining already holds another seat of this table (one player, one seat)."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"this player already holds seat {seat}")
        self.seat = seat


class SeatTaken(StoreError):
    def __init__(self, seat: int | None) -> None:
        super().__init__("no open seat" if seat is None else f"seat {seat} is taken")
        self.seat = seat


class ReplicationUnconfirmed(RedisTimeoutError):
    """A write reached the master but not, in time, the replicas it must reach before it is
    acknowledged: it may be lost in a failover. A store fault (503 store_unavailable): the client
    retries with the same Idempotency-Key, which finds the write if it survived."""


class StartChanged(StoreError):
    """The join would start the game, but not with the start state computed (seats changed since)."""

    def __init__(self, seat: int) -> None:
        super().__init__(f"joining seat {seat} starts the game: compute the start again")
        self.seat = seat


@dataclass(frozen=True)
class GameStart:
    """A game's start, computed before the join that takes its last seat: the state with the first
    hand dealt, the client seeds (by seat) it was dealt from, and the start's events (JSON)."""

    state: str
    client_seeds: Sequence[str]
    events: Sequence[str]
    to_act: int | None = None  # kept in the hash, as a move's commit keeps it (service/store/scripts.py)


@dataclass
class Seat:
    kind: str  # "open", "reserved" (for a rematch), "human" or "bot:<level>"
    name: str = ""
    token_hash: str = ""
    reserved_for: str = ""  # the token hash a reserved seat waits for
    owner: str = ""  # the account that holds this seat: a bot account id, or player:<id> (keys.py)
    client_seed: str = ""  # the seat's own entropy, mixed into every hand (docs/fairness.md)

    @property
    def is_open(self) -> bool:
        return self.kind == "open"

    @property
    def is_bot(self) -> bool:
        return self.kind.startswith("bot:")


@dataclass
class GameRecord:
    id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int | str  # the match key K in hex, or the whole number the administrator chose
    version: int
    state: str
    status: str
    seats: list[Seat]
    listed: bool = True
    invite_hash: str = ""
    explicit_deal: bool = False
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    extra: dict[str, Any] = field(default_factory=dict)
    rematch: str = ""  # the id of the rematch offered once the match is over

    def to_hash(self) -> dict[str, str]:
        fields = {
            "game": self.game,
            "players": str(self.players),
            "options": json.dumps(self.options, sort_keys=True),
            "seed": str(self.seed),
            "version": str(self.version),
            "state": self.state,
            "status": self.status,
            "listed": "1" if self.listed else "0",
            "invite_hash": self.invite_hash,
            "explicit_deal": "1" if self.explicit_deal else "0",
            "created_at": repr(self.created_at),
            "updated_at": repr(self.updated_at),
            "extra": json.dumps(self.extra, sort_keys=True),
            "rematch": self.rematch,
        }
        for i, seat in enumerate(self.seats):
            fields[f"seat:{i}:kind"] = seat.kind
            fields[f"seat:{i}:name"] = seat.name
            fields[f"seat:{i}:token"] = seat.token_hash
            fields[f"seat:{i}:reserved"] = seat.reserved_for
            fields[f"seat:{i}:owner"] = seat.owner
        return fields

    def revision(self) -> str:
        """A digest that changes whenever anything a client is shown of this game changes: the
        ``version`` and what the writes that keep it change (a join, the start its last seat deals,
        a leave, a seat handed to a bot, the rematch link: service/store/scripts.py). A version
        alone would name a game whose seats filled or whose match started since as unchanged
        (an HTTP validator built on it would answer 304 to a stale copy)."""
        seats = [(s.kind, s.name, s.owner, bool(s.token_hash)) for s in self.seats]
        facts = [self.version, self.status, self.rematch, self.listed, seats]
        return hashlib.sha256(json.dumps(facts, separators=(",", ":")).encode()).hexdigest()[:24]

    @classmethod
    def from_hash(cls, gid: str, h: dict[str, str]) -> GameRecord:
        players = int(h["players"])
        seats = [
            Seat(
                kind=h.get(f"seat:{i}:kind", "open"),
                name=h.get(f"seat:{i}:name", ""),
                token_hash=h.get(f"seat:{i}:token", ""),
                reserved_for=h.get(f"seat:{i}:reserved", ""),
                owner=h.get(f"seat:{i}:owner", ""),
                client_seed=h.get(f"seat:{i}:client_seed", ""),
            )
            for i in range(players)
        ]
        return cls(
            id=gid,
            game=h["game"],
            players=players,
            options=json.loads(h["options"]),
            seed=_seed_of(h["seed"]),
            version=int(h["version"]),
            state=h["state"],
            status=h["status"],
            seats=seats,
            listed=h.get("listed") == "1",
            invite_hash=h.get("invite_hash", ""),
            explicit_deal=h.get("explicit_deal") == "1",
            created_at=float(h.get("created_at", "0")),
            updated_at=float(h.get("updated_at", "0")),
            extra=json.loads(h.get("extra", "{}")),
            rematch=h.get("rematch", ""),
        )


def _seed_of(stored: str) -> int | str:
    """An administrator's seed is a whole number (at most 2**53, 16 digits); a match key is 64 hex digits."""
    return int(stored) if stored.isdigit() and len(stored) < 64 else stored


@dataclass(frozen=True, order=True)
class ListPosition:
    """Where a page of the open games ended: the last game's place in the index (its creation time,
    the index's score, then its id, which orders games created at the same instant). Pages run newest
    first, so the next page holds the games strictly before this position."""

    created_at: float
    game_id: str


@dataclass(frozen=True)
class OpenGamesPage:
    """One page of the open games, newest first, and where the next page starts (None: no more)."""

    records: list[GameRecord]
    next: ListPosition | None


@dataclass(frozen=True)
class StreamEvent:
    """One entry of a game's events stream: its stream id (a reader's cursor), the version it
    belongs to and the event."""

    id: str
    version: int
    event: dict[str, Any]

    @classmethod
    def from_entry(cls, eid: str, fields: dict[str, str]) -> StreamEvent:
        """The entry ``eid`` as XRANGE or XREAD return it (fields ``v`` and ``e``)."""
        return cls(id=eid, version=int(fields["v"]), event=json.loads(fields["e"]))


@dataclass(frozen=True)
class CommitResult:
    """A move's compare-and-set that wrote (``version``, the new one) or found the request already
    answered (``replayed``: its first result, ``version`` -1)."""

    version: int
    replayed: str | None = None  # the stored first result when the Idempotency-Key was seen before
    timeouts: int = 0  # with a "timer" move: how many turns in a row the seat has let run out
    notified: bool = False  # the bot account to act next was told in the same step (commit's notice)
