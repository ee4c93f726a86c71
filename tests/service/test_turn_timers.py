"""Turn timers: a timed game schedules a job per human turn; when it fires, a bot plays the move."""

from __future__ import annotations

from typing import Any

import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import Table, auth, seated

from service.base.settings import Settings
from workers.jobs import queue as bot_jobs
from workers.jobs import turns as bot_turns


def scheduled(connection: redis.Redis, settings: Settings) -> list[str]:
    queue = Queue(settings.bot_queue, connection=connection, serializer=JSONSerializer)
    registry = ScheduledJobRegistry(queue=queue)  # type: ignore[no-untyped-call]
    return sorted(registry.get_job_ids())


def test_each_human_turn_of_a_timed_game_is_scheduled(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = seated(client, "rough", seed="3", turn_seconds=30)
    assert table.game()["turn_seconds"] == 30
    assert scheduled(worker_env, settings) == [bot_jobs.timer_id(table.game_id, 0)]
    seat = table.game()["to_act"]
    assert table.act(seat, {"type": "pass"}).status_code == 200
    assert bot_jobs.timer_id(table.game_id, 1) in scheduled(worker_env, settings)


def test_when_the_time_runs_out_a_bot_plays_for_the_seat(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = seated(client, "five_hundred", seed="4", turn_seconds=10)
    seat = table.game()["to_act"]
    assert bot_turns.turn_timeout(table.game_id, 0) == "played"
    game = table.game()
    assert game["version"] == 1 and game["to_act"] != seat
    events = client.get(
        f"/v1/games/{table.game_id}/events?follow=false", headers=auth(table.tokens[seat])
    ).text
    assert "event: turn_timed_out" in events
    assert bot_turns.turn_timeout(table.game_id, 0) == "stale"  # the seat moved on: a late timer does nothing
    log = client.get(f"/v1/games/{table.game_id}/log", headers=auth(settings.admin_token or "")).json()
    assert log["actions"][0]["by"] == "timer" and log["actions"][0]["seat"] == seat


def test_untimed_games_schedule_nothing(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = seated(client, "rough", seed="5")
    assert table.game()["turn_seconds"] is None
    assert scheduled(worker_env, settings) == []


def test_turn_seconds_out_of_range_is_422(client: TestClient) -> None:
    response = client.post("/v1/games", json={"kind": "rough", "turn_seconds": 1})
    assert response.status_code == 422 and response.json()["code"] == "invalid_request"


def others_answer_until(table: Table, seat: int) -> dict[str, Any]:
    """The other seats answer in time until ``seat`` is to act again; the game then."""
    while (game := table.game())["to_act"] != seat:
        other = game["to_act"]
        assert table.act(other, table.legal(other)[0]).status_code == 200
    return game


def test_a_seat_that_times_out_too_often_becomes_a_bot(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = seated(client, "euchre5", seed="6", turn_seconds=10, timeouts_to_bot=2)
    first = table.game()["to_act"]
    assert bot_turns.turn_timeout(table.game_id, 0) == "played"
    # the others answer in time until the same seat is to act again, then it times out once more
    game = others_answer_until(table, first)
    assert game["seats"][first]["seat_kind"] == "human"
    assert bot_turns.turn_timeout(table.game_id, game["version"]) == "played"
    game = table.game()
    assert (game["seats"][first]["seat_kind"], game["seats"][first]["bot_level"]) == ("bot", "heuristic")
    response = table.act(first, {"type": "pass"})
    assert response.status_code == 401 and response.json()["code"] == "invalid_token"
    assert "seat_forfeited" in client.get(f"/v1/games/{table.game_id}/events?follow=false").text


def test_a_move_in_time_clears_the_count_of_timeouts(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    table = seated(client, "euchre5", seed="6", turn_seconds=10, timeouts_to_bot=2)
    first = table.game()["to_act"]
    assert bot_turns.turn_timeout(table.game_id, 0) == "played"
    for round_ in range(2):  # twice more at this seat: once by the player, once timed out
        game = others_answer_until(table, first)
        if round_ == 0:
            assert table.act(first, table.legal(first)[0]).status_code == 200
        else:
            assert bot_turns.turn_timeout(table.game_id, game["version"]) == "played"
    assert table.game()["seats"][first]["seat_kind"] == "human"
