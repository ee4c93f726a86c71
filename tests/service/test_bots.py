"""Bot seats: the service enqueues one RQ job per bot turn; a burst worker plays them."""

from __future__ import annotations

import random
import re
from typing import Any, get_args

import redis
from rq import Queue
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, Table, admin_headers, fill, wait_for_human

from schema import tournaments
from schema.games import SEAT_KIND
from schema.kinds import BotLevel
from service.base.settings import Settings
from workers.bots import LEVELS
from workers.jobs import queue as bot_jobs
from workers.jobs import turns as bot_turns
from workers.jobs.worker import TurnWorker


def drain(connection: redis.Redis, queue_name: str) -> None:
    queues = [Queue(q, connection=connection, serializer=JSONSerializer) for q in bot_jobs.queues(queue_name)]
    TurnWorker(queues, connection=connection, serializer=JSONSerializer).work(burst=True)


def test_a_human_plays_a_full_match_against_three_bots(
    client: TestClient, rq_worker: str, rng: random.Random
) -> None:
    created = client.post(
        "/v1/games",
        json={
            "kind": "rough",
            "seed": "41",
            "options": FAST_OPTIONS["rough"],
            "seats": ["open", "bot:random", "bot:heuristic", "bot:expert"],
        },
        headers=admin_headers(client),  # only the administrator chooses a seed
    ).json()
    gid = created["game"]["game_id"]
    joined = client.post(f"/v1/games/{gid}/join", json={}).json()
    assert joined["seat"] == 0 and joined["started"] is True
    table = Table(client, gid, {0: joined["token"]})
    human_moves = 0
    for _ in range(5000):
        game = wait_for_human(table, {0})
        if game["status"] == "finished":
            break
        response = table.act(0, fill(rng.choice(table.legal(0)), rng), expected_version=game["version"])
        assert response.status_code == 200, response.text
        human_moves += 1
    assert game["status"] == "finished"
    log = client.get(f"/v1/games/{gid}/log").json()
    assert {e["seat"] for e in log["actions"]} == {0, 1, 2, 3}
    assert human_moves == sum(1 for e in log["actions"] if e["seat"] == 0)


def test_a_game_of_bots_only_plays_itself(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    body = {"kind": "euchre5", "seed": "5", "options": FAST_OPTIONS["euchre5"], "seats": ["bot:random"] * 5}
    game = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]
    assert game["status"] == "active"
    drain(worker_env, settings.bot_queue)
    assert client.get(f"/v1/games/{game['game_id']}").json()["status"] == "finished"


def test_a_stale_or_duplicate_bot_job_does_nothing(
    client: TestClient, worker_env: redis.Redis, settings: Settings
) -> None:
    body = {"kind": "rough", "seed": "6", "seats": ["open", "open", "open", "bot:random"]}
    gid = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]["game_id"]
    assert bot_turns.play_turn(gid, 0) == "stale"  # still waiting for players
    assert bot_turns.play_turn("missing", 0) == "stale"
    bot_jobs.enqueue(worker_env, settings.bot_queue, gid, 0)
    bot_jobs.enqueue(worker_env, settings.bot_queue, gid, 0)
    assert Queue(settings.bot_queue, connection=worker_env, serializer=JSONSerializer).count == 1


def test_expert_turns_have_their_own_queue(worker_env: redis.Redis, settings: Settings) -> None:
    bot_jobs.enqueue(worker_env, settings.bot_queue, "g", 3, "expert")
    bot_jobs.enqueue(worker_env, settings.bot_queue, "g", 4, "heuristic")
    expert = Queue(f"{settings.bot_queue}-expert", connection=worker_env, serializer=JSONSerializer)
    fast = Queue(settings.bot_queue, connection=worker_env, serializer=JSONSerializer)
    assert expert.job_ids == [bot_jobs.job_id("g", 3)] and fast.job_ids == [bot_jobs.job_id("g", 4)]


def test_the_contract_names_every_built_in_level_the_workers_run() -> None:
    """A seat's ``bot_level``, a seat kind ``bot:<level>`` and a tournament entrant: the levels
    workers.bots.LEVELS plays, no more and no fewer (the schema does not import the workers)."""
    assert set(get_args(BotLevel)) == set(LEVELS) == set(tournaments.LEVELS)
    for level in LEVELS:
        assert re.fullmatch(SEAT_KIND, f"bot:{level}")


def test_every_level_answers_a_legal_action_from_a_seat_view() -> None:
    import engine

    m = engine.new_match("five_hundred", seed=3)
    seat = m.to_act
    assert seat is not None
    legal = engine.legal_actions(m, seat)
    for level in LEVELS:
        action = bot_turns.choose(engine.view(m, seat), legal, level, random.Random(1), budget_s=0.01)
        engine.apply(m, seat, action)


def test_a_bot_fills_a_discard_template_with_the_right_number_of_cards() -> None:
    template: dict[str, Any] = {"type": "discard", "count": 2, "choices": ["AS", "KS", "QS", "JS"]}
    chosen = bot_turns.choose({}, [template], "random", random.Random(1))
    assert chosen["type"] == "discard" and len(set(chosen["cards"])) == 2
    assert set(chosen["cards"]) <= set(template["choices"])


def test_the_turn_worker_starts_no_pubsub_thread_whose_stop_could_wait_a_minute(
    worker_env: redis.Redis, settings: Settings
) -> None:
    """RQ's worker listens for remote commands on a pubsub thread polling every 60 s; stopping it
    joined that thread, which could sit a whole poll when its SUBSCRIBE was not yet answered (seen as
    60 s stalls under load). Nothing sends those commands: the workers that play turns start none."""
    queue = Queue(settings.bot_queue, connection=worker_env, serializer=JSONSerializer)
    worker = TurnWorker([queue], connection=worker_env, serializer=JSONSerializer)
    worker.work(burst=True)
    assert worker.pubsub_thread is None
