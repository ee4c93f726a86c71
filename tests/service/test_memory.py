"""What a game keeps in Redis (service/store/retention.py): a finished match fits in 16 KB with no RQ
leftovers, its compacted log still replays and verifies, and a reader behind a stream's window is told
to resync."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient
from svc_helpers import auth, create, fill, seated

import engine
from service.api.app import create_app
from service.api.graphql.subscriptions import lagged_error
from service.base.settings import Settings
from service.store import Store, retention
from service.store.fanout import StreamGap
from service.store.keys import events_key, log_key

ROOT = Path(__file__).resolve().parents[2]
FINISHED_MATCH_BUDGET = 16 * 1024


def sse_frames(body: str) -> list[dict[str, Any]]:
    """The frames of an SSE body: each its ``event`` name and its ``data`` decoded (an envelope's
    ``id`` and ``version`` beside its event's fields)."""
    frames = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line and line[0] != ":")
        if "data" in fields:
            data = json.loads(fields["data"])
            event = data.pop("event", {})
            data = {**data, **event}  # the event's own `type`, not the envelope's (`event`)
            frames.append({"event": fields.get("event"), "id": fields.get("id"), **data})
    return frames


def key_bytes(r: redis.Redis, pattern: str) -> dict[str, int]:
    return {key: int(r.memory_usage(key, samples=0) or 0) for key in r.scan_iter(match=pattern)}


@pytest.fixture
def quick_linger(settings: Settings) -> Settings:
    """Finished streams expire after a second (the default keeps them five minutes for late readers)."""
    return settings.model_copy(update={"finished_stream_ttl": 1})


