"""Play now at scale (issue 35): 10,000 tickets arriving at a steady rate, through the real matcher
(``Matchmaking.run_pass``) on the real store, a redis-server of its own.

A real redis-server (``EmbeddedRedis``, free port, no AOF) and the games layer built as the tests build
it (``build_games``, no job queue: a bot seat gets no job, which the matcher does not wait for). Tickets
are spread over six pools, Le Rough, Five Hundred and Euchre-5 each casual and rated (weights in
``POOLS``); some casual Le Rough tickets ask a shorter match (``target_score`` 200: they may sit with
tickets asking no options, never with other options), and one ticket in ten is a party of two friends.
Every ticket has a display rating drawn from a normal law (mean 0, sd 15), which in rated pools picks
the nearest opponents and in casual ones the bots' level.

The tickets are written straight through the store, ``MatchmakingStore.queue``, with the very dict
``Matchmaking.create_ticket`` builds (creating 10,000 players and their tickets through the API would
measure the API). Their members are real players (``player:<id>``) with a player hash each, written
through ``PlayerStore.create_player`` as a guest's: opening a table indexes the game in its players'
lists (``Players.index_player_game``), which fails for a player with no record (``too_many_games``,
raised out of the pass), so made-up ids without records cannot be used. A bot-account owner (no
``player:`` prefix, ``add_bot_game``) would take a lighter path than people, whom Play now is for.

The clock is simulated: ticket ``i`` arrives at ``t0 + i / rate``, and the bench queues the tickets of
each simulated second, then runs one pass with ``now`` at its end (``atout matchmaker`` passes once a
second), so nothing sleeps: the wall time of the passes is the matcher's cost, the time to match is in
simulated seconds (a pass's granularity included). After the last arrival the passes go on for
``--bot-fill`` seconds and two more (the tail), so every casual ticket left is seated with bots; a rated
ticket is never bot-filled (``ATOUT_MATCHMAKING_RATED_BOT_FILL`` off), so a few may be left waiting.
Then a backlog: the same owners queue again within one second (other kinds, ratings and parties) and
one pass seats them, the matcher's capacity when many wait (the pure matching timed apart).

Printed: tickets and tables matched per second of matcher wall time (passes summed) and the pass
durations (while tickets arrive: p50, p99, max, and the p50 of the first and last tenth, to see a pass
slow down as Redis fills); the time to match p50/p99 overall and per pool; the bot-fill rate (share of
tables with a bot: overall, while tickets arrive, and per casual pool) and the share of chairs bots
took; the rating spread (highest minus lowest ticket) of rated tables; Redis bytes: per waiting ticket
(``used_memory`` growth while every ticket of the run waits at once, measured before the run and then
removed; and ``MEMORY USAGE`` of a ticket's keys, sampled), per matched ticket left behind (its record,
kept a day, and a rated account's recent opponents, sampled), and the growth of ``used_memory`` over
the run divided by the tickets (the games opened included); the backlog's pass. Every ticket is read
back after the run: each is matched once or still waiting, no table seats an account twice, the games
exist, and the tables and bot-filled tables counted from them agree with the passes' reports. On a
shared machine the wall times vary from run to run.

    python bench/matchmaking.py [--quick] [--tickets N] [--rate R] [--bot-fill S] [--seed N]

``--quick`` (under a minute here): 2,000 tickets; the full run 10,000. The last line is
``bench matchmaking: key=value ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.servers import percentile
from service.base.settings import Settings
from service.games import build_games, matching
from service.games.matchmaking import Matchmaking, _pure  # the pass's own ticket conversion
from service.runtime.embedded_redis import EmbeddedRedis
from service.store import Store
from service.store.keys import game_key, hash_token
from service.store.matchmaking import WAITING, held_key, met_key, ticket_key

POOLS: tuple[tuple[str, bool, float], ...] = (
    ("rough", False, 0.25),
    ("rough", True, 0.20),
    ("five_hundred", False, 0.15),
    ("five_hundred", True, 0.10),
    ("euchre5", False, 0.15),
    ("euchre5", True, 0.15),
)
SHORT_ROUGH = 0.15  # of casual Le Rough tickets: ask target_score 200 (reported apart)
PARTIES = 0.10  # of tickets: a party of two friends
RATING_SD = 15.0
BATCH = 500  # concurrent writes while populating
TICKET_TTL = 600 + 86400  # Matchmaking.create_ticket's: ticket_seconds + a day


def group_name(ticket: dict[str, Any]) -> str:
    """The pool as the matcher's report names it (``rough/casual``), the short-match tickets apart."""
    name = f"{ticket['kind']}/{'rated' if ticket['rated'] else 'casual'}"
    return name + "/target200" if ticket["options"] else name


