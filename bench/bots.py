"""Bot strength and speed: heuristic vs random, expert and learned vs heuristic, over duplicate deals.

For each game, each deal (a match seed) is played from both sides: in Le 500 and Le Rough
the bot under test holds seats 0+2, then 1+3, against the other bot on the same seed, so
the cards dealt are the same and luck cancels out. Five-handed euchre has no teams
(E5-2): the bot under test holds one seat against four of the other, at each of the five
seats in turn on the same seed; its baseline share of wins is 1/5 (ties share the win,
E5-12). The learned bot (workers/bots/learned.py: the network of bench/train.py) plays the
heuristic on as many deals as the heuristic plays random. Win rates come with 95% Wilson intervals.
Each bot's decision time per move
(``workers.bots.choose`` on a view and its legal actions, p50 and p99) is measured on
every decision it takes that has more than one legal action.

    python bench/bots.py [--quick] [--deals N] [--expert-deals N] [--budget S] [--games a,b] [--jobs N]

Last, the time from a human move to the bot's reply on the human's stream: a real
redis-server, ``atout serve`` and one ``atout worker`` process on loopback; a human seat
plays Le Rough against three heuristic bots the one-request way (it follows its seat's event
stream and answers each ``your_turn`` with one POST), and each time its move hands the turn to
a bot, the clock runs from sending the move to the bot's move arriving on the stream.

``--quick`` (under a minute) plays fewer deals, gives the expert 30 ms a move and plays
expert matches to a lower target score (Le 500 500, Le Rough 200, euchre 5). The last
line is ``bench bots: key=value ...`` with every figure.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from service.runtime.embedded_redis import EmbeddedRedis, free_port
from workers import bots
from workers.arena import wilson

GAMES = ("five_hundred", "rough", "euchre5")
SHORT_TARGETS = {"five_hundred": 500, "rough": 200, "euchre5": 5}


def play_match(
    game: str,
    seed: int,
    levels: list[str],
    budget: float,
    options: dict[str, Any],
    times: dict[str, list[float]],
) -> tuple[list[int], list[int]]:
    """One match, each seat played by its level; returns the winners and the final scores.

    ``workers.arena.play_match`` plays matches for bot authors; this loop stays separate
    because it times only real decisions (more than one legal action), per level."""
    rng = random.Random(seed * 7919 + 1)
    m = engine.new_match(game, seed=seed, options=options)
    while m.to_act is not None:
        seat = m.to_act
        view, legal = engine.view(m, seat), engine.legal_actions(m, seat)
        start = time.perf_counter()
        action = bots.choose(levels[seat], view, legal, rng, budget_s=budget)
        elapsed = time.perf_counter() - start
        if len(legal) > 1 or legal[0].get("type") == "discard":
            times.setdefault(levels[seat], []).append(elapsed)
        m = engine.apply(m, seat, action)
    assert m.winners is not None
    return m.winners, list(m.scores)


Task = tuple[str, int, list[str], float, dict[str, Any], tuple[int, ...]]


def _one(task: Task) -> tuple[int, float, dict[str, list[float]]]:
    """One match of a duplicate pair (run in a worker process when ``--jobs`` > 1): whether
    ``test`` won, its head-to-head result, and the decision times."""
    game, seed, levels, budget, options, mine = task
    times: dict[str, list[float]] = {}
    winners, scores = play_match(game, seed, levels, budget, options, times)
    won = any(s in winners for s in mine)
    return int(won), head_to_head(scores, mine) if len(mine) == 1 else float(won), times


def head_to_head(scores: list[int], mine: tuple[int]) -> float:
    """The share of the other seats that the one seat ``mine`` finished ahead of (a tie
    counts half). In five-handed euchre (no fixed teams, E5-2, E5-12) it compares the seat
    under test with each of the four others, so its baseline is 1/2 like a partnership
    match's, where the share of wins has a baseline of 1/5."""
    me = scores[mine[0]]
    others = [scores[s] for s in range(len(scores)) if s != mine[0]]
    return sum(1.0 if me > o else 0.5 if me == o else 0.0 for o in others) / len(others)


