"""Helpers for the service tests: seat a game with tokens, play random legal actions through REST."""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

FAST_OPTIONS: dict[str, dict[str, Any]] = {
    "five_hundred": {"target_score": 300},
    "rough": {"target_score": 200},
    "euchre5": {"target_score": 5},
}
PLAYERS = {"five_hundred": 4, "rough": 4, "euchre5": 5}
UNLIMITED_RATES = {
    f"ATOUT_RATE_{category}{scope}".upper(): "100000/minute"
    for category in ("create_game", "join", "act", "register_bot", "create_player", "open_stream")
    for scope in ("", "_per_address")
}
"""The environment of a service a test drives at full speed from one address: every rate limit lifted."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def fill(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A concrete action from a legal one; a discard template becomes a random choice."""
    if action["type"] == "discard" and "choices" in action:
        return {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
    return dict(action)


@dataclass
class Table:
    client: TestClient
    game_id: str
    tokens: dict[int, str] = field(default_factory=dict)

    def game(self) -> dict[str, Any]:
        response = self.client.get(f"/v1/games/{self.game_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def legal(self, seat: int) -> list[dict[str, Any]]:
        response = self.client.get(f"/v1/games/{self.game_id}/actions", headers=auth(self.tokens[seat]))
        assert response.status_code == 200, response.text
        actions: list[dict[str, Any]] = response.json()["legal_actions"]
        return actions

    def act(self, who: int, action: dict[str, Any], **extra: Any) -> Any:
        """POST ``action`` with the token of seat ``who``; ``extra`` goes into the body."""
        headers = auth(self.tokens[who])
        if "idempotency_key" in extra:
            headers["Idempotency-Key"] = extra.pop("idempotency_key")
        return self.client.post(
            f"/v1/games/{self.game_id}/actions", json={"action": action, **extra}, headers=headers
        )

    def play_random(self, rng: random.Random, max_actions: int = 100_000) -> dict[str, Any]:
        """Play uniformly random legal actions, each with expected_version, until the match is over."""
        for _ in range(max_actions):
            game = self.game()
            if game["status"] == "finished":
                return game
            seat = game["to_act"]
            action = fill(rng.choice(self.legal(seat)), rng)
            response = self.act(seat, action, expected_version=game["version"])
            assert response.status_code == 200, response.text
            assert response.json()["version"] == game["version"] + 1
        raise AssertionError("the match did not end")


def admin_headers(client: TestClient) -> dict[str, str]:
    """The administrator's bearer header of the app under test (its settings hold the token)."""
    return auth(client.app.state.settings.admin_token)  # type: ignore[attr-defined]


def create(client: TestClient, game: str, **body: Any) -> dict[str, Any]:
    """Create a game; one with a chosen seed or deal is created as the administrator, the only one
    who may choose them (docs/fairness.md)."""
    headers = body.pop("headers", None) or {}
    if not headers and ("seed" in body or "deal" in body):
        headers = admin_headers(client)
    response = client.post("/v1/games", json={"kind": game, **body}, headers=headers)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def seated(client: TestClient, game: str, **body: Any) -> Table:
    """A started game with every seat joined by a human holding a token."""
    created = create(client, game, **body)
    table = Table(client, created["game"]["game_id"])
    for seat in range(created["game"]["players"]):
        response = client.post(f"/v1/games/{table.game_id}/join", json={"seat": seat, "name": f"p{seat}"})
        assert response.status_code == 201, response.text
        table.tokens[seat] = response.json()["token"]
    return table


@contextlib.contextmanager
def served_app(app: Any) -> Iterator[str]:
    """``app`` under uvicorn on a free loopback port in a thread (streams and outages need a real HTTP
    server): yields its base URL; the server is stopped on the way out."""
    import threading
    import time

    import uvicorn

    from service.runtime.embedded_redis import free_port
    from service.runtime.http_server import server_options

    port = free_port()
    options = server_options(app.state.settings) if hasattr(app, "state") else {}  # as `atout serve`
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def wait_for_human(table: Table, human_seats: set[int], deadline_seconds: float = 120.0) -> dict[str, Any]:
    """Poll the game until a human seat is to act or the match is over (bots play in a real worker)."""
    import time

    deadline = time.monotonic() + deadline_seconds
    while True:
        game = table.game()
        if game["status"] == "finished" or game["to_act"] in human_seats:
            return game
        if time.monotonic() > deadline:
            raise AssertionError(f"the bots did not move: {game}")
        time.sleep(0.005)


def atout_verify(path: Path) -> subprocess.CompletedProcess[str]:
    """``atout verify`` on the log saved at ``path``, as a person runs it."""
    return subprocess.run(
        [sys.executable, "-m", "service.runtime.cli", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
