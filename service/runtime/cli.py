"""The ``atout`` command: ``serve``, ``worker``, ``openapi``, ``verify``, ``arena``, ``backup`` and
``restore`` (:mod:`service.runtime.backup`), and ``bot`` (the bot runner, :mod:`atout.runner.command`)."""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from rq import Queue
from rq.serializers import JSONSerializer
from starlette.applications import Starlette

import engine
from atout.runner.command import add_commands as add_bot_commands
from service.api.rest import openapi_document
from service.base import logs
from service.base.counters import serve_worker_metrics
from service.base.settings import Settings, get_settings
from service.runtime.backup import add_commands as add_backup_commands
from service.runtime.embedded_redis import EmbeddedRedis, die_with_parent
from service.runtime.http_server import server_options
from service.runtime.reuse_port import claim, run_workers
from service.runtime.supervisor import RedisChild, Supervisor, WorkerChild
from workers import arena as harness
from workers import tournament as tourney
from workers.bots import LEVELS
from workers.jobs.matchmaker import run_matchmaker
from workers.jobs.queue import queue_connection, queues
from workers.jobs.worker import ForkingTurnWorker, TurnWorker


def _lock_data_dir(data_dir: Path) -> int | None:
    """Take the data folder for this process alone (``flock``, released when the process dies, however
    it dies). Two servers on one AOF would each see only their own games and corrupt the file.
    Returns the open lock file descriptor, or None when another process holds it."""

    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / "serve.lock", os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by children
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _lock_owner(data_dir: Path) -> str:
    try:
        return (data_dir / "serve.lock").read_text().strip() or "unknown"
    except OSError:
        return "unknown"


STREAMS_GRACE_SECONDS = 3.0
"""Once ``atout serve`` is stopping, what its open streams (SSE, NDJSON, GraphQL subscriptions) have to
send their goodbye (``server_closing`` and a reconnection delay) before uvicorn closes the connections."""


async def _close_streams(app: object, grace: float) -> None:
    """Tell every open stream of this process that the server is stopping (each ends with a
    ``server_closing`` notice: reconnect with the last event id, to another replica), and wait, at
    most ``grace`` seconds, for them to end. uvicorn's own shutdown would otherwise cut a GraphQL
    subscription's WebSocket (close code 1012) before it could say so."""

    for _ in range(8):  # uvicorn's middlewares (proxy headers, message logger) wrap the app
        if isinstance(app, Starlette):
            break
        app = getattr(app, "app", None)
    else:
        return
    hub = getattr(app.state, "streams", None)
    if hub is None:  # stopped before its lifespan started the hub
        return
    had_streams = hub.open_streams > 0
    hub.server_closing()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    while hub.open_streams > 0 and loop.time() < deadline:
        await asyncio.sleep(0.05)
    if had_streams:
        # a stream gives its place back before its last frames are written (a GraphQL subscription's
        # error, then its "complete"): a moment for them to leave
        await asyncio.sleep(0.1)


def serve(args: argparse.Namespace) -> int:
    """Serve the API; with no REDIS_URL, first start an embedded redis-server and one worker per queue,
    supervised (restarted with backoff when they die) and stopped with the API. SIGTERM is handled
    like Ctrl-C, exit code 0 for both: the API takes no new connection, tells its open streams to
    reconnect (``server_closing``) and finishes its requests, the workers finish their job, Redis
    shuts down cleanly last. The children run in sessions of their own: a signal to the whole group
    (a terminal's Ctrl-C) reaches this process alone, which stops them in that order."""

    settings = get_settings()
    log = logs.get_logger("atout.serve")
    # uvicorn re-raises the signal that stopped it once it is done; SIGTERM's default action would then
    # kill this process before the finally below stops the workers and Redis.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    held = Held()
    try:
        if (args.workers > 1 or not settings.redis_url) and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # Set before prometheus_client is imported here, and inherited by the uvicorn and bot workers:
            # each process writes its metrics to files there and the API's /metrics adds them all up.
            held.metrics_dir = tempfile.TemporaryDirectory(prefix="atout-metrics-")
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = held.metrics_dir.name
        if not settings.redis_url:
            data_dir = Path(settings.data_dir).resolve()
            held.lock_fd = _lock_data_dir(data_dir)
            if held.lock_fd is None:
                owner = _lock_owner(data_dir)
                print(
                    f"atout serve: {data_dir} is in use by another atout serve (pid {owner}); "
                    f"its Redis URL is in {data_dir / 'redis.url'}. Stop it first, or set ATOUT_DATA_DIR "
                    "to another folder (or REDIS_URL to share its Redis).",
                    file=sys.stderr,
                )
                return 2
            _start_embedded(held, data_dir, args.port or settings.port, settings, log)
        return _run_api(args, settings)
    except KeyboardInterrupt:
        return 0  # Ctrl-C or SIGTERM before the API was up: stop what was started
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the cleanup short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _stop_held(held, log)


