"""What a game costs Redis: bytes per waiting, active and finished game, and commands and bytes per action.

A real redis-server (``EmbeddedRedis``, free port, no AOF), ``atout serve`` on it (REDIS_URL set, so
only the API) and one ``atout worker`` process. Then, in order:

1. ``--matches`` all-bot Le Rough matches (heuristic bots, played by the worker), created at once; the
   Redis commands (``INFO commandstats``) and network bytes (``INFO stats``) from before the first
   create to the last move are divided by the moves played (the moves of every match's log). The
   bench's own few commands while it waits (one ``ZCARD`` a half second) are subtracted from the
   command counts; their bytes (a few KB) are left in.
2. Once every match is over, the keys of each are weighed with ``MEMORY USAGE`` (``SAMPLES 0``: every
   element counted): the game hash (its state), the event stream, the move log and any other key of
   its hash tag; plus every RQ key left behind (``rq:job:*``, ``rq:results:*`` ...) and the change of
   ``used_memory`` per match.
   Then a few all-bot matches one at a time, each stream weighed as its match ends: events per
   match and per move, bytes per event kept (the resume window's cost, ``ATOUT_STREAM_WINDOW``).
3. Matches of four humans over REST (no RQ involved): commands and bytes per move of the API alone.
4. ``--waiting`` games with one player seated of four, and ``--active`` matches of a human against
   three bots stopped at a human turn after ``--moves`` human moves: their keys weighed the same way.

The last line is ``bench memory: key=value ...`` (bytes unless named otherwise). ``--quick`` plays
fewer matches (under a minute here).

    python bench/memory.py [--quick] [--matches N] [--waiting N] [--active N] [--moves N] [--window N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import redis

from bench.servers import start_server, stop_server
from service.runtime.embedded_redis import EmbeddedRedis, free_port
from service.store.keys import events_key, game_key, log_key
from workers.jobs.queue import DUE_KEY

BOTS = ["bot:heuristic"] * 4
LINGER = 3  # seconds a finished match's stream is kept here (ATOUT_FINISHED_STREAM_TTL; 900 by default)


def command_calls(r: redis.Redis) -> Counter[str]:
    """Calls per command since the server started (``INFO commandstats``)."""
    stats: dict[str, Any] = r.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})


def net_bytes(r: redis.Redis) -> tuple[int, int]:
    stats: dict[str, Any] = r.info("stats")
    return int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"])


def used_memory(r: redis.Redis) -> int:
    return int(r.info("memory")["used_memory"])


def key_bytes(r: redis.Redis, key: str) -> int:
    return int(r.memory_usage(key, samples=0) or 0)


def game_keys(r: redis.Redis, gid: str) -> dict[str, int]:
    """Bytes of every key of game ``gid`` (its hash tag), by kind: state, stream, log, other."""
    out = {"state": 0, "stream": 0, "log": 0, "other": 0}
    named = {game_key(gid): "state", events_key(gid): "stream", log_key(gid): "log"}
    for key in r.scan_iter(match=f"*{{{gid}}}*", count=1000):
        name = key.decode() if isinstance(key, bytes) else str(key)
        out[named.get(name, "other")] += key_bytes(r, name)
    return out


def rq_leftovers(r: redis.Redis) -> tuple[int, int, int]:
    """RQ keys left behind: (job or result keys, their bytes, result keys among them)."""
    count = size = results = 0
    for key in r.scan_iter(match="rq:*", count=1000):
        name = key.decode()
        if name.startswith(("rq:job:", "rq:results:", "rq:execution")):
            count += 1
            size += key_bytes(r, name)
            results += name.startswith("rq:results:")
    return count, size, results


def mean(xs: list[int]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def play_human(http: httpx.Client, gid: str, token: str, moves: int, rng: random.Random) -> int:
    """Play seat 0's moves (random legal ones) until ``moves`` are made; stop at a human turn."""
    auth = {"Authorization": f"Bearer {token}"}
    made = 0
    deadline = time.monotonic() + 120
    while made < moves and time.monotonic() < deadline:
        game = http.get(f"/v1/games/{gid}").json()
        if game["status"] != "active":
            break
        if game["to_act"] != 0:
            time.sleep(0.01)
            continue
        legal = http.get(f"/v1/games/{gid}/actions", headers=auth).json()["legal_actions"]
        action = rng.choice(legal)
        if action["type"] == "discard" and "choices" in action:
            action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
        http.post(f"/v1/games/{gid}/actions", json={"action": action}, headers=auth)
        made += 1
    while time.monotonic() < deadline:  # settle at the human's turn: the bots have replied
        game = http.get(f"/v1/games/{gid}").json()
        if game["status"] != "active" or game["to_act"] == 0:
            break
        time.sleep(0.01)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer matches (under a minute)")
    parser.add_argument("--matches", type=int, help="all-bot Le Rough matches (default 30, quick 6)")
    parser.add_argument("--waiting", type=int, help="waiting games (default 50, quick 20)")
    parser.add_argument("--active", type=int, help="active human-vs-bots matches (default 10, quick 4)")
    parser.add_argument("--moves", type=int, default=20, help="human moves made in each active match")
    parser.add_argument(
        "--window", type=int, help="events a match's stream keeps (ATOUT_STREAM_WINDOW; omitted: the default)"
    )
    args = parser.parse_args()
    matches = args.matches if args.matches is not None else (6 if args.quick else 30)
    waiting = args.waiting if args.waiting is not None else (20 if args.quick else 50)
    active = args.active if args.active is not None else (4 if args.quick else 10)
    figures: dict[str, str] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="atout-bench-memory-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "ATOUT_LOG_LEVEL": "warning",
            "ATOUT_RATE_LIMITS": "false",  # limits are per process and synced on a clock, not per action
            "ATOUT_FINISHED_STREAM_TTL": str(LINGER),  # weighed both before and after it expires
            **({"ATOUT_STREAM_WINDOW": str(args.window)} if args.window else {}),
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        }
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        api = worker = None
        r = redis.Redis.from_url(server.url)
        try:
            api = start_server(
                [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)],
                env,
                base + "/healthz",
            )
            worker = start_server(
                [sys.executable, "-m", "service.runtime.cli", "worker"], env, base + "/healthz"
            )
            with httpx.Client(base_url=base, timeout=30) as http:
                figures.update(finished_matches(r, http, matches))
                figures.update(whole_streams(r, http, 2 if args.quick else 5))
                figures.update(human_match(r, http))
                figures.update(waiting_games(r, http, waiting))
                figures.update(active_matches(r, http, active, args.moves))
        finally:
            r.close()
            for proc in (worker, api):
                if proc is not None:
                    stop_server(proc)
            server.stop()
    figures["seconds"] = f"{time.perf_counter() - started:.1f}"
    print("bench memory: " + " ".join(f"{k}={v}" for k, v in figures.items()))


