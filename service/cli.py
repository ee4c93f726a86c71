"""The ``atout`` command: ``serve``, ``worker``, ``openapi``, ``arena``."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from service import logs
from service.settings import get_settings


def serve(args: argparse.Namespace) -> int:
    """Serve the API; with no REDIS_URL, first start an embedded redis-server and one worker."""
    import uvicorn

    from service.embedded_redis import EmbeddedRedis, die_with_parent

    settings = get_settings()
    log = logs.get_logger("atout.serve")
    embedded: EmbeddedRedis | None = None
    workers: list[subprocess.Popen[bytes]] = []
    if not settings.redis_url:
        embedded = EmbeddedRedis(settings.data_dir).start()
        os.environ["REDIS_URL"] = embedded.url
        get_settings.cache_clear()
        log.info("embedded_redis_started", url=embedded.url, data_dir=str(embedded.data_dir))
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker", "--queues", which],
                env=os.environ.copy(),
                preexec_fn=die_with_parent,  # never outlive `atout serve`, even if it is killed
            )
            for which in ("fast", "expert")
        ]
        log.info("workers_started", pids=[w.pid for w in workers])
    metrics_dir: tempfile.TemporaryDirectory[str] | None = None
    if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        metrics_dir = tempfile.TemporaryDirectory(prefix="atout-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir.name  # /metrics adds up every worker
    try:
        uvicorn.run(
            "service.app:create_app",
            factory=True,
            host=args.host or settings.host,
            port=args.port or settings.port,
            workers=args.workers,
            log_level=settings.log_level.lower(),
            access_log=False,  # the app logs each request itself, as structured JSON
            timeout_graceful_shutdown=10,
        )
    finally:
        for worker in workers:
            worker.terminate()  # RQ: warm shutdown, the current job finishes
        for worker in workers:
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        if embedded is not None:
            embedded.stop()
            log.info("embedded_redis_stopped")
        if metrics_dir is not None:
            metrics_dir.cleanup()
    return 0


def worker(args: argparse.Namespace) -> int:
    """Run one RQ worker for bot turns and turn timers against REDIS_URL."""
    import redis
    from rq import Queue, SimpleWorker, Worker
    from rq.serializers import JSONSerializer

    from service.bots import queues

    settings = get_settings()
    if not settings.redis_url:
        print("atout worker: set REDIS_URL to the Redis the API uses", file=sys.stderr)
        return 2
    connection = redis.Redis.from_url(settings.redis_url)
    rq_queues = [
        Queue(name, connection=connection, serializer=JSONSerializer)
        for name in queues(settings.bot_queue, args.queues)
    ]
    # Bot code is pure and short: run jobs in this process (one loop and Redis pool for all of them)
    # rather than forking a work horse per move, unless --fork asks for isolation.
    worker_class = Worker if args.fork else SimpleWorker
    rq_worker = worker_class(
        rq_queues, connection=connection, serializer=JSONSerializer, maintenance_interval=30
    )
    rq_worker.work(burst=args.burst, with_scheduler=True, logging_level=settings.log_level.upper())
    return 0


def openapi(args: argparse.Namespace) -> int:
    """Print (or write) the OpenAPI document generated from the app's routes."""
    from service.openapi import build

    text = json.dumps(build(), indent=2, sort_keys=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


def arena(args: argparse.Namespace) -> int:
    """Play bots against each other locally (``workers.arena``); 1 when a side forfeited a match."""
    from workers import arena as harness

    def side(level: str, command: str | None) -> harness.Side:
        if command:
            return harness.Command(command, timeout_s=args.timeout)
        return harness.Builtin(level, budget_s=args.budget, playouts=args.playouts)

    options = {"target_score": args.target} if args.target is not None else {}
    try:
        result = harness.run(
            args.game,
            side(args.a, args.a_cmd),
            side(args.b, args.b_cmd),
            matches=args.matches,
            seed=args.seed,
            options=options,
            progress=False if args.no_progress else None,
            max_hands=args.max_hands,
        )
    except harness.ArenaError as e:
        print(f"atout arena: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), indent=2) if args.json else result.summary())
    return 1 if result.forfeits("A") or result.forfeits("B") else 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atout", description="Atout game service.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve the API (embedded Redis and a worker when REDIS_URL is unset)")
    s.add_argument("--host", default=None)
    s.add_argument("--port", type=int, default=None)
    s.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    s.set_defaults(func=serve)
    w = sub.add_parser("worker", help="run an RQ worker for bot turns and turn timers")
    w.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    w.add_argument("--fork", action="store_true", help="run each job in a forked work horse (RQ's default)")
    w.add_argument(
        "--queues",
        choices=["all", "fast", "expert"],
        default="all",
        help="fast: random and heuristic bots and turn timers; expert: expert bots; all: both, fast first",
    )
    w.set_defaults(func=worker)
    o = sub.add_parser("openapi", help="print the OpenAPI document")
    o.add_argument("--output", "-o", default=None)
    o.set_defaults(func=openapi)
    a = sub.add_parser(
        "arena",
        help="play bots (built-in levels or your program) against each other over duplicate deals",
        description="Side A holds seats 0+2 (euchre5: seat 0), side B the others; each seed is played "
        "twice with the seats swapped. A --a-cmd/--b-cmd program reads one JSON line per decision "
        '({"view": ..., "legal_actions": [...]}) and answers one action as a JSON line.',
    )
    a.add_argument("--game", required=True, help="five_hundred, rough or euchre5")
    levels = ["random", "heuristic", "expert"]
    a.add_argument("--a", default="heuristic", choices=levels, help="side A's built-in level")
    a.add_argument("--b", default="random", choices=levels, help="side B's built-in level")
    a.add_argument("--a-cmd", default=None, help='side A is this program, e.g. "python my_bot.py"')
    a.add_argument("--b-cmd", default=None, help="side B is this program")
    a.add_argument("--matches", type=int, default=20, help="matches to play, two per seed")
    a.add_argument("--seed", type=int, default=1, help="first seed")
    a.add_argument("--target", type=int, default=None, help="target_score, shorter matches (e.g. rough 200)")
    a.add_argument("--budget", type=float, default=0.2, help="expert thinking time per move, seconds")
    a.add_argument("--playouts", type=int, default=None, help="expert: deals sampled a move (deterministic)")
    a.add_argument("--timeout", type=float, default=10.0, help="seconds a program has per decision")
    a.add_argument("--max-hands", type=int, default=500, help="a match with no winner by then is a tie")
    a.add_argument("--json", action="store_true", help="print the result as JSON")
    a.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    a.set_defaults(func=arena)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = get_settings()
    logs.configure(settings.log_json, settings.log_level)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
