"""Players at scale: ``GET /v1/me/games`` with many players each seated in several games, and what a
player costs Redis.

A real redis-server (``EmbeddedRedis``, free port, no AOF) and ``atout serve`` on it (rate limits off).
``--players`` guests are created through ``POST /v1/players``; then Le Rough games are created and
each seat joined with a player's token, so that every player sits in ``--games`` games (four players a
table: every game starts, deals its first hand, and tells its players ``game_started`` and the first
``your_turn`` on their streams). Then ``--reads`` requests of ``GET /v1/me/games`` (the first page, 50
games at most) by players picked at random, from ``--clients`` concurrent clients: latency p50 and p99
and requests per second. Last, Redis bytes: ``MEMORY USAGE`` (every element counted) of a player's own
keys (the player hash, the games index, the notices stream) averaged over a sample, and the growth of
``used_memory`` over the whole population divided by the players (their games included).

    python bench/players.py [--quick] [--players N] [--games N] [--reads N] [--clients N]

``--quick`` (under a minute here): 1,000 players. The last line is ``bench players: key=value ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import redis

from bench.servers import call, gather_bounded, percentile, served_api
from service.store.keys import player_events_key, player_games_key, player_key

SEATS = 4  # Le Rough


async def populate(base: str, players: int, games_each: int, clients: int) -> list[dict[str, Any]]:
    """``players`` guests, each seated in ``games_each`` started Le Rough games."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        guests = await gather_bounded(
            [call(http, base, "POST", "/v1/players", body={"name": f"p{i}"}) for i in range(players)], clients
        )
        seats = [g for g in guests for _ in range(games_each)]
        random.Random(7).shuffle(seats)
        tables: list[list[dict[str, Any]]] = []
        for i in range(0, len(seats) - SEATS + 1, SEATS):  # no player twice at one table
            table = seats[i : i + SEATS]
            while len({g["player_id"] for g in table}) < SEATS:
                random.Random(i).shuffle(seats)
                table = seats[i : i + SEATS]
            tables.append(table)

        async def seat_table(table: list[dict[str, Any]]) -> None:
            created = await call(http, base, "POST", "/v1/games", body={"kind": "rough"})
            gid = created["game"]["game_id"]
            for seat, guest in enumerate(table):
                await call(http, base, "POST", f"/v1/games/{gid}/join", guest["token"], {"seat": seat})

        await gather_bounded([seat_table(t) for t in tables], clients)
        return guests


async def read_my_games(
    base: str, guests: list[dict[str, Any]], reads: int, clients: int
) -> tuple[list[float], float, int]:
    """Latencies (ms) of ``reads`` first pages of /v1/me/games, the wall time, and the games seen."""
    rng = random.Random(11)
    latencies: list[float] = []
    seen = 0

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:

        async def one() -> None:
            nonlocal seen
            token = rng.choice(guests)["token"]
            start = time.perf_counter()
            page = await call(http, base, "GET", "/v1/me/games?limit=50", token)
            latencies.append((time.perf_counter() - start) * 1000)
            seen += len(page["games"])

        started = time.perf_counter()
        await gather_bounded([one() for _ in range(reads)], clients)
        return latencies, time.perf_counter() - started, seen


def player_bytes(r: redis.Redis, guests: list[dict[str, Any]], sample: int) -> float:
    total = 0
    chosen = random.Random(3).sample(guests, min(sample, len(guests)))
    for guest in chosen:
        pid = guest["player_id"]
        for key in (player_key(pid), player_games_key(pid), player_events_key(pid)):
            total += int(r.memory_usage(key, samples=0) or 0)
    return total / len(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1,000 players (under a minute)")
    parser.add_argument("--players", type=int, help="players (default 10000, quick 1000)")
    parser.add_argument("--games", type=int, default=5, help="games each player sits in")
    parser.add_argument("--reads", type=int, help="GET /v1/me/games requests (default 5000, quick 2000)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    args = parser.parse_args()
    players = args.players or (1000 if args.quick else 10_000)
    reads = args.reads or (2000 if args.quick else 5000)
    figures: dict[str, str] = {"players": str(players), "games_per_player": str(args.games)}
    started = time.perf_counter()
    with served_api("players", ATOUT_MAX_OPEN_GAMES_PER_CREATOR=str(players * args.games)) as (base, r, _):
        before = int(r.info("memory")["used_memory"])
        filled = time.perf_counter()
        guests = asyncio.run(populate(base, players, args.games, args.clients))
        figures["populate_s"] = f"{time.perf_counter() - filled:.1f}"
        grown = int(r.info("memory")["used_memory"]) - before
        latencies, wall, seen = asyncio.run(read_my_games(base, guests, reads, args.clients))
        figures["my_games_p50_ms"] = f"{percentile(latencies, 50):.2f}"
        figures["my_games_p99_ms"] = f"{percentile(latencies, 99):.2f}"
        figures["my_games_rps"] = f"{reads / wall:.0f}"
        figures["games_per_page"] = f"{seen / reads:.2f}"
        figures["player_key_bytes"] = f"{player_bytes(r, guests, 200):.0f}"
        figures["redis_bytes_per_player"] = f"{grown / players:.0f}"
    figures["seconds"] = f"{time.perf_counter() - started:.1f}"
    print("bench players: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