def finished_matches(r: redis.Redis, http: httpx.Client, n: int) -> dict[str, str]:
    """Play ``n`` all-bot matches to the end: Redis traffic per move, then bytes per finished match."""
    memory0 = used_memory(r)
    keys0 = int(r.dbsize())
    calls0, (in0, out0) = command_calls(r), net_bytes(r)
    t0 = time.perf_counter()
    ids = [
        http.post("/v1/games", json={"kind": "rough", "seats": BOTS}).json()["game"]["game_id"]
        for _ in range(n)
    ]
    own: Counter[str] = Counter()
    quiet = 0
    deadline = time.monotonic() + 60 * max(5, n)
    while quiet < 3 and time.monotonic() < deadline:  # no bot turn due three polls in a row
        time.sleep(0.5)
        own["zcard"] += 1
        quiet = quiet + 1 if r.zcard(DUE_KEY) == 0 else 0
    own["info"] += 2  # the two INFO calls below
    calls, (in1, out1) = command_calls(r) - calls0, net_bytes(r)
    calls.subtract(own)
    seconds = time.perf_counter() - t0
    statuses = [r.hget(game_key(g), "status") for g in ids]
    finished = sum(s == b"finished" for s in statuses)
    moves = sum(int(r.hget(game_key(g), "version") or 0) for g in ids)
    lingering = [sum(game_keys(r, g).values()) for g in ids]
    events = mean([int(r.xlen(events_key(g))) for g in ids])
    stream = mean([key_bytes(r, events_key(g)) for g in ids])
    time.sleep(LINGER + 1)  # the streams expire: what stays for the finished-game TTL (30 days)
    per_game = [game_keys(r, g) for g in ids]
    totals = [sum(k.values()) for k in per_game]
    rq_keys, rq_size, rq_results = rq_leftovers(r)
    top = ",".join(f"{name}:{count / moves:.2f}" for name, count in calls.most_common(8) if count > 0)
    print(f"{finished}/{n} matches finished, {moves} moves in {seconds:.1f}s; per move: {top}")
    print(
        f"finished match: {mean(lingering):.0f} B while its stream lingers ({stream:.0f} B for {events:.0f} "
        f"events), then {mean(totals):.0f} B (state {mean([k['state'] for k in per_game]):.0f}, stream "
        f"{mean([k['stream'] for k in per_game]):.0f}, log {mean([k['log'] for k in per_game]):.0f}, other "
        f"{mean([k['other'] for k in per_game]):.0f}); RQ leftovers {rq_keys} keys ({rq_results} results) "
        f"{rq_size} B"
    )
    return {
        "matches": str(n),
        "finished": str(finished),
        "moves": str(moves),
        "moves_per_match": f"{moves / max(1, n):.0f}",
        "commands_per_move": f"{sum(c for c in calls.values() if c > 0) / max(1, moves):.2f}",
        "evalsha_per_move": f"{calls['evalsha'] / max(1, moves):.2f}",
        "net_in_per_move": f"{(in1 - in0) / max(1, moves):.0f}",
        "net_out_per_move": f"{(out1 - out0) / max(1, moves):.0f}",
        "finished_match": f"{mean(totals):.0f}",
        "finished_match_max": str(max(totals, default=0)),
        "finished_state": f"{mean([k['state'] for k in per_game]):.0f}",
        "finished_stream": f"{mean([k['stream'] for k in per_game]):.0f}",
        "finished_match_lingering": f"{mean(lingering):.0f}",
        "lingering_stream": f"{stream:.0f}",
        "lingering_stream_events": f"{events:.0f}",
        "finished_log": f"{mean([k['log'] for k in per_game]):.0f}",
        "finished_other": f"{mean([k['other'] for k in per_game]):.0f}",
        "rq_leftover_keys": str(rq_keys),
        "rq_leftover_results": str(rq_results),
        "rq_leftover_bytes": str(rq_size),
        "used_memory_per_match": f"{(used_memory(r) - memory0) / max(1, n):.0f}",
        "keys_per_match": f"{(int(r.dbsize()) - keys0) / max(1, n):.1f}",
    }


