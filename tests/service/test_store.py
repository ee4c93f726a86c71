"""The Redis store against a real redis-server: compare-and-set, events, idempotency, TTLs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
import redis

from service.store import Store
from service.store.keys import (
    OPEN_INDEX,
    STATUS_ACTIVE,
    STATUS_FINISHED,
    STATUS_WAITING,
    events_key,
    game_key,
    log_key,
)
from service.store.records import GameMissing, GameRecord, GameStart, Seat, SeatTaken, VersionConflict

pytestmark = pytest.mark.anyio

ABANDONED, FINISHED, IDEM = 600, 86400, 300


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[Store]:
    s = Store.from_url(redis_url, abandoned_ttl=ABANDONED, finished_ttl=FINISHED, idempotency_ttl=IDEM)
    try:
        yield s
    finally:
        await s.close()


def record(gid: str = "g1", seats: list[str] | None = None, status: str = STATUS_ACTIVE) -> GameRecord:
    kinds = seats or ["human", "human", "human", "human"]
    return GameRecord(
        id=gid,
        game="rough",
        players=len(kinds),
        options={},
        seed=7,
        version=0,
        state='{"state": 0}',
        status=status,
        seats=[Seat(kind=k) for k in kinds],
    )


def start(players: int) -> GameStart:
    """A start for seats without client seeds: the join that takes the last seat writes it."""
    return GameStart('{"state": 1}', [""] * players, [json.dumps({"type": "game_started"})])


def event(n: int) -> str:
    return json.dumps({"type": "played", "n": n})


async def test_all_keys_of_a_game_share_one_hash_tag(store: Store) -> None:
    await store.games.create(record("abc"), [event(0)])
    await store.games.commit("abc", 0, "{}", STATUS_ACTIVE, [event(1)], log_entry='{"a": 1}')
    keys = set(await store.r.keys("*"))
    assert keys == {game_key("abc"), events_key("abc"), log_key("abc")}
    assert all("{abc}" in k for k in keys)


async def test_a_new_game_round_trips_through_the_store(store: Store) -> None:
    original = record(seats=["open", "bot:random", "human", "open"], status=STATUS_WAITING)
    original.seats[2] = Seat(kind="human", name="ann", token_hash="h")
    await store.games.create(original, [event(0), event(1)])
    loaded = await store.games.load("g1")
    assert loaded is not None
    assert loaded.seats == original.seats
    assert (loaded.game, loaded.version, loaded.state, loaded.seed) == ("rough", 0, '{"state": 0}', 7)
    assert [e.event["n"] for e in await store.games.events("g1")] == [0, 1]


async def test_a_commit_writes_state_bumps_version_and_appends_events(store: Store) -> None:
    await store.games.create(record(), [event(0)])
    result = await store.games.commit(
        "g1", 0, '{"state": 1}', STATUS_ACTIVE, [event(1), event(2)], '{"m": 1}'
    )
    assert result.version == 1
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.version == 1 and loaded.state == '{"state": 1}'
    events = await store.games.events("g1")
    assert [(e.version, e.event["n"]) for e in events] == [(0, 0), (1, 1), (1, 2)]
    assert await store.games.log("g1") == [{"m": 1}]


async def test_a_stale_version_is_a_conflict_that_writes_nothing(store: Store) -> None:
    await store.games.create(record(), [event(0)])
    await store.games.commit("g1", 0, '{"state": 1}', STATUS_ACTIVE, [event(1)], '{"m": 1}')
    with pytest.raises(VersionConflict) as info:
        await store.games.commit("g1", 0, '{"state": "lost"}', STATUS_ACTIVE, [event(99)], '{"m": 99}')
    assert info.value.current == 1
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.state == '{"state": 1}' and loaded.version == 1
    assert [e.event["n"] for e in await store.games.events("g1")] == [0, 1]
    assert await store.games.log("g1") == [{"m": 1}]


async def test_committing_to_a_missing_game_fails(store: Store) -> None:
    with pytest.raises(GameMissing):
        await store.games.commit("nope", 0, "{}", STATUS_ACTIVE, [event(1)])
    assert await store.r.keys("*") == []


async def test_fifty_racing_commits_on_one_version_have_exactly_one_winner(store: Store) -> None:
    await store.games.create(record(), [event(0)])

    async def attempt(n: int) -> int | None:
        try:
            await store.games.commit(
                "g1", 0, json.dumps({"winner": n}), STATUS_ACTIVE, [event(n)], json.dumps(n)
            )
        except VersionConflict as conflict:
            assert conflict.current == 1
            return None
        return n

    outcomes = await asyncio.gather(*(attempt(n) for n in range(1, 51)))
    winners = [n for n in outcomes if n is not None]
    assert len(winners) == 1
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.version == 1
    assert json.loads(loaded.state) == {"winner": winners[0]}
    assert [e.event["n"] for e in await store.games.events("g1")] == [0, winners[0]]
    assert await store.games.log("g1") == winners


async def test_racing_commits_from_separate_connections_have_one_winner_per_version(
    store: Store, redis_url: str
) -> None:
    await store.games.create(record(), [])
    others = [Store.from_url(redis_url, ABANDONED, FINISHED, IDEM) for _ in range(10)]
    try:

        async def attempt(s: Store, n: int) -> bool:
            for _ in range(100):
                current = await s.games.load("g1")
                assert current is not None
                try:
                    await s.games.commit(
                        "g1", current.version, "{}", STATUS_ACTIVE, [event(n)], json.dumps(n)
                    )
                    return True
                except VersionConflict:
                    continue
            return False

        results = await asyncio.gather(*(attempt(s, n) for n, s in enumerate(others * 5)))
    finally:
        for s in others:
            await s.close()
    assert all(results)
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.version == 50
    events = await store.games.events("g1")
    assert [e.version for e in events] == list(range(1, 51))
    assert sorted(e.event["n"] for e in events) == list(range(50))
    assert sorted(await store.games.log("g1")) == list(range(50))


async def test_a_replayed_idempotency_key_returns_the_first_result(store: Store) -> None:
    await store.games.create(record(), [])
    first = await store.games.commit(
        "g1", 0, '{"s": 1}', STATUS_ACTIVE, [event(1)], idempotency=("seat0", "k1"), idempotent_result="first"
    )
    assert first.version == 1 and first.replayed is None
    again = await store.games.commit(
        "g1",
        0,
        '{"s": 2}',
        STATUS_ACTIVE,
        [event(2)],
        idempotency=("seat0", "k1"),
        idempotent_result="second",
    )
    assert again.replayed == "first"
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.version == 1 and loaded.state == '{"s": 1}'
    assert await store.games.idempotent_result("g1", "seat0", "k1") == "first"
    assert await store.games.idempotent_result("g1", "seat1", "k1") is None
    assert 0 < await store.r.ttl(next(iter(await store.r.keys("atout:idem:*")))) <= IDEM


async def test_unfinished_games_expire_after_the_abandoned_ttl(store: Store) -> None:
    await store.games.create(record(), [event(0)])
    await store.games.commit("g1", 0, "{}", STATUS_ACTIVE, [event(1)], "{}")
    for key in (game_key("g1"), events_key("g1"), log_key("g1")):
        assert 0 < await store.r.ttl(key) <= ABANDONED


async def test_finished_games_keep_their_log_for_the_finished_ttl(store: Store) -> None:
    await store.games.create(record(), [event(0)])
    await store.games.commit("g1", 0, "{}", STATUS_FINISHED, [event(1)], "{}")
    for key in (game_key("g1"), events_key("g1"), log_key("g1")):
        assert ABANDONED < await store.r.ttl(key) <= FINISHED


async def test_joining_fills_seats_and_starts_the_game_when_full(store: Store) -> None:
    await store.games.create(record(seats=["open", "bot:random", "open"], status=STATUS_WAITING), [])
    assert [g.id for g in await store.games.open_games()] == ["g1"]
    assert await store.games.join("g1", None, "hash-a", "ann") == (0, False)
    with pytest.raises(SeatTaken):
        await store.games.join("g1", 0, "hash-b", "bob")
    with pytest.raises(SeatTaken):
        await store.games.join("g1", 1, "hash-b", "bob")
    assert await store.games.join("g1", 2, "hash-b", "bob", start=start(3)) == (2, True)
    with pytest.raises(SeatTaken):
        await store.games.join("g1", None, "hash-c", "cid")
    loaded = await store.games.load("g1")
    assert loaded is not None and loaded.status == STATUS_ACTIVE
    assert [s.token_hash for s in loaded.seats] == ["hash-a", "", "hash-b"]
    types = [e.event["type"] for e in await store.games.events("g1")]
    assert types == ["seat_joined", "seat_joined", "game_started"]
    assert await store.games.open_games() == []
    assert await store.r.zcard(OPEN_INDEX) == 0


async def test_joining_a_missing_game_fails(store: Store) -> None:
    with pytest.raises(GameMissing):
        await store.games.join("nope", None, "h", "x")


async def test_fifty_racing_joins_fill_each_seat_once(store: Store) -> None:
    await store.games.create(record(seats=["open"] * 5, status=STATUS_WAITING), [])
    outcomes = await asyncio.gather(
        *(store.games.join("g1", None, f"h{n}", f"p{n}", start=start(5)) for n in range(50)),
        return_exceptions=True,
    )
    seated = [o for o in outcomes if isinstance(o, tuple)]
    assert sorted(seat for seat, _ in seated) == [0, 1, 2, 3, 4]
    assert sum(started for _, started in seated) == 1
    assert all(isinstance(o, SeatTaken) for o in outcomes if not isinstance(o, tuple))


async def test_events_resume_after_an_id_without_gap_or_duplicate(store: Store) -> None:
    await store.games.create(record(), [event(0), event(1)])
    first = await store.games.events("g1")
    await store.games.commit("g1", 0, "{}", STATUS_ACTIVE, [event(2), event(3)])
    rest = await store.games.events("g1", after=first[-1].id)
    assert [e.event["n"] for e in rest] == [2, 3]
    waited = await store.games.wait_events("g1", after=first[0].id, block_ms=10)
    assert [e.event["n"] for e in waited] == [1, 2, 3]


async def test_stale_entries_of_the_open_index_are_dropped(store: Store, redis_client: redis.Redis) -> None:
    await store.games.create(record("gone", seats=["open", "open"], status=STATUS_WAITING), [])
    redis_client.delete(game_key("gone"))
    assert await store.games.open_games() == []
    assert redis_client.zcard(OPEN_INDEX) == 0


async def test_bad_game_ids_are_never_looked_up(store: Store) -> None:
    assert await store.games.load("{x}*") is None


async def test_a_redis_that_denies_info_still_takes_moves_and_waits_for_no_replica(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """Some managed Redis services rename or deny INFO, which tells the store whether the master has
    replicas to WAIT for: then there is nothing to wait for, and moves go on (never a 500)."""
    redis_client.execute_command("ACL", "SETUSER", "noinfo", "on", ">noinfo-pw", "~*", "+@all", "-info")
    url = redis_url.replace(redis_url.split("@")[0], "redis://noinfo:noinfo-pw")
    denied = Store.from_url(url, ABANDONED, FINISHED, IDEM, wait_replicas=1)
    try:
        with pytest.raises(redis.exceptions.NoPermissionError):
            await denied.r.info("replication")
        await denied.games.create(record(), [event(0)])
        result = await denied.games.commit("g1", 0, '{"state": 1}', STATUS_ACTIVE, [event(1)], '{"m": 1}')
        assert result.version == 1
    finally:
        await denied.close()
        redis_client.execute_command("ACL", "DELUSER", "noinfo")