@dataclass
class Held:
    """What ``atout serve`` started and must stop or release, whatever happens."""

    supervisor: Supervisor | None = None
    embedded: EmbeddedRedis | None = None
    lock_fd: int | None = None
    metrics_dir: tempfile.TemporaryDirectory[str] | None = None


SERVED_QUEUES = ("fast", "expert", "webhooks")
"""The ``--queues`` of the workers ``atout serve`` starts with an embedded Redis: one worker per queue
(docs/operations.md's queue table lists them, tests/test_docs_truth.py checks it)."""


def _start_embedded(held: Held, data_dir: Path, api_port: int, settings: Settings, log: Any) -> None:
    """The embedded redis-server (in ``data_dir``, never on the API's port: the API binds after Redis
    has picked one) and one worker per queue, under a supervisor that stops Redis last."""
    embedded = held.embedded = EmbeddedRedis(
        data_dir, maxmemory=settings.embedded_maxmemory, avoid_ports=[api_port]
    )
    redis_child = RedisChild(embedded)
    redis_child.start()
    os.environ["REDIS_URL"] = embedded.url
    get_settings.cache_clear()
    log.info("embedded_redis_started", url=embedded.public_url, data_dir=str(embedded.data_dir))
    # no port of their own: their metrics reach the API's /metrics through the files
    command = [sys.executable, "-m", "service.runtime.cli", "worker", "--queues"]
    workers = [
        WorkerChild(f"worker-{which}", [*command, which, "--metrics-port", "0"], os.environ.copy())
        for which in SERVED_QUEUES
    ]
    matcher = [sys.executable, "-m", "service.runtime.cli", "matchmaker", "--metrics-port", "0"]
    workers.append(WorkerChild("matchmaker", matcher, os.environ.copy()))
    held.supervisor = Supervisor(workers, last=[redis_child], max_backoff=settings.supervisor_max_backoff)
    held.supervisor.start()
    log.info("workers_started", pids=[w.pid for w in workers], redis_pid=embedded.pid)


def _run_api(args: argparse.Namespace, settings: Settings) -> int:
    """Run the API under uvicorn until it is stopped; 3 when it could not start (as uvicorn.run)."""
    options: dict[str, Any] = {
        "factory": True,
        "host": args.host or settings.host,
        "port": args.port or settings.port,
        "log_level": settings.log_level.lower(),
        "access_log": False,  # the app logs each request itself, as structured JSON (no query string)
        "timeout_graceful_shutdown": 10,  # in-flight requests finish
        # header deadline and size, connection caps, WebSocket limits, trusted proxies
        **server_options(settings, in_process=args.workers <= 1),
    }
    if args.workers > 1:
        # uvicorn's worker processes, each on a socket of its own (an even share of the connections);
        # sse-starlette ends their SSE streams with server_closing
        try:
            claimed = claim(options["host"], options["port"])
        except OSError as error:  # the address is taken (uvicorn's own bind exits 3 too)
            where = f"{options['host']}:{options['port']}"
            print(f"atout serve: cannot listen on {where}: {error}", file=sys.stderr)
            return 3
        run_workers(uvicorn.Config("service.api.app:create_app", workers=args.workers, **options), claimed)
        return 0

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for listener in self.servers:
                listener.close()  # no new connection from here on; open ones stay
            await _close_streams(self.config.loaded_app, STREAMS_GRACE_SECONDS)
            await super().shutdown(sockets)  # in-flight requests finish, then the lifespan ends

    server = Server(uvicorn.Config("service.api.app:create_app", **options))
    server.run()
    return 0 if server.started else 3


