"""``atout.client`` against a live ``atout serve``: problems raised with their code, a move's
Idempotency-Key (a retry is replayed, never played twice), a real 429 and a real 503 retried after
their Retry-After (a rate limit set low; the store stopped and started again), streams that resume
with no gap and no duplicate, SSE and NDJSON alike, and the async client."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from cutting_proxy import CuttingProxy
from toolkit_live import Serve

from atout.client import NO_RETRY, ApiError, AsyncClient, Client, ConnectionLost, RetryPolicy
from examples.bot_class import HighCard
from service.runtime.embedded_redis import EmbeddedRedis, free_port

FOUR_OPEN = {"kind": "five_hundred", "options": {"target_score": 300}, "seats": ["open"] * 4}


def retries(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [r.atout_retry for r in caplog.records if hasattr(r, "atout_retry")]


def seated(atout: Client) -> tuple[str, dict[int, str]]:
    """A Le 500 game whose four seats this test holds: their tokens by seat."""
    gid = atout.create_game(FOUR_OPEN).game.game_id
    tokens = {}
    for seat in range(4):
        joined = atout.join(gid, seat)
        tokens[joined.seat] = joined.token
    return gid, tokens


def to_act(atout: Client, gid: str, tokens: dict[int, str]) -> tuple[int, str, dict[str, Any], int]:
    """The seat to act, its token, the action HighCard chooses and the version it is chosen at."""
    seat = atout.game(gid).to_act
    assert seat is not None
    answer = atout.view(gid, token=tokens[seat])
    assert answer.legal_actions
    legal = [a.model_dump(mode="json", by_alias=True, exclude_unset=True) for a in answer.legal_actions]
    view = answer.view.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return seat, tokens[seat], HighCard().decide(view, legal), answer.version


def test_problems_are_raised_with_their_code_and_a_retried_move_is_replayed(served: Serve) -> None:
    with Client(served.base) as atout:
        with pytest.raises(ApiError) as missing:
            atout.game("nope")
        assert (missing.value.status, missing.value.code) == (404, "game_not_found")
        assert missing.value.problem is not None and missing.value.problem.instance

        gid, tokens = seated(atout)
        seat, token, action, version = to_act(atout, gid, tokens)
        other = tokens[(seat + 1) % 4]
        with pytest.raises(ApiError) as wrong:
            atout.act(gid, action, token=other)
        assert wrong.value.code == "not_your_turn"
        with pytest.raises(ApiError) as stranger:
            atout.act(gid, action, token="not-a-seat-token")
        assert (stranger.value.status, stranger.value.code) == (401, "invalid_token")
        with pytest.raises(ApiError) as illegal:
            atout.act(gid, {"type": "play", "card": "AS"}, token=token)
        assert illegal.value.code == "illegal_action" and illegal.value.problem and illegal.value.problem.rule

        first = atout.act(gid, action, expected_version=version, idempotency_key="move-1", token=token)
        again = atout.act(gid, action, expected_version=version, idempotency_key="move-1", token=token)
        assert (first.replayed, again.replayed) == (False, True)
        assert again.version == first.version == version + 1
        assert atout.game(gid).version == version + 1  # played once
        with pytest.raises(ApiError) as reused:
            atout.act(gid, action, expected_version=version + 5, idempotency_key="move-1", token=token)
        assert reused.value.code == "idempotency_key_reused"
        with pytest.raises(ApiError) as conflict:
            atout.act(gid, {"type": "pass"}, expected_version=version, token=tokens[first.to_act or 0])
        assert conflict.value.code == "version_conflict"
        assert conflict.value.problem and conflict.value.problem.current_version == version + 1


def test_a_move_whose_answer_is_lost_is_sent_again_with_its_key_and_answered_replayed(
    served: Serve, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "atout.client")
    proxy = CuttingProxy(served.port).start()
    try:
        with Client(proxy.base) as atout:
            gid, tokens = seated(atout)
            _, token, action, version = to_act(atout, gid, tokens)
            proxy.arm()
            answer = atout.act(gid, action, expected_version=version, token=token)
            assert proxy.cuts == 1
            assert answer.replayed and answer.version == version + 1  # the first try's answer, stored
            assert atout.game(gid).version == version + 1  # the move was played once
            noted = retries(caplog)
            assert len(noted) == 1 and noted[0]["path"].endswith("/actions")
            assert "RemoteProtocolError" in noted[0]["reason"] or "ReadError" in noted[0]["reason"]

            proxy.arm(marker=b"POST /v1/games HTTP")
            caplog.clear()
            with pytest.raises(ConnectionLost, match="not sent again"):  # a create is not repeated on a doubt
                atout.create_game(FOUR_OPEN)
            assert proxy.cuts == 2 and retries(caplog) == []
    finally:
        proxy.close()


def test_a_429_is_retried_after_its_retry_after(served: Serve, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "atout.client")
    with Client(served.base, retry=NO_RETRY) as once, pytest.raises(ApiError) as limited:
        for _ in range(5):  # guests: two a second from one address (conftest.GUESTS_PER_ADDRESS)
            once.create_player("guest")
    assert (limited.value.status, limited.value.code) == (429, "rate_limited")
    assert limited.value.retry_after is not None and limited.value.retry_after >= 1
    with Client(served.base) as atout:
        started = time.monotonic()
        names = [atout.create_player(f"g{i}").name for i in range(3)]
        took = time.monotonic() - started
    assert names == ["g0", "g1", "g2"]
    noted = retries(caplog)
    assert noted and all(r["reason"] == "429 rate_limited" for r in noted)
    assert took >= sum(r["delay"] for r in noted) >= 1


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A redis-server of this test's own (on a fixed port, so that it can stop and start again)."""
    server = EmbeddedRedis(tmp_path / "redis", port=free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def during_an_outage(server: EmbeddedRedis, call: Callable[[], Any], seconds: float = 1.0) -> Any:
    """``call()`` made while the store is stopped, which starts again ``seconds`` later. The store is
    started from this (the main) thread: a redis-server dies with the thread that started it."""
    server.stop()
    result: dict[str, Any] = {}

    def make() -> None:
        try:
            result["value"] = call()
        except Exception as error:
            result["error"] = error

    thread = threading.Thread(target=make, daemon=True)
    thread.start()
    time.sleep(seconds)
    server.start()
    thread.join(60)
    assert not thread.is_alive()
    if "error" in result:
        raise result["error"]
    return result["value"]


def test_a_503_of_a_stopped_store_is_retried_for_reads_and_moves_not_for_creates(
    serve_factory: Callable[..., Serve], own_redis: EmbeddedRedis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "atout.client")
    served = serve_factory(own_redis.url)
    with Client(served.base) as atout:
        gid, tokens = seated(atout)
        _, token, action, version = to_act(atout, gid, tokens)

        game = during_an_outage(own_redis, lambda: atout.game(gid))  # a read: retried until the store is back
        assert game.version == version
        assert [r["reason"] for r in retries(caplog)][:1] == ["503 store_unavailable"]

        caplog.clear()
        moved = during_an_outage(  # a move, with its key
            own_redis, lambda: atout.act(gid, action, expected_version=version, token=token)
        )
        assert not moved.replayed and moved.version == version + 1
        assert "503 store_unavailable" in [r["reason"] for r in retries(caplog)]
        assert atout.game(gid).version == version + 1

        with pytest.raises(ApiError) as refused:  # a create is not sent twice on a doubt
            during_an_outage(own_redis, lambda: atout.create_game(FOUR_OPEN), 0.5)
        assert (refused.value.status, refused.value.code) == (503, "store_unavailable")
        assert refused.value.retry_after == 2


def play_out(atout: Client, gid: str, tokens: dict[int, str], moves: int) -> None:
    for _ in range(moves):
        _, token, action, version = to_act(atout, gid, tokens)
        atout.act(gid, action, expected_version=version, token=token)


def test_streams_resume_from_their_last_event_with_no_gap_or_duplicate(served: Serve) -> None:
    with Client(served.base) as atout:
        gid, tokens = seated(atout)
        play_out(atout, gid, tokens, 30)
        token = tokens[0]
        whole = list(atout.game_events(gid, follow=False, token=token))
        assert len(whole) > 30 and len({e.id for e in whole}) == len(whole)
        lines = list(atout.game_events(gid, follow=False, ndjson=True, token=token))
        assert [e.model_dump() for e in lines] == [e.model_dump() for e in whole]  # NDJSON = SSE

        cut = atout.game_events(gid, follow=False, token=token)
        head = list(islice(cut, 17))
        tail = list(atout.game_events(gid, follow=False, last_event_id=cut.last_event_id, token=token))
        assert [e.id for e in head + tail] == [e.id for e in whole]

        # followed live: the stream stays open while another client plays, and sees each move once
        seen: list[str] = []
        live = atout.game_events(gid, last_event_id=whole[-1].id, token=token)
        reader = threading.Thread(target=lambda: seen.extend(e.id for e in islice(live, 10)), daemon=True)
        reader.start()
        with Client(served.base) as player:
            play_out(player, gid, tokens, 10)
        reader.join(30)
        after = list(atout.game_events(gid, follow=False, last_event_id=whole[-1].id, token=token))
        assert seen == [e.id for e in after][:10] and len(seen) == 10


def test_a_players_notices_come_typed_from_me_events(served: Serve) -> None:
    with Client(served.base) as atout:
        player = atout.create_player("alice")
        gid = atout.create_game(FOUR_OPEN).game.game_id
        atout.join(gid, 0, token=player.token)
        for seat in (1, 2, 3):
            atout.join(gid, seat)
        notices = list(atout.my_events(follow=False, token=player.token))
        assert notices and {n.type for n in notices} <= {"game_started", "your_turn"}
        assert all(n.game_id == gid for n in notices)
        assert [n.id for n in atout.my_events(follow=False, ndjson=True, token=player.token)] == [
            n.id for n in notices
        ]


@pytest.mark.anyio
async def test_the_async_client_plays_from_the_bot_stream_and_resumes_it(served: Serve) -> None:
    async with AsyncClient(served.base, retry=RetryPolicy(max_attempts=3)) as atout:
        bot = await atout.register_bot("async-bot")
        game = await atout.create_game(FOUR_OPEN, token=bot.api_key)
        gid = game.game.game_id
        tokens = {}
        for seat in range(4):
            joined = await atout.join(gid, seat, token=bot.api_key)
            tokens[joined.seat] = joined.token
        turns = atout.bot_turns(token=bot.api_key)
        played = 0
        async for notice in turns:
            assert notice.type == "your_turn" and notice.game_id == gid and notice.seat is not None
            legal = [
                a.model_dump(mode="json", by_alias=True, exclude_unset=True)
                for a in notice.legal_actions or []
            ]
            view = (
                notice.view.model_dump(mode="json", by_alias=True, exclude_unset=True) if notice.view else {}
            )
            answer = await atout.act(
                gid,
                HighCard().decide(view, legal),
                expected_version=notice.version,
                token=tokens[notice.seat],
            )
            assert answer.version == notice.version + 1
            played += 1
            if played == 8:
                break
        assert turns.last_event_id is not None
        rest = [
            n
            async for n in atout.bot_turns(last_event_id=turns.last_event_id, follow=False, token=bot.api_key)
        ]
        assert [n.version for n in rest] == [notice.version + 1]  # the next turn only: no duplicate
        with pytest.raises(ApiError) as missing:
            await atout.game("nope")
        assert missing.value.code == "game_not_found"
