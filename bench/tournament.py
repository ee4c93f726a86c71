"""A Swiss tournament of 40 bot accounts on a live service, played to the end: duration, games a second.

It starts a redis-server, ``atout serve`` and one ``atout worker`` on loopback (rate limits off, the
tournament checks every 0.5 s), registers 40 bot accounts and creates the tournament with the
administrator token: Le Rough to 200, one duplicate deal a pairing, the fastest budget (one second a
move). The bench then runs every account as its author would: one follow stream each
(``GET /v1/bots/me/stream``), the seat tokens from each ``tournament_game`` notice, a move on each
``your_turn`` (entrant ``i`` plays ``random``, ``heuristic`` or ``expert`` in turn, the expert with
5 ms a move). It ends when the tournament does (or at a deadline), and stops every process it started
by its process group.

    python bench/tournament.py [--quick] [--entrants N] [--rounds R]

``--quick`` plays one round between 20 entrants (20 games, under a minute), the full run five rounds
between 40 (200 games). Measured on the 2-core development machine with the plain-Python engine: one
round of 40 entrants in 65 to 71 s (about 60 moves a second in all), and most games flagged, because
under that load a move often waits longer than the one-second clock. The last line
is ``bench tournament: key=value ...`` with every figure: games, moves, seconds, games and moves a
second, flagged games (a move the server had to play), the final status and the leader.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.servers import start_server, stop_server  # noqa: E402
from service.runtime.embedded_redis import EmbeddedRedis, free_port  # noqa: E402
from workers import bots  # noqa: E402

LEVELS = ("random", "heuristic", "expert")
JSON = dict[str, Any]


class Account:
    """One bot account, played by the bench through its stream."""

    def __init__(self, index: int, bot_id: str, key: str) -> None:
        self.level = LEVELS[index % len(LEVELS)]
        self.bot_id, self.key = bot_id, key
        self.tokens: dict[tuple[str, int], str] = {}
        self.rng = random.Random(index)
        self.moves = 0
        self.conflicts = 0
        self.lost = 0

    async def play(self, http: httpx.AsyncClient) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        after = ""
        while True:  # reconnect after a stream that ended (a lagged or closing frame), where it stopped
            async with http.stream(
                "GET", "/v1/bots/me/stream", headers={**headers, "Last-Event-ID": after}, timeout=None
            ) as stream:
                async for line in stream.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    notice = json.loads(line[6:])
                    after = notice.get("id", after)
                    await self.on(http, notice)

    async def on(self, http: httpx.AsyncClient, notice: JSON) -> None:
        if notice["type"] == "tournament_game":
            for seat, token in zip(notice["seats"], notice["tokens"], strict=True):
                self.tokens[(notice["game_id"], seat)] = token
        elif notice["type"] == "your_turn":
            token = self.tokens.get((notice["game_id"], notice["seat"]))
            if token is None:
                return
            action = bots.choose(
                self.level, notice["view"], notice["legal_actions"], self.rng, budget_s=0.005
            )
            r = await http.post(
                f"/v1/games/{notice['game_id']}/actions",
                json={"action": action, "expected_version": notice["version"]},
                headers={"Authorization": f"Bearer {token}"},
            )
            if r.status_code == 200:
                self.moves += 1
            elif r.status_code == 409:
                self.conflicts += 1  # the clock played it first
            elif r.status_code == 401 and r.json().get("code") == "invalid_token":
                self.lost += 1  # three moves late in a row: a heuristic bot plays the seat out
            else:
                raise RuntimeError(f"move refused: {r.status_code} {r.text[:300]}")


async def run(base: str, admin: str, entrants: int, rounds: int, deadline_s: float) -> JSON:
    limits = httpx.Limits(max_connections=entrants * 2 + 10, max_keepalive_connections=entrants * 2 + 10)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        accounts = []
        for i in range(entrants):
            r = await http.post("/v1/bots", json={"name": f"bench-{i}-{LEVELS[i % 3]}"})
            r.raise_for_status()
            accounts.append(Account(i, r.json()["bot_id"], r.json()["api_key"]))
        players = [asyncio.create_task(a.play(http)) for a in accounts]
        await asyncio.sleep(0.5)  # every stream open before the first notice
        body = {
            "kind": "rough",
            "format": "swiss",
            "rounds": rounds,
            "deals": 1,
            "move_seconds": 1,
            "target_score": 200,
            "entrants": [f"account:{a.bot_id}" for a in accounts],
            "name": "bench",
        }
        started = time.perf_counter()
        created = await http.post("/v1/tournaments", json=body, headers={"Authorization": f"Bearer {admin}"})
        created.raise_for_status()
        tid = created.json()["tournament_id"]
        tour: JSON = created.json()
        try:
            while time.perf_counter() - started < deadline_s:
                for task in players:
                    if task.done() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                tour = (await http.get(f"/v1/tournaments/{tid}")).json()
                if tour["status"] != "running":
                    break
                await asyncio.sleep(0.25)
        finally:
            seconds = time.perf_counter() - started
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
    finished = [g for g in tour["games"] if g["status"] == "finished"]
    leader = tour["standings"][0] if tour["standings"] else None
    return {
        "entrants": entrants,
        "rounds": rounds,
        "status": tour["status"],
        "games": len(finished),
        "moves": sum(a.moves for a in accounts),
        "seconds": round(seconds, 2),
        "games_per_s": round(len(finished) / seconds, 3),
        "moves_per_s": round(sum(a.moves for a in accounts) / seconds, 1),
        "flagged_games": sum(1 for g in finished if g["flagged"]),
        "conflicts": sum(a.conflicts for a in accounts),
        "seats_lost": sum(a.lost for a in accounts),
        "leader": tour["entrants"][leader["entrant"]]["name"] if leader else "none",
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="one round of 20 entrants (under a minute)")
    p.add_argument("--entrants", type=int, default=None, help="bot accounts (quick 20, full 40)")
    p.add_argument("--rounds", type=int, default=None, help="Swiss rounds (quick 1, full 5)")
    args = p.parse_args()
    rounds = args.rounds or (1 if args.quick else 5)
    entrants = args.entrants or (20 if args.quick else 40)
    admin = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory() as tmp:
        redis = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {
            **os.environ,
            "REDIS_URL": redis.url,
            "ATOUT_ADMIN_TOKEN": admin,
            "ATOUT_RATE_LIMITS": "false",
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_TOURNAMENT_POLL_SECONDS": "0.5",
            "PYTHONPATH": str(ROOT),
        }
        port = free_port()
        procs = []
        try:
            cli = [sys.executable, "-m", "service.runtime.cli"]
            procs.append(
                start_server([*cli, "serve", "--port", str(port)], env, f"http://127.0.0.1:{port}/healthz")
            )
            worker = start_server([*cli, "worker"], env, f"http://127.0.0.1:{port}/healthz")
            procs.append(worker)
            figures = asyncio.run(run(f"http://127.0.0.1:{port}", admin, entrants, rounds, 900))
        finally:
            for proc in reversed(procs):
                stop_server(proc)
            redis.stop()
    print("bench tournament: " + " ".join(f"{k}={v}" for k, v in figures.items()))
    if figures["status"] != "finished":
        sys.exit(1)


if __name__ == "__main__":
    main()