def make_tickets(n: int, rate: float, t0: float, seed: int, prefix: str = "t") -> list[dict[str, Any]]:
    """``n`` waiting tickets in ``Matchmaking.create_ticket``'s shape, ticket ``i`` (id ``<prefix><i>``)
    created at ``t0 + i / rate``; members are players ``player:b<i>`` (a party's friend
    ``player:f<i>``)."""
    rng = random.Random(seed)
    short = dict(sorted(engine.new_match("rough", seed=0, options={"target_score": 200}).options.items()))
    kinds, weights = [(k, r) for k, r, _ in POOLS], [w for *_, w in POOLS]
    tickets = []
    for i in range(n):
        kind, rated = rng.choices(kinds, weights)[0]
        owner = f"player:b{i:07d}"
        members = [owner, f"player:f{i:07d}"] if rng.random() < PARTIES else [owner]
        options = short if kind == "rough" and not rated and rng.random() < SHORT_ROUGH else None
        tickets.append(
            {
                "ticket_id": f"{prefix}{i:07d}",
                "kind": kind,
                "rated": rated,
                "options": options,
                "party_id": f"p{i:07d}" if len(members) > 1 else None,
                "members": members,
                "names": {owner: f"b{i}"},
                "status": "waiting",
                "created_at": t0 + i / rate,
                "bots_for_the_rest": False,
                "bot_account": False,
                "rating": rng.gauss(0.0, RATING_SD),
            }
        )
    return tickets


async def in_batches(jobs: list[Any]) -> list[Any]:
    results: list[Any] = []
    for start in range(0, len(jobs), BATCH):
        results += await asyncio.gather(*jobs[start : start + BATCH])
    return results


async def used_memory(store: Store) -> int:
    return int((await store.r.info("memory"))["used_memory"])


async def queue_all(store: Store, tickets: list[dict[str, Any]], cap: int) -> None:
    done = await asyncio.gather(*(store.matchmaking.queue(t, TICKET_TTL, cap) for t in tickets))
    refused = [held for ok, held in done if ok != 1]
    if refused:
        raise RuntimeError(f"{len(refused)} tickets refused by the store, e.g. {refused[:3]}")


async def waiting_bytes(store: Store, tickets: list[dict[str, Any]], cap: int) -> dict[str, str]:
    """Bytes per waiting ticket: every ticket queued at once (``used_memory`` growth, and ``MEMORY
    USAGE`` of the keys sampled), then removed again, so the run starts from an empty queue."""
    before = await used_memory(store)
    for start in range(0, len(tickets), BATCH):
        await queue_all(store, tickets[start : start + BATCH], cap)
    grown = await used_memory(store) - before
    sample = random.Random(3).sample(tickets, min(300, len(tickets)))
    keys = 0
    for t in sample:
        for key in (ticket_key(t["ticket_id"]), held_key(t["members"][0], t["kind"])):
            keys += int(await store.r.memory_usage(key, samples=0) or 0)
    index = int(await store.r.memory_usage(WAITING, samples=0) or 0)
    for start in range(0, len(tickets), BATCH):
        chunk = tickets[start : start + BATCH]
        async with store.r.pipeline(transaction=False) as pipe:
            for t in chunk:
                pipe.delete(ticket_key(t["ticket_id"]), held_key(t["members"][0], t["kind"]))
            pipe.zrem(WAITING, *(t["ticket_id"] for t in chunk))
            await pipe.execute()
    assert await store.matchmaking.waiting_count() == 0
    return {
        "waiting_bytes_per_ticket": f"{grown / len(tickets):.0f}",
        "waiting_key_bytes": f"{keys / len(sample) + index / len(tickets):.0f}",
    }


