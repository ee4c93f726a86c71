"""Faults under ``atout serve`` (embedded Redis): how long a killed child takes to come back, and how
fast the API refuses while its store is gone.

1. ``redis_back_s``: from SIGKILL to the redis-server until ``/readyz`` answers 200 again (the
   supervisor's first backoff is 0.5 s, then the AOF is loaded and the API reconnects).
2. ``worker_back_s``: from SIGKILL to the fast-queue worker until ``/readyz`` reports that queue
   ``ok`` again with a live worker (a new process registered and beating).
3. ``down_p50_ms`` / ``down_p99_ms``: latency of ``GET /v1/games/{id}`` answered 503
   ``store_unavailable`` with the store gone for good (the app served in-process against a
   redis-server of its own that stays dead: under ``atout serve`` it would be back within a second).

    python bench/faults.py [--repeat 3]

The last line is ``bench faults: key=value ...``.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.runtime.embedded_redis import EmbeddedRedis, free_port  # noqa: E402
from service.runtime.supervisor import children, cmdline  # noqa: E402


def child_with(pid: int, marker: str) -> int | None:
    return next((child for child in children(pid) if marker in cmdline(child)), None)


def until(condition: object, seconds: float = 120.0) -> float:
    start = time.monotonic()
    while not condition():  # type: ignore[operator]
        if time.monotonic() - start > seconds:
            raise TimeoutError("the service did not come back")
        time.sleep(0.01)
    return time.monotonic() - start


def ready(base: str) -> bool:
    try:
        return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def fast_queue_ok(base: str, old: int, serve_pid: int) -> bool:
    new = child_with(serve_pid, "--queues fast")
    if new is None or new == old:
        return False
    try:
        body = httpx.get(f"{base}/readyz", timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return False
    queue = body.get("workers", {}).get("queues", {}).get("atout-bots", {})
    return bool(queue.get("status") == "ok" and queue.get("heartbeat_age_seconds", 99) < 2)


def supervised(repeat: int) -> tuple[list[float], list[float]]:
    redis_back: list[float] = []
    worker_back: list[float] = []
    with tempfile.TemporaryDirectory(prefix="atout-faults-") as tmp:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "ATOUT_REDIS_URL"}}
        env.update(ATOUT_DATA_DIR=str(Path(tmp) / "redis"), ATOUT_LOG_LEVEL="warning", PYTHONPATH=str(ROOT))
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            until(lambda: ready(base))
            for _ in range(repeat):
                until(lambda: child_with(proc.pid, "redis-server") is not None, 60)
                pid = child_with(proc.pid, "redis-server")
                assert pid is not None
                os.kill(pid, signal.SIGKILL)
                until(lambda: not ready(base), 10)  # the outage is seen
                redis_back.append(until(lambda: ready(base)))
                # the worker may itself be between restarts after the outage: wait for it
                until(lambda: child_with(proc.pid, "--queues fast") is not None, 60)
                old = child_with(proc.pid, "--queues fast")
                assert old is not None
                killed_at = time.monotonic()
                os.kill(old, signal.SIGKILL)
                until(lambda old=old: fast_queue_ok(base, old, proc.pid))  # type: ignore[misc]
                worker_back.append(time.monotonic() - killed_at)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return redis_back, worker_back


def refusals(count: int) -> list[float]:
    import uvicorn

    from service.api.app import create_app
    from service.base.settings import Settings

    with tempfile.TemporaryDirectory(prefix="atout-faults-") as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis").start()
        port = free_port()
        uv = uvicorn.Server(
            uvicorn.Config(create_app(Settings(redis_url=server.url)), port=port, log_level="error")
        )
        thread = threading.Thread(target=uv.run, daemon=True)
        thread.start()
        until(lambda: uv.started, 30)
        times: list[float] = []
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20) as http:
                gid = http.post("/v1/games", json={"kind": "rough"}).json()["game"]["game_id"]
                assert server.process is not None
                server.process.kill()
                server.process.wait()
                for _ in range(count):
                    start = time.perf_counter()
                    response = http.get(f"/v1/games/{gid}")
                    times.append((time.perf_counter() - start) * 1000)
                    assert response.status_code == 503, response.text
        finally:
            uv.should_exit = True
            thread.join(30)
            server.stop()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 kill of each kind, 50 requests")
    parser.add_argument("--repeat", type=int, default=None, help="kills of each kind (default 3)")
    parser.add_argument("--requests", type=int, default=None, help="requests, Redis down (default 200)")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 3)
    requests = args.requests or (50 if args.quick else 200)
    redis_back, worker_back = supervised(repeat)
    down = sorted(refusals(requests))
    p99 = down[min(len(down) - 1, int(len(down) * 0.99))]
    print(
        f"bench faults: redis_back_s={statistics.median(redis_back):.2f} "
        f"redis_back_max_s={max(redis_back):.2f} "
        f"worker_back_s={statistics.median(worker_back):.2f} worker_back_max_s={max(worker_back):.2f} "
        f"down_p50_ms={statistics.median(down):.1f} down_p99_ms={p99:.1f} repeat={repeat}"
    )


if __name__ == "__main__":
    main()
