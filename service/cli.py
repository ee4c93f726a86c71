"""The ``atout`` command: ``serve``, ``worker``, ``openapi``."""

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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = get_settings()
    logs.configure(settings.log_json, settings.log_level)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