def _stop_held(held: Held, log: Any) -> None:
    """Stop the workers, then Redis (a clean SHUTDOWN: the AOF fsynced), and release the rest."""
    if held.supervisor is not None:
        held.supervisor.stop()
    elif held.embedded is not None:
        held.embedded.stop()
    if held.embedded is not None and held.embedded.returncode is not None:
        # 0: a clean SHUTDOWN (AOF fsynced); redis.url is removed either way
        code = held.embedded.returncode
        (log.info if code == 0 else log.warning)("embedded_redis_stopped", exit_code=code)
    if held.metrics_dir is not None:
        held.metrics_dir.cleanup()
    if held.lock_fd is not None:
        os.close(held.lock_fd)


def worker(args: argparse.Namespace) -> int:
    """Run one RQ worker for bot turns, turn timers and webhook deliveries (``--queues``) against
    REDIS_URL, with RQ's scheduler (turn timers and webhook retries are scheduled jobs); its maintenance
    also re-enqueues bot turns stuck past ``ATOUT_BOT_TURN_TIMEOUT`` (``workers.jobs.watchdog``)."""

    settings = get_settings()
    if not settings.redis_url:
        print("atout worker: set REDIS_URL to the Redis the API uses", file=sys.stderr)
        return 2

    def forked() -> None:
        """In a process just forked here (RQ's scheduler, a --fork work horse): it dies with this
        worker; and until RQ installs its own handlers, a Ctrl-C to the whole group is left to this
        worker (which stops its scheduler with SIGTERM) and a SIGTERM simply ends it, rather than
        running this worker's handler (inherited with the fork) there and printing a traceback."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent()

    os.register_at_fork(after_in_child=forked)
    log = logs.get_logger("atout.worker")
    metrics_port = settings.worker_metrics_port if args.metrics_port is None else args.metrics_port
    if metrics_port:
        serve_worker_metrics(settings.worker_metrics_host, metrics_port)
        log.info("metrics_served", host=settings.worker_metrics_host, port=metrics_port)
    connection = queue_connection(settings)
    rq_queues = [
        Queue(name, connection=connection, serializer=JSONSerializer)
        for name in queues(settings.bot_queue, args.queues, settings.webhook_queue)
    ]
    # Bot code is pure and short: run jobs in this process (one loop and Redis pool for all of them)
    # rather than forking a work horse per move, unless --fork asks for isolation.
    kind: type[TurnWorker] | type[ForkingTurnWorker] = ForkingTurnWorker if args.fork else TurnWorker
    rq_worker = kind(
        rq_queues,
        connection=connection,
        serializer=JSONSerializer,
        maintenance_interval=max(1, min(30, settings.bot_turn_timeout // 2)),
        worker_ttl=settings.worker_ttl,
    )
    rq_worker.settings = settings  # its maintenance runs the watchdog of lost bot turns
    # SIGTERM or SIGINT: RQ's warm shutdown, the current job finishes and the scheduler process stops
    rq_worker.work(burst=args.burst, with_scheduler=True, logging_level=settings.log_level.upper())
    log.info("worker_stopped", pid=os.getpid(), queues=[q.name for q in rq_queues])
    return 0


def matchmaker(args: argparse.Namespace) -> int:
    """Run Play now's matcher until stopped (workers/jobs/matchmaker.py)."""
    settings = get_settings()
    if not settings.redis_url:
        print("atout matchmaker: set REDIS_URL (the store of the games)", file=sys.stderr)
        return 2
    metrics_port = settings.worker_metrics_port if args.metrics_port is None else args.metrics_port
    if metrics_port:  # like a worker's: its probes and Prometheus read it
        serve_worker_metrics(settings.worker_metrics_host, metrics_port)
    return run_matchmaker(settings)


