"""Webhooks delivered end to end: the API registers an endpoint and the game code emits, a real
``atout worker --queues webhooks`` process (RQ, its scheduler for the retries) delivers to a real
receiver on 127.0.0.1 (allowed here by ATOUT_WEBHOOK_ALLOW_PRIVATE), which checks every signature with
``standardwebhooks`` and applies each ``webhook-id`` once, as an app's backend would. The receiver goes
down and comes back, answers slowly, answers 500, never stops answering: each time the message is
applied once. The retry schedule is a few seconds here (ATOUT_WEBHOOK_RETRY_SCHEDULE)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import TypeAdapter, ValidationError
from standardwebhooks import Webhook
from starlette.testclient import TestClient
from svc_helpers import admin_headers, auth, seated

from schema.webhooks import WebhookPayload, YourTurnData
from service.base.settings import Settings
from service.runtime.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD: TypeAdapter[Any] = TypeAdapter(WebhookPayload)
TURN = {"game_id": "g1", "kind": "rough", "seat": 2, "version": 7}


class Receiver:
    """An app's backend on 127.0.0.1 that can be stopped and started again on its port. Every request's
    signature is verified; a message is applied (kept) the first time it is answered 2xx, and a
    ``webhook-id`` seen again is acknowledged without being applied again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.secret = ""
        self.statuses: list[int] = []  # the next answers, in order; then 204
        self.slow_once = 0.0  # seconds the next request waits before its answer
        self.huge = False  # answer 200 with a body that never ends
        self.received: list[str] = []  # the webhook-id of every request, in order
        self.applied: dict[str, dict[str, Any]] = {}
        self.forged: list[str] = []  # requests whose signature did not verify
        self.cut = threading.Event()  # huge: the client hung up
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/atout?app=1"

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                receiver.handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()
        self.server = None

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers["content-length"]))
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            payload = Webhook(self.secret).verify(body, headers)
        except Exception:
            with self.lock:
                self.forged.append(headers.get("webhook-id", ""))
            request.send_response(401)
            request.end_headers()
            return
        mid = headers["webhook-id"]
        with self.lock:
            self.received.append(mid)
            status = self.statuses.pop(0) if self.statuses else 204
            slow, self.slow_once = self.slow_once, 0.0
            if 200 <= status < 300:
                self.applied.setdefault(mid, payload)  # a webhook-id seen before: acknowledged, not applied
        time.sleep(slow)
        if self.huge:
            request.send_response(200)
            request.send_header("content-length", str(10**12))
            request.end_headers()
            try:
                while True:
                    request.wfile.write(b"x" * 65536)
            except OSError:
                self.cut.set()
            return
        request.send_response(status)
        request.end_headers()


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The API may register receivers on the loopback (the worker is told so in its environment)."""
    return settings.model_copy(update={"webhook_allow_private": True})


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    up = Receiver()
    up.start()
    try:
        yield up
    finally:
        if up.server is not None:
            up.stop()


Worker = Callable[..., int]


@pytest.fixture
def webhook_worker(settings: Settings, tmp_path: Path) -> Iterator[Worker]:
    """Start a real ``atout worker --queues webhooks`` (with its RQ scheduler) against the test Redis;
    its environment is this test's settings, overridden by the keyword arguments; returns the port of
    its own /metrics."""
    started: list[subprocess.Popen[bytes]] = []
    logs: list[Any] = []

    def start(**overrides: str) -> int:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        env.update(
            {
                "REDIS_URL": settings.redis_url or "",
                "PYTHONPATH": str(ROOT),
                "ATOUT_WEBHOOK_ALLOW_PRIVATE": "true",
                "ATOUT_WEBHOOK_RETRY_SCHEDULE": "1,1,1,1,1",
                "ATOUT_WEBHOOK_CONNECT_TIMEOUT": "1",
                "ATOUT_WEBHOOK_READ_TIMEOUT": "1",
                "ATOUT_WORKER_METRICS_PORT": str(port),
                **overrides,
            }
        )
        log = open(tmp_path / f"worker-{len(started)}.log", "wb")  # noqa: SIM115
        logs.append(log)
        command = [sys.executable, "-m", "service.runtime.cli", "worker", "--queues", "webhooks"]
        started.append(subprocess.Popen(command, env=env, stdout=log, stderr=log))
        return port

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for log in logs:
        log.close()


def wait_for(check: Callable[[], Any], what: str, seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.05)
    return found


def register(client: TestClient, url: str, *events: str) -> tuple[str, str]:
    body = {"url": url, "event_types": list(events or ("your_turn",))}
    response = client.post("/v1/admin/webhooks", json=body, headers=admin_headers(client))
    assert response.status_code == 201, response.text
    return response.json()["webhook"]["webhook_id"], response.json()["secret"]


def subscribed(client: TestClient, receiver: Receiver, *events: str) -> str:
    wid, receiver.secret = register(client, receiver.url, *events)
    return wid


def emit(client: TestClient, event_type: str, data: dict[str, Any], key: str | None = None) -> str:
    assert client.portal is not None
    games = client.app.state.games  # type: ignore[attr-defined]
    mid: str = client.portal.call(functools.partial(games.webhooks.emit_webhook, event_type, data, key=key))
    return mid


def log_of(client: TestClient, wid: str) -> list[dict[str, Any]]:
    """The endpoint's delivery attempts, oldest first."""
    response = client.get(f"/v1/admin/webhooks/{wid}/deliveries?limit=100", headers=admin_headers(client))
    assert response.status_code == 200, response.text
    return list(reversed(response.json()["deliveries"]))