async def create_players(store: Store, tickets: list[dict[str, Any]], idle_ttl: int) -> None:
    """A player hash per member, as a guest's (``Players.create_guest``)."""
    members = [m for t in tickets for m in t["members"]]
    jobs = [
        store.players.create_player(
            m.removeprefix("player:"), {"name": m[7:], "locale": "en", "token_hash": hash_token(m)}, idle_ttl
        )
        for m in members
    ]
    await in_batches(jobs)


async def simulate(
    matchmaking: Matchmaking, store: Store, tickets: list[dict[str, Any]], t0: float, drain: float, cap: int
) -> dict[str, Any]:
    """One pass per simulated second, the tickets of that second queued first."""
    by_id = {t["ticket_id"]: t for t in tickets}
    waits: dict[str, list[float]] = defaultdict(list)
    passes: list[float] = []  # while tickets arrive
    tail_passes: list[float] = []  # after the last one
    queueing = 0.0
    totals: Counter[str] = Counter()
    max_waiting = 0
    end = tickets[-1]["created_at"] + drain
    arrived = 0
    second = 0
    while True:
        second += 1
        now = t0 + second
        fresh = []
        while arrived < len(tickets) and tickets[arrived]["created_at"] <= now:
            fresh.append(tickets[arrived])
            arrived += 1
        start = time.perf_counter()
        await queue_all(store, fresh, cap)
        queueing += time.perf_counter() - start
        max_waiting = max(max_waiting, await store.matchmaking.waiting_count())
        tail = arrived == len(tickets) and not fresh  # every ticket arrived before this pass
        start = time.perf_counter()
        report = await matchmaking.run_pass(now)
        (tail_passes if tail else passes).append(time.perf_counter() - start)
        if tail:
            totals.update(tail_tables=report.tables, tail_bot_filled=report.bot_filled)
        totals.update(
            tables=report.tables,
            bot_filled=report.bot_filled,
            expired=report.expired,
            lost_races=report.lost_races,
            recovered=report.recovered,
        )
        for tid in report.seated:
            waits[group_name(by_id[tid])].append(now - by_id[tid]["created_at"])
        if now >= end:
            break
    return {
        "waits": waits,
        "passes": passes,
        "tail_passes": tail_passes,
        "queueing": queueing,
        "totals": totals,
        "max_waiting": max_waiting,
        "simulated": float(second),
    }


async def read_back(store: Store, tickets: list[dict[str, Any]]) -> dict[str, Any]:
    """Every ticket's final record: grouped by game, checked, and the figures the tables give."""
    records: list[dict[str, Any]] = []
    for start in range(0, len(tickets), 1000):
        chunk = tickets[start : start + 1000]
        read = await asyncio.gather(*(store.matchmaking.ticket(t["ticket_id"]) for t in chunk))
        records += [r or {} for r in read]
    statuses = Counter(r.get("status", "gone") for r in records)
    bad = set(statuses) - {"matched", "waiting"}
    if bad:
        raise RuntimeError(f"tickets neither matched nor waiting: {dict(statuses)}")
    games: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        if record["status"] == "matched":
            games[record["game_id"]].append(record)
    tables: Counter[str] = Counter()
    filled: Counter[str] = Counter()
    chairs = bot_chairs = 0
    spreads: list[float] = []
    for gid, group in games.items():
        accounts = [m for r in group for m in r["members"]]
        if len(set(accounts)) != len(accounts):
            raise RuntimeError(f"game {gid} seats an account twice: {accounts}")
        pool = f"{group[0]['kind']}/{'rated' if group[0]['rated'] else 'casual'}"
        seats = engine.game(group[0]["kind"]).players
        tables[pool] += 1
        chairs += seats
        bots = seats - len(accounts)
        bot_chairs += bots
        filled[pool] += bots > 0
        if group[0]["rated"]:
            spreads.append(max(r["rating"] for r in group) - min(r["rating"] for r in group))
    sample = random.Random(5).sample(sorted(games), min(200, len(games)))
    missing = [g for g in sample if not await store.r.exists(game_key(g))]
    if missing:
        raise RuntimeError(f"matched tickets name games that do not exist: {missing[:3]}")
    matched = [r for r in records if r["status"] == "matched"]
    residue = random.Random(7).sample(matched, min(300, len(matched)))
    kept = 0
    for r in residue:
        kept += int(await store.r.memory_usage(ticket_key(r["ticket_id"]), samples=0) or 0)
        if r["rated"]:
            for member in r["members"]:
                kept += int(await store.r.memory_usage(met_key(member), samples=0) or 0)
    return {
        "statuses": statuses,
        "tables": tables,
        "filled": filled,
        "chairs": chairs,
        "bot_chairs": bot_chairs,
        "spreads": spreads,
        "matched_ticket_bytes": kept / len(residue) if residue else float("nan"),
    }