def openapi(args: argparse.Namespace) -> int:
    """Print (or write) the OpenAPI document, generated from the REST endpoint table (service.api.rest)."""

    text = json.dumps(openapi_document(), indent=2, sort_keys=False) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


def arena(args: argparse.Namespace) -> int:
    """Play bots against each other locally (``workers.arena``); 1 when a side forfeited a match."""

    def side(level: str, command: str | None, bot: str | None = None) -> harness.Side:
        if bot:
            return harness.BotClass(bot)  # a class with decide(view, legal_actions), as `atout bot run`
        if command:
            return harness.Command(command, timeout_s=args.timeout, protocol=args.protocol)
        return harness.Builtin(level, budget_s=args.budget, playouts=args.playouts)

    options = {"target_score": args.target} if args.target is not None else {}
    if args.tournament:
        return _tournament(args, side, options)
    try:
        result = harness.run(
            args.game,
            side(args.a, args.a_cmd, args.a_bot),
            side(args.b, args.b_cmd, args.b_bot),
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


def _tournament(args: argparse.Namespace, side: Callable[..., harness.Side], options: dict[str, int]) -> int:
    """``atout arena --tournament``: the service's pairing and scoring (``workers.tournament``), here."""
    try:
        levels = [x for x in (args.entrants or "").split(",") if x]
        entrants = [side(level, None) for level in levels] + [side("", c) for c in args.entrant_cmd or ()]
        entrants += [side("", None, bot) for bot in args.entrant_bot or ()]
        result = harness.run_tournament(
            args.game,
            entrants,
            fmt=args.tournament,
            rounds=args.rounds,
            deals=args.deals,
            key=tourney.key_of_int(args.seed),
            options=options,
            max_hands=args.max_hands,
        )
    except harness.ArenaError as e:
        print(f"atout arena: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), indent=2) if args.json else result.summary())
    return 1 if any(s.flagged_games for s in result.standings()) else 0


def verify(args: argparse.Namespace) -> int:
    """Check every commitment and every dealt hand of a replay log (GET /v1/games/{id}/log), offline.

    Only engine.verify_log's note on a hand the administrator dealt explicitly is no failure; it is
    matched whole, so that a refusal that merely mentions explicit deals (a log contradicting itself
    about one) still fails. The first failure is printed: verify_log stops at it, and says why."""

    try:
        log = json.loads(Path(args.log).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"atout verify: cannot read {args.log}: {error}", file=sys.stderr)
        return 2
    problems = engine.verify_log(log) if isinstance(log, dict) else ["the log is not a JSON object"]
    note = ": dealt explicitly by the administrator, not from a seed"
    failures = [p for p in problems if not (p.startswith("hand ") and p.endswith(note))]
    if failures:
        print(f"FAILED: {failures[0]}")
        return 1
    hands = len(log.get("hands") or [])
    explicit = len(problems)
    counted = f" ({explicit} dealt explicitly by the administrator)" if explicit else ""
    kind = log.get("kind", log.get("game"))  # `game` in a log saved before v1
    print(
        f"verified: {kind} game {log.get('game_id', '?')}, {hands} hands{counted}, every deal matches its "
        "commitment and seed"
    )
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="atout", description="Atout game service.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser(
        "serve",
        help="serve the API (with REDIS_URL unset: an embedded Redis, a worker per queue and the matchmaker)",
    )
    s.add_argument("--host", default=None)
    s.add_argument("--port", type=int, default=None)
    s.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    s.set_defaults(func=serve)
    w = sub.add_parser("worker", help="run an RQ worker for bot turns, turn timers and webhook deliveries")
    w.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    w.add_argument("--fork", action="store_true", help="run each job in a forked work horse (RQ's default)")
    w.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="serve Prometheus /metrics on this port (0: not at all; default ATOUT_WORKER_METRICS_PORT)",
    )
    w.add_argument(
        "--queues",
        choices=["all", "fast", "expert", "webhooks"],
        default="all",
        help="fast: random, heuristic and learned bots, turn timers, reminders and tournament rounds; "
        "expert: expert bots; webhooks: webhook deliveries; all: every queue, in that order",
    )
    w.set_defaults(func=worker)
    m = sub.add_parser("matchmaker", help="run Play now's matcher (several may run; atout serve runs one)")
    m.add_argument("--metrics-port", type=int, default=None, help="serve /metrics here (0: not served)")
    m.set_defaults(func=matchmaker)
    o = sub.add_parser("openapi", help="print the OpenAPI document")
    o.add_argument("--output", "-o", default=None)
    o.set_defaults(func=openapi)
    v = sub.add_parser(
        "verify",
        help="check every commitment and dealt hand of a replay log (GET /v1/games/{id}/log saved as JSON)",
    )
    v.add_argument("log", help="the replay log, a JSON file")
    v.set_defaults(func=verify)
    a = sub.add_parser(
        "arena",
        help="play bots (built-in levels or your program) against each other over duplicate deals",
        description="Side A holds seats 0+2 (euchre5: seat 0), side B the others; each seed is played "
        "twice with the seats swapped. A --a-cmd/--b-cmd program speaks the bot protocol in JSON lines "
        '(docs/bots.md): with --protocol 0, one line per decision ({"view": ..., "legal_actions": [...]}) '
        "answered by one action; with --protocol 1, atout bot run's: hello, game_start, your_turn, "
        "hand_end, game_end.",
    )
    a.add_argument("--game", required=True, help="five_hundred, rough or euchre5")
    levels = list(LEVELS)
    a.add_argument("--a", default="heuristic", choices=levels, help="side A's built-in level")
    a.add_argument("--b", default="random", choices=levels, help="side B's built-in level")
    a.add_argument("--a-cmd", default=None, help='side A is this program, e.g. "python my_bot.py"')
    a.add_argument("--b-cmd", default=None, help="side B is this program")
    a.add_argument("--a-bot", default=None, help="side A is this bot class, module:Class (atout bot run too)")
    a.add_argument("--b-bot", default=None, help="side B is this bot class, module:Class")
    a.add_argument("--matches", type=int, default=20, help="matches to play, two per seed")
    a.add_argument("--seed", type=int, default=1, help="first seed")
    a.add_argument("--target", type=int, default=None, help="target_score, shorter matches (e.g. rough 200)")
    a.add_argument("--budget", type=float, default=0.2, help="expert thinking time per move, seconds")
    a.add_argument("--playouts", type=int, default=None, help="expert: deals sampled a move (deterministic)")
    a.add_argument("--timeout", type=float, default=10.0, help="seconds a program has per decision")
    a.add_argument(
        "--protocol",
        type=int,
        choices=[0, 1],
        default=0,
        help="the bot protocol --a-cmd/--b-cmd programs speak",
    )
    a.add_argument("--max-hands", type=int, default=500, help="a match with no winner by then is a tie")
    a.add_argument(
        "--tournament",
        choices=["round_robin", "swiss"],
        default=None,
        help="play a local tournament (Le 500, Le Rough) between --entrants and --entrant-cmd programs",
    )
    a.add_argument(
        "--entrants", default=None, help="tournament: built-in levels, e.g. random,heuristic,expert,learned"
    )
    a.add_argument("--entrant-cmd", action="append", help="tournament: an entrant program (repeat for more)")
    a.add_argument("--entrant-bot", action="append", help="tournament: an entrant bot class, module:Class")
    a.add_argument("--rounds", type=int, default=None, help="tournament: Swiss rounds (round robin: all)")
    a.add_argument("--deals", type=int, default=1, help="tournament: duplicate deals a pairing plays")
    a.add_argument("--json", action="store_true", help="print the result as JSON")
    a.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    a.set_defaults(func=arena)
    add_bot_commands(sub)
    add_backup_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    settings = get_settings()
    logs.configure(settings.log_json, settings.log_level)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
