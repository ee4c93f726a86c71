"""Ladders at scale: a Le Rough ladder of ``--players`` rated players (100,000 by default), read through
the HTTP API, and what a rated player costs Redis.

A real redis-server (``EmbeddedRedis``, free port, no AOF) and ``atout serve`` on it (rate limits off).
The ratings are written straight through the store layer (``RatingStore.write_ratings``, pipelined in
batches, from two processes: the same writes a rated match's end makes, one history entry each), since
this is a bench of reads. Then, from ``--clients`` concurrent clients, ``--reads`` requests of each kind:

- a page: ``GET /v1/ladders/rough?limit=50``, half from the top, half resuming at a random depth with the
  cursor a client would hold there;
- a rank: ``GET /v1/ladders/rough/accounts/player:<id>?around=5`` for a random player (its rank and ten
  neighbours).

Latency p50 and p99 of each, and Redis bytes per player: the growth of ``used_memory`` over the whole
population divided by the players, and ``MEMORY USAGE`` of one player's rating hash and history (sampled)
plus the ladder's sorted set divided by the players.

    python bench/ladder.py [--quick] [--players N] [--reads N] [--clients N]

``--quick`` (under a minute here): 100,000 players still, 1,000 reads of each kind. The last line is
``bench ladder: key=value ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import redis

from bench.servers import call, gather_bounded, percentile, served_api
from service.base.settings import Settings
from service.games.ratings import encode_ladder_cursor
from service.store import Store
from service.store.ratings import LadderEntry, RatingWrite, ladder_key, rating_history_key, rating_key

GAME = "rough"
BATCH = 2000
WRITERS = 2  # processes writing the population


def population(players: int) -> list[tuple[str, float, float, int]]:
    """(account, mu, sigma, matches) of ``players`` rated players, seeded."""
    rng = random.Random(5)
    rows = []
    for i in range(players):
        matches = rng.randint(1, 300)
        sigma = max(0.8, 25 / 3 / (1 + matches / 20))
        rows.append((f"player:p{i:06d}", rng.gauss(25, 4), sigma, matches))
    return rows


async def populate(url: str, rows: list[tuple[str, float, float, int]]) -> None:
    store = Store.from_settings(Settings(redis_url=url))
    try:
        for start in range(0, len(rows), BATCH):
            writes = []
            for account, mu, sigma, matches in rows[start : start + BATCH]:
                ordinal = mu - 3 * sigma
                fields = {
                    "mu": repr(mu),
                    "sigma": repr(sigma),
                    "ordinal": repr(ordinal),
                    "matches": str(matches),
                }
                change = {
                    "game_id": "benchgame0001",
                    "at": time.time(),
                    "mu": mu,
                    "sigma": sigma,
                    "ordinal": ordinal,
                    "delta": 0.5,
                    "rank": 1,
                    "left": False,
                    "weight": 1.0,
                }
                writes.append(RatingWrite(account, GAME, fields, change, "people", ordinal, 365 * 86_400))
            await store.ratings.write_ratings(writes, 200)
    finally:
        await store.close()


def write_part(url: str, rows: list[tuple[str, float, float, int]]) -> None:
    asyncio.run(populate(url, rows))


async def read(
    base: str, rows: list[tuple[str, float, float, int]], reads: int, clients: int
) -> tuple[list[float], list[float], float]:
    """Latencies (ms) of ``reads`` page reads and ``reads`` rank reads, and the wall time of all."""
    rng = random.Random(11)
    ranked = sorted(rows, key=lambda row: (row[1] - 3 * row[2], row[0]), reverse=True)
    pages: list[float] = []
    ranks: list[float] = []

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:

        async def page(deep: bool) -> None:
            path = f"/v1/ladders/{GAME}?limit=50"
            if deep:
                account, mu, sigma, _ = ranked[rng.randrange(len(ranked) - 50)]
                path += "&cursor=" + encode_ladder_cursor(LadderEntry(account, mu - 3 * sigma, 0))
            start = time.perf_counter()
            body = await call(http, base, "GET", path)
            pages.append((time.perf_counter() - start) * 1000)
            assert len(body["entries"]) == 50, body

        async def rank() -> None:
            account = rng.choice(rows)[0]
            start = time.perf_counter()
            body = await call(http, base, "GET", f"/v1/ladders/{GAME}/accounts/{account}?around=5")
            ranks.append((time.perf_counter() - start) * 1000)
            assert body["account_id"] == account, body

        jobs = [page(i % 2 == 1) for i in range(reads)] + [rank() for _ in range(reads)]
        random.Random(3).shuffle(jobs)
        started = time.perf_counter()
        await gather_bounded(jobs, clients)
        return pages, ranks, time.perf_counter() - started


def player_bytes(r: redis.Redis, rows: list[tuple[str, float, float, int]], sample: int) -> float:
    """A player's rating hash and history (sampled), plus its share of the ladder's sorted set."""
    chosen = random.Random(3).sample(rows, min(sample, len(rows)))
    own = sum(
        int(r.memory_usage(rating_key(a, GAME), samples=0) or 0)
        + int(r.memory_usage(rating_history_key(a, GAME), samples=0) or 0)
        for a, *_ in chosen
    )
    board = int(r.memory_usage(ladder_key(GAME, "people"), samples=0) or 0)
    return own / len(chosen) + board / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1,000 reads of each kind (under a minute)")
    parser.add_argument("--players", type=int, default=100_000, help="rated players on the ladder")
    parser.add_argument("--reads", type=int, help="reads of each kind (default 5000, quick 1000)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    args = parser.parse_args()
    reads = args.reads or (1000 if args.quick else 5000)
    figures: dict[str, str] = {"players": str(args.players), "reads": str(reads)}
    started = time.perf_counter()
    rows = population(args.players)
    with served_api("ladder") as (base, r, redis_url):
        before = int(r.info("memory")["used_memory"])
        filled = time.perf_counter()
        with ProcessPoolExecutor(WRITERS) as pool:  # the Python side of the writes is the bound
            list(pool.map(write_part, [redis_url] * WRITERS, [rows[i::WRITERS] for i in range(WRITERS)]))
        figures["populate_s"] = f"{time.perf_counter() - filled:.1f}"
        grown = int(r.info("memory")["used_memory"]) - before
        pages, ranks, wall = asyncio.run(read(base, rows, reads, args.clients))
        figures["page_p50_ms"] = f"{percentile(pages, 50):.2f}"
        figures["page_p99_ms"] = f"{percentile(pages, 99):.2f}"
        figures["rank_p50_ms"] = f"{percentile(ranks, 50):.2f}"
        figures["rank_p99_ms"] = f"{percentile(ranks, 99):.2f}"
        figures["reads_per_s"] = f"{2 * reads / wall:.0f}"
        figures["player_bytes"] = f"{player_bytes(r, rows, 500):.0f}"
        figures["redis_bytes_per_player"] = f"{grown / args.players:.0f}"
    figures["seconds"] = f"{time.perf_counter() - started:.1f}"
    print("bench ladder: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
