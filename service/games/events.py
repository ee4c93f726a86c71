"""Event delivery (``games.events``): a game's events as one seat may see them (ALL-7), followed live,
and an account's notices. Each event goes out in its public form, in the stream's envelope
(:func:`schema.views.envelope`): the store keeps the engine's names, which games stored before v1
hold too.

Live streams read through the process's hub (:mod:`service.store.fanout`): one reader per group of
followed games, on a Redis pool of its own, so open streams never take a connection a request
needs. The seat filter stays per subscriber: the hub hands every subscriber the raw events.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from redis.exceptions import RedisError

import engine
from schema.views import envelope
from service.base.counters import count_redis_error
from service.base.problems import ProblemError
from service.base.texts import Text
from service.games.core import Caller, Credentials, GameCore
from service.store import Store, StoreConnection
from service.store.fanout import Fanout, StreamClosing, StreamGap, StreamLagged, StreamSlot, stream_id
from service.store.keys import RESUME_AFTER_PATTERN, STATUS_FINISHED, account_keys, events_key
from service.store.records import StreamEvent

SEEN_CACHE_SIZE = 4096  # decoded events kept for the other subscribers of the same game and seat


def stream_cursor(after: str | None, name: str) -> str:
    """The stream id a stream resumes after (none or empty: from the start); a malformed one is 422
    ``invalid_request`` naming the parameter it came in (``Last-Event-ID``, ``after``)."""
    if not RESUME_AFTER_PATTERN.fullmatch(after or ""):
        raise ProblemError(
            "invalid_request", Text("{name} must be an event id such as 1733140000000-0.", name=name)
        )
    return after or "0-0"


class EventDelivery:
    """A game's events as one seat may see them; the live streams read through a hub, which the API's
    lifespan gives (:meth:`use_streams`)."""

    def __init__(self, core: GameCore, store: Store, credentials: Credentials) -> None:
        self.core = core
        self.store = store
        self.credentials = credentials
        self.streams: Fanout | None = None
        self.stream_store: Store | None = None
        self._seen_cache: dict[tuple[str, str, int | None], dict[str, Any] | None] = {}
        self._frames: dict[tuple[str, str, int | None], bytes] = {}
        self._over_checked: dict[str, tuple[float, bool]] = {}

    def use_streams(self, hub: Fanout) -> None:
        """Follow games through ``hub``; its client also serves the streams' own reads (catch-up,
        the idle check), so that none of them waits for, or takes, a request's connection."""
        self.streams = hub
        self._seen_cache = {}
        self._frames = {}
        self._over_checked = {}
        shared = self.store.connection
        self.stream_store = Store(
            StoreConnection(hub.client, shared.abandoned_ttl, shared.finished_ttl, shared.idempotency_ttl)
        )

    def _hub(self) -> tuple[Fanout, Store]:
        if self.streams is None or self.stream_store is None:
            raise RuntimeError("no stream hub: the app's lifespan starts one (use_streams)")
        return self.streams, self.stream_store

    async def open_game_stream(
        self, gid: str, token: str | None, after: str | None, name: str
    ) -> tuple[Caller, str]:
        """The first steps of following a game, the same for the SSE stream and the subscription: the
        game, who follows it (a seat's token, the administrator's, or none: a spectator, ALL-7 decides
        what each sees) and where it resumes."""
        record = await self.core.get(gid)
        return await self.core.caller_of(record, token, required=False), stream_cursor(after, name)

    async def open_bot_stream(self, key: str | None, after: str | None, name: str) -> tuple[str, str]:
        """The first steps of following a bot account's notices (its API key), SSE, NDJSON or
        subscription alike: the account and where the stream resumes."""
        return await self.credentials.bot_of(key), stream_cursor(after, name)

    def admit_stream(self, client: str) -> StreamSlot:
        """A place for one more open stream of ``client`` (429 ``too_many_streams`` / 503 ``server_full``)."""
        return self._hub()[0].admit(client)

    async def follow(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[dict[str, Any]]:
        """The game's events after the stream id ``after`` as ``seat`` may see them (ALL-7), one by
        one: :meth:`follow_batches` for the GraphQL subscription."""
        async with contextlib.aclosing(self.follow_batches(gid, seat, after, block_ms, wait)) as batches:
            async for batch in batches:
                for seen in batch:
                    yield seen

    async def follow_batches(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncGenerator[list[dict[str, Any]], None]:
        """:meth:`_follow_batches`, whose answer has started by the time it reads the store: a store
        fault there can no longer be a 503, so the stream ends as a lagged one (StreamLagged after
        the last event delivered) and the client resumes from there."""
        delivered = after
        inner = self._follow_batches(gid, seat, after, block_ms, wait)
        try:
            async for batch in inner:
                delivered = batch[-1]["id"]
                yield batch
        except RedisError as fault:
            count_redis_error("streams", fault)
            raise StreamLagged(delivered) from None
        finally:
            await inner.aclose()

    async def _follow_batches(
        self, gid: str, seat: int | None, after: str, block_ms: int, wait: bool = True
    ) -> AsyncGenerator[list[dict[str, Any]], None]:
        """The game's events after the stream id ``after`` as ``seat`` may see them (ALL-7), in the
        batches they were read in, waiting for new ones while the match runs (unless ``wait`` is
        false); it ends once the match is over, or with :class:`service.store.fanout.StreamLagged` (naming
        the last event this seat received) when the reader fell too far behind. The one loop behind
        the SSE stream and the GraphQL subscription; ``block_ms`` is how long it may stay idle
        before it checks that the game still exists."""
        hub, store = self._hub()
        current = await store.games.load(gid)
        if current is None:
            return  # gone since the stream was opened: nothing more will come
        kind = current.game
        await self._check_window(store, gid, after, current.status == STATUS_FINISHED)
        if not wait or current.status == STATUS_FINISHED:
            async for batch in self._backlog(store, gid, kind, seat, after):
                yield batch
            return
        cursor = delivered_id = after
        entries = hub.follow(events_key(gid), after, block_ms / 1000)
        try:
            async for read in entries:
                if read is None:  # idle: an expired game ends its streams; a finished one is drained
                    if await self._over(store, gid, block_ms):
                        async for batch in self._backlog(store, gid, kind, seat, cursor):
                            yield batch
                        return
                    continue
                cursor = read[-1][0]
                batch = [seen for eid, fields in read if (seen := self._seen(gid, kind, eid, fields, seat))]
                if not batch:
                    continue
                delivered_id = batch[-1]["id"]
                yield batch
                last = batch[-1]["event"]
                if last["type"] == "turn" and last.get("status") == STATUS_FINISHED:
                    return
        except StreamGap:
            raise
        except StreamLagged as ended:
            # resume after what this seat last received (the hidden events after it are skipped again)
            again = StreamClosing if isinstance(ended, StreamClosing) else StreamLagged
            raise again(delivered_id) from None
        finally:
            await entries.aclose()

    async def follow_notices(
        self, owner: str, after: str, block_ms: int, wait: bool = True
    ) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        """The stored notices of an account (a bot account's id, or a player as a seat's ``owner``
        names one) after the id ``after`` (its turns, its games over…), then the new ones as they
        come (unless ``wait`` is false); it ends when the account is gone, or with
        :class:`service.store.fanout.StreamLagged`. Behind the bot's and the player's SSE/NDJSON
        streams and their subscriptions."""
        hub, store = self._hub()
        account, notices = account_keys(owner)
        if not wait:
            cursor = after
            while batch := await store.bots.account_notices(owner, cursor):
                for eid, notice in batch:
                    cursor = eid
                    yield eid, notice
            return
        async with contextlib.aclosing(hub.follow(notices, after, block_ms / 1000)) as entries:
            async for read in entries:
                if read is None:
                    if not await store.r.exists(account):  # deleted or expired: nothing more will come
                        return
                    continue
                for eid, fields in read:
                    yield eid, json.loads(fields["e"])

    async def _check_window(self, store: Store, gid: str, after: str, finished: bool) -> None:
        """Raise :class:`StreamGap` when events right after ``after`` were dropped from the stream (the
        window of a running match, or the whole stream of a match over for a while:
        service/store/retention.py).
        A stream never trimmed still starts with the game's ``game_created`` event."""
        first = await store.r.xrange(events_key(gid), "-", "+", count=1)
        if not first:
            if finished:
                raise StreamGap(
                    "events_expired",
                    Text(
                        "Game {gid} is over and its event stream was compacted away: GET /v1/games/{gid} for "
                        "its final state and GET /v1/games/{gid}/log for the whole match (the replay log).",
                        gid=gid,
                    ),
                    after,
                )
            return
        eid, fields = first[0]
        if stream_id(after) >= stream_id(eid):
            if stream_id(after) == stream_id(eid) or await store.r.xrange(
                events_key(gid), after, after, count=1
            ):
                return
            # An id this stream never had, past its start: the store was restored from a backup taken
            # before that event (docs/operations.md, "Backup and restore"). The moves after the backup
            # are gone and new ones reuse their versions: following on would show this reader a second,
            # different history. It rereads the view instead, then follows from the stream's end.
            raise await self._restored_gap(store, gid, after, finished)
        if json.loads(fields["e"]).get("type") == "game_created":
            return
        newest = await store.r.xrevrange(events_key(gid), "+", "-", count=1)
        last = newest[0][0] if newest else eid
        # What a reader whose cursor fell out of the window does: while the match runs, reread the
        # view and follow on; once it is over nothing more comes: the final view and the log say it all.
        if finished:
            raise StreamGap(
                "stream_window_passed",
                Text(
                    "Events after {after} are no longer kept (a match keeps only its last events, and this "
                    "one is over): read GET /v1/games/{gid}/view for your seat's final view and GET "
                    "/v1/games/{gid}/log for the whole match (the replay log).",
                    after=after,
                    gid=gid,
                ),
                last,
            )
        raise StreamGap(
            "stream_window_passed",
            Text(
                "Events after {after} are no longer kept (a running match keeps only its last events): "
                "read GET /v1/games/{gid}/view (your seat's whole view), then follow with Last-Event-ID "
                "{last}, skipping events whose version the view already has.",
                after=after,
                gid=gid,
                last=last,
            ),
            last,
        )

    async def _restored_gap(self, store: Store, gid: str, after: str, finished: bool) -> StreamGap:
        newest = await store.r.xrevrange(events_key(gid), "+", "-", count=1)
        last = newest[0][0] if newest else "0-0"
        if finished:
            return StreamGap(
                "stream_window_passed",
                Text(
                    "Event {after} is not in game {gid}'s stream (the store was restored from a backup "
                    "taken before it): read GET /v1/games/{gid}/view for your seat's final view and GET "
                    "/v1/games/{gid}/log for the whole match (the replay log).",
                    after=after,
                    gid=gid,
                ),
                last,
            )
        return StreamGap(
            "stream_window_passed",
            Text(
                "Event {after} is not in game {gid}'s stream (the store was restored from a backup taken "
                "before it, and the moves after the backup were lost): read GET /v1/games/{gid}/view "
                "(your seat's whole view), then follow with Last-Event-ID {last}.",
                after=after,
                gid=gid,
                last=last,
            ),
            last,
        )

    async def _over(self, store: Store, gid: str, block_ms: int) -> bool:
        """Whether ``gid`` is gone or finished, read at most once per ``block_ms`` for all the idle
        streams of the game in this process (a thousand idle streams do not mean a thousand reads)."""
        now = time.monotonic()
        checked = self._over_checked.get(gid)
        if checked is not None and now - checked[0] < block_ms / 1000:
            return checked[1]
        current = await store.games.load(gid)
        over = current is None or current.status == STATUS_FINISHED
        self._over_checked[gid] = (time.monotonic(), over)
        if len(self._over_checked) > SEEN_CACHE_SIZE:
            del self._over_checked[next(iter(self._over_checked))]
        return over

    def _seen(
        self, gid: str, kind: str, eid: str, fields: dict[str, str], seat: int | None
    ) -> dict[str, Any] | None:
        """The entry as ``seat`` sees it, decoded and filtered once for every subscriber of this process
        that shares the seat (twenty spectators of a game cost one ``json.loads`` per event, not twenty).
        Callers only read what they get."""
        key = (gid, eid, seat)
        cache = self._seen_cache
        if key in cache:
            return cache[key]
        event = StreamEvent(id=eid, version=int(fields["v"]), event=json.loads(fields["e"]))
        delivered = cache[key] = self.deliver(event, seat, kind)
        if len(cache) > SEEN_CACHE_SIZE:
            del cache[next(iter(cache))]  # the oldest: every subscriber has moved past it
        return delivered

    def frame(
        self, gid: str, seat: int | None, seen: dict[str, Any], encode: Callable[[dict[str, Any]], bytes]
    ) -> bytes:
        """``encode(seen)``, computed once for every stream of this process showing ``seen`` to
        ``seat`` in game ``gid`` (the SSE bytes of one event are the same for all its spectators)."""
        key = (gid, str(seen["id"]), seat)
        frames = self._frames
        data = frames.get(key)
        if data is None:
            data = frames[key] = encode(seen)
            if len(frames) > SEEN_CACHE_SIZE:
                del frames[next(iter(frames))]
        return data

    async def _backlog(
        self, store: Store, gid: str, kind: str, seat: int | None, after: str
    ) -> AsyncIterator[list[dict[str, Any]]]:
        """What is stored after ``after``, page by page, without waiting for more."""
        cursor = after
        while page := await store.games.events(gid, cursor):
            cursor = page[-1].id
            batch = [seen for item in page if (seen := self.deliver(item, seat, kind)) is not None]
            if batch:
                yield batch

    @staticmethod
    def deliver(stream_event: StreamEvent, seat: int | None, kind: str) -> dict[str, Any] | None:
        """The stored event of a game of ``kind`` as ``seat`` may see it (ALL-7; None: not at all), in
        its public form and its envelope (stream id, version)."""
        seen = engine.event_for(stream_event.event, seat)
        if seen is None:
            return None
        return envelope(stream_event.id, stream_event.version, seen, kind)