@pytest.fixture
def linger_worker(quick_linger: Settings, tmp_path: Path) -> Iterator[None]:
    """A real ``atout worker`` with the same one-second linger: it commits the bots' last moves."""
    env = {
        **os.environ,
        "REDIS_URL": quick_linger.redis_url or "",
        "ATOUT_BOT_BUDGET": "0.01",
        "ATOUT_FINISHED_STREAM_TTL": "1",
        "PYTHONPATH": str(ROOT),
    }
    with open(tmp_path / "worker.log", "wb") as log:
        command = [sys.executable, "-m", "service.runtime.cli", "worker"]
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        try:
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_a_finished_all_bot_match_keeps_at_most_16_kb_and_no_rq_result(
    quick_linger: Settings, linger_worker: None, redis_client: redis.Redis
) -> None:
    with TestClient(create_app(quick_linger)) as client:
        gid = create(client, "rough", seats=["bot:heuristic"] * 4)["game"]["game_id"]
        deadline = time.monotonic() + 240
        while client.get(f"/v1/games/{gid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots did not finish the match"
            time.sleep(0.2)
        moves = client.get(f"/v1/games/{gid}").json()["version"]
        while redis_client.exists(events_key(gid)):  # the stream outlives the match by a second
            assert time.monotonic() < deadline, "the finished match's stream did not expire"
            time.sleep(0.2)
        kept = key_bytes(redis_client, f"*{{{gid}}}*")
        rq_left = key_bytes(redis_client, f"rq:*bot-{gid}-*")
        assert moves > 100  # a whole match, every move of it a bot job
        assert not [k for k in rq_left if k.startswith("rq:results:")], rq_left
        assert sum(kept.values()) + sum(rq_left.values()) <= FINISHED_MATCH_BUDGET, (kept, rq_left)
        folded = redis_client.lrange(log_key(gid), 0, -1)
        assert len(folded) == 1 and folded[0].startswith(retention.CHUNK_PREFIX)
        log = client.get(f"/v1/games/{gid}/log").json()
        assert [a["version"] for a in log["actions"]] == list(range(1, moves + 1))
        assert engine.verify_log(log) == []


def test_the_log_of_a_compacted_match_still_replays_and_verifies(
    quick_linger: Settings, redis_client: redis.Redis
) -> None:
    rng = random.Random(7)
    whole = quick_linger.model_copy(update={"stream_window": 100_000})  # to compare with every event
    with TestClient(create_app(whole)) as client:
        table = seated(client, "rough", seed="3", options={"target_score": 200})  # a match of several hands
        table.play_random(rng)
        gid = table.game_id
        # the fairness record as the live stream published it, read before the stream expires
        published = [json.loads(fields["e"]) for _, fields in redis_client.xrange(events_key(gid), "-", "+")]
        from_stream = engine.hand_records([e for e in published if engine.event_for(e, None) is not None])
        assert published[0]["type"] == "game_created"
        deadline = time.monotonic() + 30
        while redis_client.exists(events_key(gid)):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        log = client.get(f"/v1/games/{gid}/log").json()
        assert log["hands"] == from_stream and len(from_stream) >= 2
        assert log["commitment"] == published[0]["commitment"]
        assert engine.verify_log(log) == []
        # the engine replays the compacted log to the stored final state
        options = {name: value for name, value in log["options"].items() if name != "kind"}  # less the tag
        replay = engine.new_match("rough", seed=bytes.fromhex(log["key"]), options=options, wait=True)
        replay = engine.start(replay, log["client_seeds"])
        for entry in log["actions"]:
            replay = engine.apply(replay, entry["seat"], entry["action"])
        assert replay.winners == log["winners"] and replay.to_act is None
        # a reader resuming after the stream expired gets a clear answer, not an empty stream
        frames = sse_frames(
            client.get(f"/v1/games/{gid}/events?follow=false", headers={"Last-Event-ID": "1-0"}).text
        )
        assert [(f["event"], f["code"]) for f in frames] == [("resync", "events_expired")]
        assert "/log" in frames[0]["detail"]


def test_an_old_uncompacted_log_still_reads(client: TestClient, redis_client: redis.Redis) -> None:
    """Logs written before the compact format (one JSON object per move) read unchanged."""
    table = seated(client, "rough")
    game = table.game()
    seat = game["to_act"]
    action = table.legal(seat)[0]
    assert table.act(seat, action).status_code == 200
    old = json.dumps({"version": 1, "seat": seat, "action": action})
    redis_client.delete(log_key(table.game_id))
    redis_client.rpush(log_key(table.game_id), old)
    log = client.get(f"/v1/games/{table.game_id}/log", headers=auth(client.app.state.settings.admin_token))
    assert log.json()["actions"] == [{"version": 1, "seat": seat, "action": action, "by": None}]
    assert retention.decode_log([old, retention.log_entry(2, 0, {"type": "pass"}, "timer")]) == [
        {"version": 1, "seat": seat, "action": action},
        {"version": 2, "seat": 0, "action": {"type": "pass"}, "by": "timer"},
    ]


def cautious(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Pass when allowed, else bid the least: a long match (random bids can end one in a hand)."""
    passes = [a for a in legal if a["type"] == "pass"]
    return fill(passes[0] if passes else min(legal, key=lambda a: int(a.get("points", 0))), rng)


def test_a_reader_behind_the_stream_window_is_told_to_resync(
    settings: Settings, redis_client: redis.Redis
) -> None:
    rng = random.Random(11)
    with TestClient(create_app(settings.model_copy(update={"stream_window": 16}))) as client:
        table = seated(client, "rough", options={"target_score": 500})
        gid = table.game_id
        early = client.get(f"/v1/games/{gid}/events?follow=false", headers=auth(table.tokens[0]))
        first_id = sse_frames(early.text)[0]["id"]
        for _ in range(64):  # two trims (every 32 moves) to a window of about 16 events
            seat = table.game()["to_act"]
            assert table.act(seat, cautious(table.legal(seat), rng)).status_code == 200
        assert table.game()["status"] == "active"
        oldest = redis_client.xrange(events_key(gid), "-", "+", count=1)[0]
        assert json.loads(oldest[1]["e"])["type"] != "game_created"  # trimmed
        # an active match: at most 8 KB besides its stream window
        kept = key_bytes(redis_client, f"*{{{gid}}}*")
        assert sum(v for k, v in kept.items() if k != events_key(gid)) <= 8 * 1024, kept
        headers = {**auth(table.tokens[0]), "Last-Event-ID": first_id}
        behind = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false", headers=headers).text)
        assert [(f["event"], f["code"]) for f in behind] == [("resync", "stream_window_passed")]
        newest = redis_client.xrevrange(events_key(gid), "+", "-", count=1)[0][0]
        assert behind[0]["last_event_id"] == newest and "/view" in behind[0]["detail"]
        # from the id it was given, the reader follows again without a gap
        game = table.game()
        seat = game["to_act"]
        assert table.act(seat, cautious(table.legal(seat), rng)).status_code == 200
        resumed = sse_frames(
            client.get(
                f"/v1/games/{gid}/events?follow=false",
                headers={**auth(table.tokens[0]), "Last-Event-ID": behind[0]["last_event_id"]},
            ).text
        )
        assert resumed and all(f["event"] != "resync" for f in resumed)
        public = [f for f in resumed if f["type"] != "your_turn"]  # the seat's own turn may follow
        assert public[-1]["type"] == "turn" and resumed[0]["version"] == game["version"] + 1
        assert all(f["seat"] == 0 for f in resumed if f["type"] == "your_turn")  # ALL-7
        # a spectator starting from the beginning of a trimmed stream is told the same
        start = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false").text)
        assert [f["code"] for f in start] == ["stream_window_passed"]


def test_a_reader_behind_the_window_of_a_finished_match_is_told_it_is_over(
    settings: Settings, redis_client: redis.Redis
) -> None:
    """The resync of a match that is over points to its final view and its log, not to following on
    ("a running match" was said of finished ones too)."""
    with TestClient(create_app(settings.model_copy(update={"stream_window": 16}))) as client:
        table = seated(client, "rough", options={"target_score": 200})
        gid = table.game_id
        first_id = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false").text)[0]["id"]
        table.play_random(random.Random(12))
        assert table.game()["version"] >= 32  # trimmed at least once while it ran
        oldest = redis_client.xrange(events_key(gid), "-", "+", count=1)[0]
        assert json.loads(oldest[1]["e"])["type"] != "game_created"
        headers = {**auth(table.tokens[0]), "Last-Event-ID": first_id}
        behind = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false", headers=headers).text)
        assert [(f["event"], f["code"]) for f in behind] == [("resync", "stream_window_passed")]
        detail = behind[0]["detail"]
        assert "is over" in detail and f"/v1/games/{gid}/log" in detail and "/view" in detail
        assert "running" not in detail and "follow with" not in detail


def test_by_default_a_reader_resumes_after_200_moves_away(settings: Settings) -> None:
    """The default window (ATOUT_STREAM_WINDOW=1024) holds a whole typical Le Rough match (bench/
    memory.py: docs/operations.md): a phone that last read the first event resumes from it after 200
    moves (here ~850 events: these cautious bids deal many hands), without a resync, where the former
    default of 256 events had dropped it long before."""
    defaults = Settings.model_fields
    assert settings.stream_window == defaults["stream_window"].default
    assert defaults["finished_stream_ttl"].default == 900  # a finished match's stream: 15 minutes
    rng = random.Random(13)
    with TestClient(create_app(settings)) as client:
        table = seated(client, "rough", options={"target_score": 500})
        gid = table.game_id
        first_id = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false").text)[0]["id"]
        for _ in range(200):
            game = table.game()
            assert game["status"] == "active"
            seat = game["to_act"]
            assert table.act(seat, cautious(table.legal(seat), rng)).status_code == 200
        headers = {**auth(table.tokens[0]), "Last-Event-ID": first_id}
        resumed = sse_frames(client.get(f"/v1/games/{gid}/events?follow=false", headers=headers).text)
        assert resumed and all(f["event"] != "resync" for f in resumed)
        assert len(resumed) > 400  # well past the former window, every event after the first
        assert resumed[-1]["version"] == table.game()["version"]


def test_a_state_stored_in_format_1_still_loads_and_plays(
    client: TestClient, redis_client: redis.Redis
) -> None:
    """The engine's stored state names its format (``atout.match/1``); a state written by an earlier
    release (test data) loads, writes back byte for byte (a changed layout must take a new format name
    and a reader of this one), and its game plays on through the service."""
    stored = (ROOT / "tests/data/states/rough-atout.match-1.json").read_text().strip()
    m = engine.from_json(stored)
    assert json.loads(stored)["format"] == engine.FORMAT == "atout.match/1"
    assert engine.to_json(m) == stored
    table = seated(client, "rough", options={"target_score": 500})
    # a version of its own: the API's cache of parsed states is per (game, version)
    redis_client.hset(f"atout:game:{{{table.game_id}}}", mapping={"state": stored, "version": 48})
    seat = m.to_act
    assert seat is not None
    action = table.legal(seat)[0]
    assert action in engine.legal_actions(m, seat)
    assert table.act(seat, fill(action, random.Random(1))).status_code == 200


def test_a_subscription_behind_the_window_ends_with_the_resync_code() -> None:
    error = lagged_error(StreamGap("stream_window_passed", "read the view", "12-0"))
    assert error.extensions is not None
    assert error.extensions["code"] == "stream_window_passed"
    assert error.extensions["last_event_id"] == "12-0"


def test_while_a_match_runs_each_folding_compresses_only_its_last_moves(redis_url: str) -> None:
    """Every LOG_CHUNK moves only the plain tail becomes one more chunk (the earlier chunks are kept
    as they are: a folding costs its last moves, not the whole match again); at the end the whole log
    becomes one chunk. Every form reads back as the same moves."""
    moves = [retention.log_entry(v, v % 4, {"type": "play", "card": "AS"}) for v in range(1, 50)]

    async def run() -> None:
        store = Store.from_url(redis_url, 60, 60, 60)
        try:
            key = log_key("g")
            for chunk in range(3):
                await store.r.rpush(key, *moves[chunk * 16 : (chunk + 1) * 16])
                before = await store.r.lrange(key, 0, -1)
                assert await retention.fold_log(store.games, "g", whole=False)
                after = await store.r.lrange(key, 0, -1)
                assert after[:chunk] == before[:chunk]  # the earlier chunks untouched
                assert len(after) == chunk + 1 and all(e.startswith(retention.CHUNK_PREFIX) for e in after)
            assert not await retention.fold_log(store.games, "g", whole=False)  # nothing plain left
            await store.r.rpush(key, moves[48])
            assert await retention.fold_log(store.games, "g", whole=True)
            whole = await store.r.lrange(key, 0, -1)
            assert len(whole) == 1
            assert [m["version"] for m in retention.decode_log(whole)] == list(range(1, 50))
        finally:
            await store.close()

    asyncio.run(run())