def mean_interval(xs: list[float]) -> tuple[float, float, float]:
    """Mean and a 95% normal interval over matches (each match one observation)."""
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * (var / n) ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def duplicate(
    game: str,
    test: str,
    other: str,
    deals: int,
    budget: float,
    options: dict[str, Any],
    times: dict[str, list[float]],
    first_seed: int,
    jobs: int = 1,
) -> tuple[int, int, list[float]]:
    """Matches won by ``test`` against ``other`` over ``deals`` seeds, each from every side,
    the number played, and the head-to-head result of each.

    With ``jobs`` > 1 the matches run in that many processes; each match is still played
    on one core, so decision times stay comparable (when ``jobs`` does not exceed the cores)."""
    players = engine.game(game).players
    sides = [(0, 2), (1, 3)] if players == 4 else [(s,) for s in range(players)]
    tasks = [
        (game, seed, [test if s in mine else other for s in range(players)], budget, options, mine)
        for seed in range(first_seed, first_seed + deals)
        for mine in sides
    ]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_one, tasks, chunksize=1)
    else:
        results = [_one(t) for t in tasks]
    for _, _, t in results:
        for level, xs in t.items():
            times.setdefault(level, []).extend(xs)
    return sum(w for w, _, _ in results), len(results), [h for _, h, _ in results]


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a run of under a minute")
    parser.add_argument("--deals", type=int, help="deals per game, heuristic vs random")
    parser.add_argument("--expert-deals", type=int, help="deals per game, expert vs heuristic")
    parser.add_argument("--budget", type=float, help="expert thinking time per move, seconds")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    parser.add_argument(
        "--expert-first-seed", type=int, default=1001, help="first deal of the expert matches (to add runs)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="matches played at once (processes)")
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g]
    deals = args.deals if args.deals is not None else (30 if args.quick else 200)
    expert_deals = args.expert_deals if args.expert_deals is not None else (3 if args.quick else 12)
    budget = args.budget if args.budget is not None else (0.03 if args.quick else 0.25)
    figures: dict[str, str] = {}
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    for game in games:
        t0 = time.perf_counter()
        won, n, _ = duplicate(
            game, "heuristic", "random", deals, budget, {}, times, first_seed=1, jobs=args.jobs
        )
        lo, hi = wilson(won, n)
        print(
            f"{game:13s} heuristic vs random: {won}/{n} = {won / n:.0%} [{lo:.0%}, {hi:.0%}]"
            f"  ({time.perf_counter() - t0:.1f}s)",
            flush=True,
        )
        figures[f"{game}_h_vs_r"] = f"{won / n:.3f}"
        figures[f"{game}_h_vs_r_ci"] = f"{lo:.3f}-{hi:.3f}"
        figures[f"{game}_h_vs_r_n"] = str(n)
    for game in games:
        t0 = time.perf_counter()
        options = {"target_score": SHORT_TARGETS[game]} if args.quick else {}
        won, n, h2h = duplicate(
            game,
            "expert",
            "heuristic",
            expert_deals,
            budget,
            options,
            times,
            first_seed=args.expert_first_seed,
            jobs=args.jobs,
        )
        if not n:
            continue
        note = f"{time.perf_counter() - t0:.1f}s, target {options.get('target_score', 'default')}"
        record_against_heuristic(game, "expert", "e", (won, n, h2h), note, figures)
    for game in games:
        learned_vs_heuristic(game, deals, budget, times, figures, args.jobs)
    for level in ("random", "heuristic", "expert", "learned"):
        xs = times.get(level, [])
        p50, p99 = pct(xs, 0.5) * 1e3, pct(xs, 0.99) * 1e3
        print(f"{level:9s} decision time: p50 {p50:.2f} ms  p99 {p99:.2f} ms  over {len(xs)} decisions")
        figures[f"{level}_p50_ms"] = f"{p50:.3f}"
        figures[f"{level}_p99_ms"] = f"{p99:.3f}"
    replies = reply_latencies(40 if args.quick else 200)
    r50, r99 = pct(replies, 0.5) * 1e3, pct(replies, 0.99) * 1e3
    print(f"human move -> bot's move on the stream: p50 {r50:.1f} ms  p99 {r99:.1f} ms  over {len(replies)}")
    figures["reply_p50_ms"] = f"{r50:.1f}"
    figures["reply_p99_ms"] = f"{r99:.1f}"
    figures["expert_budget_s"] = f"{budget:g}"
    figures["jobs"] = str(args.jobs)
    figures["euchre5_baseline"] = "0.200"
    figures["seconds"] = f"{time.perf_counter() - started:.1f}"
    print("bench bots: " + " ".join(f"{k}={v}" for k, v in figures.items()))


def learned_vs_heuristic(
    game: str, deals: int, budget: float, times: dict[str, list[float]], figures: dict[str, str], jobs: int
) -> None:
    """The learned bot against the heuristic on ``deals`` duplicate deals (whole matches): ``figures``."""
    t0 = time.perf_counter()
    result = duplicate(game, "learned", "heuristic", deals, budget, {}, times, first_seed=1, jobs=jobs)
    record_against_heuristic(game, "learned", "l", result, f"{time.perf_counter() - t0:.1f}s", figures)