def delivered(client: TestClient, wid: str) -> list[dict[str, Any]]:
    """The log once an attempt was answered 2xx (waited for)."""
    return wait_for(
        lambda: (log := log_of(client, wid)) and any(200 <= (a["status"] or 0) < 300 for a in log) and log,
        "a delivered attempt",
    )


def metric(text: str, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and all(found.labels.get(k) == v for k, v in labels.items()):
                return float(found.value)
    return 0.0


def test_a_message_is_delivered_signed_once_with_its_facts(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver, "your_turn", "game_finished")
    metrics_port = webhook_worker()
    mid = emit(client, "your_turn", TURN)
    log = delivered(client, wid)
    assert [(a["attempt"], a["status"], a["error"], a["message_id"]) for a in log] == [(1, 204, None, mid)]
    assert receiver.received == [mid] and receiver.forged == []
    payload = receiver.applied[mid]
    assert PAYLOAD.validate_python(payload).type == "your_turn"  # the typed contract of the message
    assert payload["data"] == {**TURN, "player_id": None, "deadline_at": None}
    scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics").text
    assert metric(scraped, "atout_webhook_deliveries_total", event="your_turn", outcome="delivered") == 1
    assert metric(scraped, "atout_webhook_delivery_seconds_count", outcome="delivered") == 1
    emit(client, "reminder", {**TURN, "deadline_at": 1_800_000_000})  # no endpoint subscribes to it
    emit(client, "game_finished", {"game_id": "g1", "kind": "rough", "version": 9, "winners": [0, 2]})
    wait_for(lambda: len(receiver.applied) == 2, "the game_finished message")
    assert {p["type"] for p in receiver.applied.values()} == {"your_turn", "game_finished"}


def test_a_receiver_that_is_down_gets_the_message_once_it_is_back(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver)
    receiver.stop()
    webhook_worker()
    mid = emit(client, "your_turn", TURN)
    wait_for(lambda: len(log_of(client, wid)) >= 2, "two refused connections")
    receiver.start()  # the same port
    log = delivered(client, wid)
    assert receiver.received == [mid] and receiver.applied.keys() == {mid}
    assert {a["message_id"] for a in log} == {mid}
    assert [a["error"] for a in log[:-1]] == ["connection_failed"] * (len(log) - 1)
    assert [a["attempt"] for a in log] == list(range(1, len(log) + 1))


def test_a_slow_receiver_times_out_and_the_retry_with_the_same_id_is_applied_once(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver)
    receiver.slow_once = 3.0  # past the 1 s read timeout
    webhook_worker()
    mid = emit(client, "your_turn", TURN)
    log = delivered(client, wid)
    assert [(a["attempt"], a["status"], a["error"]) for a in log] == [(1, None, "timeout"), (2, 204, None)]
    assert log[0]["duration_seconds"] < 2.5  # cut at the timeout, not when the receiver answered
    assert receiver.received == [mid, mid]  # the same webhook-id both times...
    assert list(receiver.applied) == [mid]  # ...so the receiver applied it once


def test_a_500_is_retried_and_then_delivered(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver)
    receiver.statuses = [500, 503]
    webhook_worker()
    mid = emit(client, "your_turn", TURN)
    log = delivered(client, wid)
    assert [(a["attempt"], a["status"]) for a in log] == [(1, 500), (2, 503), (3, 204)]
    assert receiver.received == [mid] * 3 and list(receiver.applied) == [mid]


def test_a_message_failing_every_retry_is_dead_lettered_then_redelivered(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver)
    receiver.statuses = [500] * 3
    metrics_port = webhook_worker(ATOUT_WEBHOOK_RETRY_SCHEDULE="1,1")
    mid = emit(client, "your_turn", TURN)
    admin = admin_headers(client)
    page = wait_for(
        lambda: client.get("/v1/admin/webhooks/dead-letters", headers=admin).json()["dead_letters"],
        "the dead letter",
    )
    assert len(page) == 1
    dead = page[0]
    assert (dead["webhook_id"], dead["message_id"], dead["attempts"], dead["error"]) == (
        wid,
        mid,
        3,
        "status 500",
    )
    assert dead["payload"]["data"] == {**TURN, "player_id": None, "deadline_at": None}
    assert [a["status"] for a in log_of(client, wid)] == [500, 500, 500]
    assert metric(client.get("/metrics").text, "atout_webhook_dead_letters") == 1
    scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics").text
    assert metric(scraped, "atout_webhook_deliveries_total", event="your_turn", outcome="retried") == 2
    assert metric(scraped, "atout_webhook_deliveries_total", event="your_turn", outcome="dead") == 1
    query = (
        "{ deadLetters { nodes { deadLetterId messageId "
        "payload { type data { ... on YourTurnData { seat } } } } } }"
    )
    letters = client.post("/graphql", json={"query": query}, headers=admin).json()["data"]["deadLetters"]
    assert letters["nodes"] == [
        {
            "deadLetterId": dead["dead_letter_id"],
            "messageId": mid,
            "payload": {"type": "YOUR_TURN", "data": {"seat": 2}},
        }
    ]
    # the receiver is fixed: the operator redelivers, with the same webhook-id
    redeliver = f"/v1/admin/webhooks/dead-letters/{dead['dead_letter_id']}/redeliver"
    response = client.post(redeliver, headers=admin)
    assert response.status_code == 202 and response.json() == {"webhook_id": wid, "message_id": mid}
    wait_for(lambda: mid in receiver.applied, "the redelivery")
    assert client.get("/v1/admin/webhooks/dead-letters", headers=admin).json()["dead_letters"] == []
    again = client.post(redeliver, headers=admin)
    assert again.status_code == 404 and again.json()["code"] == "dead_letter_not_found"
    assert receiver.received == [mid] * 4 and list(receiver.applied) == [mid]


def test_an_endless_answer_does_not_hold_the_worker(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    wid = subscribed(client, receiver)
    receiver.huge = True
    webhook_worker(ATOUT_WEBHOOK_READ_TIMEOUT="20", ATOUT_WEBHOOK_MAX_RESPONSE_BYTES="65536")
    emit(client, "your_turn", TURN)
    log = delivered(client, wid)
    assert [(a["status"], a["error"]) for a in log] == [(200, None)]
    assert log[0]["duration_seconds"] < 3  # not the 21 s deadline: the worker read 64 KiB and hung up
    assert receiver.cut.wait(10)


def test_an_address_that_became_private_is_refused_at_delivery(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    """Registered while allowed (as a name whose DNS later points inside): the worker, which checks
    the address again at every delivery, sends nothing and dead-letters the message at once."""
    wid = subscribed(client, receiver)
    metrics_port = webhook_worker(ATOUT_WEBHOOK_ALLOW_PRIVATE="false")
    mid = emit(client, "your_turn", TURN)
    log = wait_for(lambda: log_of(client, wid), "the refused attempt")
    assert [(a["status"], a["error"]) for a in log] == [(None, "address_refused")]
    dead = client.get("/v1/admin/webhooks/dead-letters", headers=admin_headers(client)).json()
    assert [(d["message_id"], d["error"]) for d in dead["dead_letters"]] == [(mid, "address_refused")]
    assert receiver.received == []
    scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics").text
    assert metric(scraped, "atout_webhook_deliveries_total", event="your_turn", outcome="refused") == 1


def test_a_paused_or_deleted_endpoint_gets_nothing_and_an_event_key_is_sent_once(
    client: TestClient, receiver: Receiver, webhook_worker: Worker, tmp_path: Path
) -> None:
    wid = subscribed(client, receiver)
    admin = admin_headers(client)
    paused = client.patch(f"/v1/admin/webhooks/{wid}", json={"enabled": False}, headers=admin)
    assert paused.status_code == 200 and paused.json()["enabled"] is False
    emit(client, "your_turn", TURN)  # nobody to send it to
    assert client.patch(f"/v1/admin/webhooks/{wid}", json={"enabled": True}, headers=admin).status_code == 200
    first = emit(client, "your_turn", TURN, key="g1:7:2")
    assert emit(client, "your_turn", TURN, key="g1:7:2") == first  # the same event, emitted twice
    webhook_worker()
    delivered(client, wid)
    time.sleep(1.5)  # time for a second message, were there one
    assert receiver.received == [first]
    # a retry due after its endpoint was deleted: dropped, and the endpoint's keys stay gone
    receiver.statuses = [500] * 5
    second = emit(client, "your_turn", {**TURN, "version": 8})
    wait_for(lambda: second in receiver.received, "the failed attempt")
    assert client.delete(f"/v1/admin/webhooks/{wid}", headers=admin).status_code == 204
    worker_log = tmp_path / "worker-0.log"
    wait_for(lambda: "webhook_endpoint_gone" in worker_log.read_text(), "the retry to find no endpoint")
    assert receiver.received[:2] == [first, second] and set(receiver.received) == {first, second}
    assert list(receiver.applied) == [first]  # the second message was dropped, never dead-lettered
    assert client.get("/v1/admin/webhooks/dead-letters", headers=admin).json()["dead_letters"] == []
    keys = client.app.state.sync_redis.keys("atout:webhook*")  # type: ignore[attr-defined]
    assert all(b"webhooksent" in key for key in keys), keys


def test_a_your_turn_from_a_real_game_carries_no_hidden_information(
    client: TestClient, receiver: Receiver, webhook_worker: Worker
) -> None:
    table = seated(client, "five_hundred", seed="11")
    game = table.game()
    seat, version = game["to_act"], game["version"]
    hand = set(
        client.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])).json()["view"]["hand"]
    )
    assert len(hand) == 10
    wid = subscribed(client, receiver)
    webhook_worker()
    facts = {"game_id": table.game_id, "kind": game["kind"], "seat": seat, "version": version}
    mid = emit(client, "your_turn", facts)
    delivered(client, wid)
    payload = receiver.applied[mid]
    assert set(payload) == {"type", "timestamp", "data"}
    assert set(payload["data"]) == set(YourTurnData.model_fields) == {
        "game_id", "kind", "seat", "version", "player_id", "deadline_at"
    }  # fmt: skip
    said = json.dumps(payload)
    assert not any(f'"{card}"' in said for card in hand), said  # no card of the seat's hand, anywhere
    # and the game code cannot send one: a field the event type does not declare is refused
    for extra in ({"hand": sorted(hand)}, {"view": {"hand": sorted(hand)}}, {"legal_actions": []}):
        with pytest.raises(ValidationError):
            emit(client, "your_turn", {**facts, **extra})
    with pytest.raises(ValueError, match="unknown webhook event type"):
        emit(client, "your_hand", facts)