async def burst(
    matchmaking: Matchmaking,
    store: Store,
    tickets: list[dict[str, Any]],
    t0: float,
    seed: int,
    cap: int,
    idle_ttl: int,
) -> dict[str, str]:
    """The same owners queue again all within one second (those still waiting do not), then one pass:
    the matcher's capacity when a backlog waits, and how long one pass then takes. Drawn again, the
    tickets have other kinds, ratings and parties (a friend who is new gets a player record)."""
    waiting = {t["ticket_id"][1:] for t in await store.matchmaking.waiting(cap)}
    again = [
        t
        for t in make_tickets(len(tickets), len(tickets), t0, seed, "u")
        if t["ticket_id"][1:] not in waiting
    ]
    await create_players(store, [t for t in again if len(t["members"]) > 1], idle_ttl)
    for first in range(0, len(again), BATCH):
        await queue_all(store, again[first : first + BATCH], cap)
    now = t0 + 1
    queued = await store.matchmaking.waiting(cap)
    met = await store.matchmaking.recent_opponents(sorted({m for t in queued for m in t["members"]}))
    start = time.perf_counter()
    planned = matching.match([_pure(t, met) for t in queued], now, matchmaking.rules())
    pure = time.perf_counter() - start
    start = time.perf_counter()
    report = await matchmaking.run_pass(now)
    took = time.perf_counter() - start
    if report.tables != len(planned) or report.lost_races or report.bot_filled:
        raise RuntimeError(f"burst pass: {len(planned)} tables planned, {report}")
    return {
        "burst_tickets": str(len(queued)),
        "burst_tables": str(report.tables),
        "burst_match_s": f"{pure:.3f}",
        "burst_pass_s": f"{took:.2f}",
        "burst_matched_per_s": f"{len(report.seated) / took:.0f}",
    }