def record_against_heuristic(
    game: str,
    level: str,
    short: str,
    result: tuple[int, int, list[float]],
    note: str,
    figures: dict[str, str],
) -> None:
    """Print a level's wins against the heuristic (and, in euchre, its head-to-head rate) and keep them
    in ``figures`` as ``<game>_<short>_vs_h...``."""
    won, n, h2h = result
    lo, hi = wilson(won, n)
    print(
        f"{game:13s} {level} vs heuristic: {won}/{n} = {won / n:.0%} [{lo:.0%}, {hi:.0%}]  ({note})",
        flush=True,
    )
    figures[f"{game}_{short}_vs_h"] = f"{won / n:.3f}"
    figures[f"{game}_{short}_vs_h_ci"] = f"{lo:.3f}-{hi:.3f}"
    figures[f"{game}_{short}_vs_h_n"] = str(n)
    if engine.game(game).players != 4:
        mean, lo, hi = mean_interval(h2h)
        print(f"{'':13s} {level} head-to-head against each heuristic seat: {mean:.0%} [{lo:.0%}, {hi:.0%}]")
        figures[f"{game}_{short}_vs_h_head_to_head"] = f"{mean:.3f}"
        figures[f"{game}_{short}_vs_h_head_to_head_ci"] = f"{lo:.3f}-{hi:.3f}"


def sse_events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The JSON ``data`` of each Server-Sent Event of ``lines`` (a frame ends at an empty line)."""
    data: str | None = None
    for line in lines:
        if line.startswith("data:"):
            data = line[5:].strip()
        elif not line and data is not None:
            yield json.loads(data)
            data = None


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def reply_latencies(samples: int) -> list[float]:
    """Seconds from a human move's answer to the heuristic bot's reply on the human's event stream.

    The human plays as the docs teach: it follows its seat's stream, acts on each ``your_turn`` (its
    legal actions are in it) with one POST, and the clock runs from sending that POST to the first
    event of a later version on the stream: the bot's move, made by the worker and pushed to us (the
    move's own round trip included: the bot may well have moved before its answer is read)."""
    out: list[float] = []
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False).start()
        env = {**os.environ, "REDIS_URL": server.url, "ATOUT_LOG_LEVEL": "warning"}
        port = free_port()
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
        api = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)], env=env, **quiet
        )
        worker = subprocess.Popen([sys.executable, "-m", "service.runtime.cli", "worker"], env=env, **quiet)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=30) as http:
                for _ in range(300):
                    try:
                        http.get("/healthz")
                        break
                    except httpx.HTTPError:
                        time.sleep(0.1)
                while len(out) < samples:
                    out += one_match(http, rng, samples - len(out))
        finally:
            stop(worker)
            stop(api)
            server.stop()
    return out


def one_match(http: httpx.Client, rng: random.Random, wanted: int) -> list[float]:
    """A human at seat 0 of Le Rough against three heuristic bots, following its stream."""
    seats = ["open", "bot:heuristic", "bot:heuristic", "bot:heuristic"]
    gid = http.post("/v1/games", json={"kind": "rough", "seats": seats}).json()["game"]["game_id"]
    token = http.post(f"/v1/games/{gid}/join", json={"seat": 0}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    out: list[float] = []
    waiting: tuple[int, float] | None = None  # the version our move made, and when we sent it
    deadline = time.monotonic() + 120
    with http.stream("GET", f"/v1/games/{gid}/events", headers=auth) as stream:
        for frame in sse_events(stream.iter_lines()):
            if waiting is not None and frame.get("version", 0) > waiting[0]:
                out.append(time.perf_counter() - waiting[1])
                waiting = None
            event = frame.get("event", frame)  # an envelope's event, or the StreamEnd itself
            if event["type"] == "your_turn":
                action = rng.choice(event["legal_actions"])
                if action["type"] == "discard" and "choices" in action:
                    action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
                sent = time.perf_counter()
                posted = http.post(f"/v1/games/{gid}/actions", json={"action": action}, headers=auth).json()
                if posted["to_act"] not in (None, 0):  # a bot's turn now: time its reply
                    waiting = (posted["version"], sent)
            finished = event["type"] == "turn" and event["status"] == "finished"
            if finished or len(out) >= wanted or time.monotonic() > deadline:
                break
    return out


if __name__ == "__main__":
    main()