def whole_streams(r: redis.Redis, http: httpx.Client, n: int) -> dict[str, str]:
    """``n`` all-bot matches one after another, each stream weighed the moment its match ends (before
    its linger runs out): the events a whole match publishes, per move, and the bytes one kept event
    costs (``MEMORY USAGE`` of the stream over ``XLEN``: what the resume window costs per event). With
    ``--window`` below a match's events, the stream weighed is the trimmed one."""
    events = size = moves = 0
    for _ in range(n):
        gid = http.post("/v1/games", json={"kind": "rough", "seats": BOTS}).json()["game"]["game_id"]
        deadline = time.monotonic() + 300
        while r.hget(game_key(gid), "status") != b"finished":
            if time.monotonic() > deadline:
                raise SystemExit(f"match {gid} did not finish")
            time.sleep(0.02)
        events += int(r.xlen(events_key(gid)))
        size += key_bytes(r, events_key(gid))
        moves += int(r.hget(game_key(gid), "version") or 0)
    print(
        f"whole streams: {n} matches, {moves / n:.0f} moves and {events / n:.0f} events each "
        f"({events / max(1, moves):.2f} a move), {size / max(1, events):.0f} B an event"
    )
    return {
        "match_stream_events": f"{events / n:.0f}",
        "match_stream_bytes": f"{size / n:.0f}",
        "stream_events_per_move": f"{events / max(1, moves):.2f}",
        "stream_bytes_per_event": f"{size / max(1, events):.0f}",
    }


