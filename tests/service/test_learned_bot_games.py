"""``bot:learned`` seats (the network of workers/bots/learned.py) play whole games in the service's
workers, like the other built-in levels: the service enqueues one RQ job per bot turn and a burst
worker plays them, in each of the three games."""

from __future__ import annotations

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, PLAYERS, admin_headers

from service.base.settings import Settings
from workers.jobs import queue as bot_jobs
from workers.jobs.worker import TurnWorker


def drain(connection: redis.Redis, queue_name: str) -> None:
    queues = [Queue(q, connection=connection, serializer=JSONSerializer) for q in bot_jobs.queues(queue_name)]
    TurnWorker(queues, connection=connection, serializer=JSONSerializer).work(burst=True)


@pytest.mark.parametrize("game", ["rough", "five_hundred", "euchre5"])
def test_a_game_with_learned_bots_plays_to_its_end(
    client: TestClient, worker_env: redis.Redis, settings: Settings, game: str
) -> None:
    seats = ["bot:learned", "bot:heuristic"] * 2 + ["bot:learned"] * (PLAYERS[game] - 4)
    body = {"kind": game, "seed": "12", "options": FAST_OPTIONS[game], "seats": seats}
    created = client.post("/v1/games", json=body, headers=admin_headers(client)).json()["game"]
    assert [s["bot_level"] for s in created["seats"]] == [s.removeprefix("bot:") for s in seats]
    drain(worker_env, settings.bot_queue)
    gid = created["game_id"]
    assert client.get(f"/v1/games/{gid}").json()["status"] == "finished"
    log = client.get(f"/v1/games/{gid}/log").json()
    assert {e["seat"] for e in log["actions"]} == set(range(PLAYERS[game]))