async def bench(url: str, n: int, rate: float, bot_fill: float, seed: int) -> dict[str, str]:
    settings = Settings(
        redis_url=url, admin_token="x", matchmaking_bot_fill_seconds=bot_fill, matchmaking_max_waiting=20_000
    )
    store = Store.from_settings(settings)
    figures: dict[str, str] = {"tickets": str(n), "rate": f"{rate:g}", "bot_fill_s": f"{bot_fill:g}"}
    try:
        games = build_games(store, settings)
        t0 = float(int(time.time()))
        tickets = make_tickets(n, rate, t0, seed)
        cap = settings.matchmaking_max_waiting
        started = time.perf_counter()
        await create_players(store, tickets, settings.player_idle_ttl)
        figures["players_s"] = f"{time.perf_counter() - started:.1f}"
        figures.update(await waiting_bytes(store, tickets, cap))
        before = await used_memory(store)
        run = await simulate(games.matchmaking, store, tickets, t0, bot_fill + 2, cap)
        grown = await used_memory(store) - before
        back = await read_back(store, tickets)
        burst_t0 = t0 + run["simulated"] + 1
        idle = settings.player_idle_ttl
        backlog = await burst(games.matchmaking, store, tickets, burst_t0, seed + 1, cap, idle)
    finally:
        await store.close()

    totals, passes, waits = run["totals"], run["passes"], run["waits"]
    matched = sum(len(w) for w in waits.values())
    if matched != back["statuses"]["matched"] or totals["tables"] != sum(back["tables"].values()):
        raise RuntimeError(f"reports and records disagree: {matched} {dict(totals)} {back['statuses']}")
    if totals["bot_filled"] != sum(back["filled"].values()):
        raise RuntimeError(f"bot-filled tables: {totals['bot_filled']} reported, {back['filled']} found")
    busy = sum(passes) + sum(run["tail_passes"])
    tenth = max(1, len(passes) // 10)
    figures["matched"] = str(matched)
    figures["left_waiting"] = str(back["statuses"]["waiting"])
    figures["tables"] = str(totals["tables"])
    figures["matched_per_s"] = f"{matched / busy:.0f}"
    figures["tables_per_s"] = f"{totals['tables'] / busy:.0f}"
    figures["passes"] = str(len(passes) + len(run["tail_passes"]))
    figures["pass_p50_ms"] = f"{percentile(passes, 50) * 1000:.1f}"  # the passes while tickets arrive
    figures["pass_p99_ms"] = f"{percentile(passes, 99) * 1000:.1f}"
    figures["pass_max_ms"] = f"{max(passes) * 1000:.1f}"
    figures["pass_first_tenth_p50_ms"] = f"{percentile(passes[:tenth], 50) * 1000:.1f}"
    figures["pass_last_tenth_p50_ms"] = f"{percentile(passes[-tenth:], 50) * 1000:.1f}"
    figures["matcher_busy"] = f"{busy / run['simulated']:.3f}"  # of one core, one pass a second
    figures["queue_us_per_ticket"] = f"{run['queueing'] / n * 1e6:.0f}"
    figures["max_waiting"] = str(run["max_waiting"])
    everyone = [w for ws in waits.values() for w in ws]
    figures["wait_p50_s"] = f"{percentile(everyone, 50):.1f}"
    figures["wait_p99_s"] = f"{percentile(everyone, 99):.1f}"
    for pool in sorted(waits):
        key = pool.replace("/", "_")
        figures[f"{key}_p50_s"] = f"{percentile(waits[pool], 50):.1f}"
        figures[f"{key}_p99_s"] = f"{percentile(waits[pool], 99):.1f}"
    figures["bot_fill_rate"] = f"{totals['bot_filled'] / max(1, totals['tables']):.3f}"
    steady = totals["tables"] - totals["tail_tables"]
    figures["bot_fill_steady"] = f"{(totals['bot_filled'] - totals['tail_bot_filled']) / max(1, steady):.3f}"
    figures["tail_tables"] = str(totals["tail_tables"])
    figures["tail_bot_filled"] = str(totals["tail_bot_filled"])
    for pool in sorted(back["tables"]):
        if pool.endswith("/casual"):
            rate_of = back["filled"][pool] / back["tables"][pool]
            figures[f"{pool.replace('/', '_')}_bot_fill"] = f"{rate_of:.3f}"
    figures["bot_chairs"] = f"{back['bot_chairs'] / max(1, back['chairs']):.3f}"
    spreads = back["spreads"]
    figures["rated_spread_p50"] = f"{percentile(spreads, 50):.1f}"
    figures["rated_spread_p99"] = f"{percentile(spreads, 99):.1f}"
    figures["rated_spread_mean"] = f"{statistics.fmean(spreads) if spreads else float('nan'):.1f}"
    figures["matched_ticket_bytes"] = f"{back['matched_ticket_bytes']:.0f}"
    figures["run_bytes_per_ticket"] = f"{grown / n:.0f}"
    for name in ("expired", "lost_races", "recovered"):
        figures[name] = str(totals[name])
    figures.update(backlog)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="2,000 tickets (under a minute)")
    parser.add_argument("--tickets", type=int, help="tickets in all (default 10000, quick 2000)")
    parser.add_argument("--rate", type=float, default=20.0, help="tickets arriving a simulated second")
    parser.add_argument(
        "--bot-fill", type=float, default=30.0, help="ATOUT_MATCHMAKING_BOT_FILL_SECONDS (default 30)"
    )
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    n = args.tickets or (2000 if args.quick else 10_000)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="atout-bench-matchmaking-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False, maxmemory="2gb").start()
        try:
            figures = asyncio.run(bench(server.url, n, args.rate, args.bot_fill, args.seed))
        finally:
            server.stop()
    figures["seconds"] = f"{time.perf_counter() - started:.1f}"
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"  {key:<{width}}  {value}")
    print("bench matchmaking: " + " ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