def human_match(r: redis.Redis, http: httpx.Client) -> dict[str, str]:
    """Matches of four humans over REST (no RQ): Redis commands and bytes per move of the API alone,
    each move being three requests (the game, the seat's legal actions, the action)."""
    rng = random.Random(3)
    calls0, (in0, out0) = command_calls(r), net_bytes(r)
    moves = games = 0
    while moves < 150:  # random play ends some matches in a hand: play as many as it takes
        games += 1
        gid = http.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
        tokens = [http.post(f"/v1/games/{gid}/join", json={"seat": i}).json()["token"] for i in range(4)]
        while (game := http.get(f"/v1/games/{gid}").json())["status"] == "active":
            auth = {"Authorization": f"Bearer {tokens[game['to_act']]}"}
            action = rng.choice(http.get(f"/v1/games/{gid}/actions", headers=auth).json()["legal_actions"])
            if action["type"] == "discard" and "choices" in action:
                action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
            http.post(f"/v1/games/{gid}/actions", json={"action": action}, headers=auth)
            moves += 1
    calls, (in1, out1) = command_calls(r) - calls0, net_bytes(r)
    calls["info"] -= 2
    top = ",".join(f"{name}:{count / moves:.2f}" for name, count in calls.most_common(6) if count > 0)
    print(f"human matches over REST: {moves} moves in {games} matches (with creates, joins); per move: {top}")
    return {
        "human_moves": str(moves),
        "human_commands_per_move": f"{sum(c for c in calls.values() if c > 0) / max(1, moves):.2f}",
        "human_net_in_per_move": f"{(in1 - in0) / max(1, moves):.0f}",
        "human_net_out_per_move": f"{(out1 - out0) / max(1, moves):.0f}",
    }


def waiting_games(r: redis.Redis, http: httpx.Client, n: int) -> dict[str, str]:
    """``n`` listed games waiting with one seat of four taken."""
    ids = []
    for _ in range(n):
        gid = http.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
        http.post(f"/v1/games/{gid}/join", json={"seat": 0, "name": "alice"})
        ids.append(gid)
    totals = [sum(game_keys(r, g).values()) for g in ids]
    print(f"waiting game: {mean(totals):.0f} B over {n}")
    return {"waiting_game": f"{mean(totals):.0f}"}


def active_matches(r: redis.Redis, http: httpx.Client, n: int, moves: int) -> dict[str, str]:
    """``n`` matches of a human (seat 0) against three bots, stopped at a human turn."""
    rng = random.Random(10)
    ids, versions = [], []
    for _ in range(n):
        seats = ["open", *BOTS[1:]]
        gid = http.post("/v1/games", json={"kind": "rough", "seats": seats}).json()["game"]["game_id"]
        token = http.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
        play_human(http, gid, token, moves, rng)
        ids.append(gid)
        versions.append(int(r.hget(game_key(gid), "version") or 0))
    per_game = [game_keys(r, g) for g in ids]
    without_stream = [k["state"] + k["log"] + k["other"] for k in per_game]
    events = mean([int(r.xlen(events_key(g))) for g in ids])
    print(
        f"active match (after {mean(versions):.0f} moves): {mean(without_stream):.0f} B without its stream "
        f"(state {mean([k['state'] for k in per_game]):.0f}, log {mean([k['log'] for k in per_game]):.0f}), "
        f"stream {mean([k['stream'] for k in per_game]):.0f} B for {events:.0f} events"
    )
    return {
        "active_match": f"{mean(without_stream):.0f}",
        "active_match_max": str(max(without_stream, default=0)),
        "active_moves": f"{mean(versions):.0f}",
        "active_state": f"{mean([k['state'] for k in per_game]):.0f}",
        "active_log": f"{mean([k['log'] for k in per_game]):.0f}",
        "active_stream": f"{mean([k['stream'] for k in per_game]):.0f}",
        "active_stream_events": f"{events:.0f}",
    }


if __name__ == "__main__":
    main()
