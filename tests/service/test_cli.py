"""The ``atout`` command: ``serve`` with no REDIS_URL brings up Redis, a worker and the API."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
import redis
from rq import Worker

from service.runtime.cli import main, parser
from service.runtime.embedded_redis import free_port
from service.runtime.reuse_port import bound, claim

ROOT = Path(__file__).resolve().parents[2]


def wait_until_ready(url: str, proc: subprocess.Popen[bytes], deadline_seconds: float = 60.0) -> None:
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, "atout serve exited early"
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} never became ready")


def accepts_connections(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def serve_without_redis_url(
    tmp_path: Path, port: int, extra_env: dict[str, str], output: int
) -> subprocess.Popen[bytes]:
    """``atout serve`` as a fresh machine runs it: no Redis URL, so it embeds its own."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "ATOUT_REDIS_URL"}}
    env.update(ATOUT_DATA_DIR=str(tmp_path / "redis"), PYTHONPATH=str(ROOT), **extra_env)
    return subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT if output == subprocess.PIPE else output,
    )


def test_serve_without_redis_url_runs_embedded_redis_and_a_worker(tmp_path: Path) -> None:
    port = free_port()
    proc = serve_without_redis_url(tmp_path, port, {"ATOUT_LOG_JSON": "true"}, subprocess.PIPE)
    redis_url = ""
    try:
        wait_until_ready(f"http://127.0.0.1:{port}/readyz", proc)
        conf = (tmp_path / "redis").iterdir()
        assert any(p.name in {"appendonlydir", "appendonly.aof"} for p in conf)
        redis_url = (tmp_path / "redis" / "redis.url").read_text().strip()
        connection = redis.Redis.from_url(redis_url)
        deadline = time.monotonic() + 60
        while len(Worker.all(connection=connection)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        names = sorted(q for w in Worker.all(connection=connection) for q in w.queue_names())
        assert names == ["atout-bots", "atout-bots-expert", "atout-webhooks"]  # one worker per queue
        connection.close()
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert proc.returncode == 0, output
    assert "embedded_redis_stopped" in output
    assert not accepts_connections(int(redis_url.rsplit(":", 1)[1].split("/")[0]))
    assert not (tmp_path / "redis" / "redis.url").exists()


def test_worker_refuses_to_run_without_redis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    from service.base.settings import get_settings

    get_settings.cache_clear()
    try:
        assert main(["worker", "--burst"]) == 2
    finally:
        get_settings.cache_clear()


def test_the_parser_knows_the_three_commands() -> None:
    p = parser()
    for command in ("serve", "worker", "openapi"):
        assert p.parse_args([command]).command == command


def test_openapi_command_prints_the_document(tmp_path: Path) -> None:
    out = tmp_path / "openapi.json"
    assert main(["openapi", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["openapi"].startswith("3.1")


def serve_two_workers(tmp_path: Path, redis_url: str, port: int) -> subprocess.Popen[bytes]:
    """``atout serve --workers 2`` on ``port`` against the test Redis, metrics in a folder of its own."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(REDIS_URL=redis_url, PYTHONPATH=str(ROOT), ATOUT_LOG_LEVEL="warning")
    return subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--workers", "2"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_metrics_add_up_over_several_uvicorn_workers(tmp_path: Path, redis_url: str) -> None:
    port = free_port()
    proc = serve_two_workers(tmp_path, redis_url, port)
    try:
        wait_until_ready(f"http://127.0.0.1:{port}/readyz", proc)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            before = healthz_count(http.get("/metrics").text)
            for _ in range(40):
                http.get("/healthz", headers={"Connection": "close"})
            # a worker counts a request just after answering it: read until the last count lands
            deadline = time.monotonic() + 30
            while (after := healthz_count(http.get("/metrics").text)) - before < 40:
                assert time.monotonic() < deadline, f"only {after - before} of 40 requests counted"
                time.sleep(0.05)
        assert after - before == 40
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)


def test_each_uvicorn_worker_listens_on_a_socket_of_its_own(tmp_path: Path, redis_url: str) -> None:
    """``--workers 2``: each worker binds the address with SO_REUSEPORT and listens on its own socket
    (service/runtime/reuse_port.py), so 32 clients connecting at once are spread by the kernel, not
    all accepted by the worker awake first (issue 38 saw 27 to 31 of 32 on one worker)."""
    port = free_port()
    proc = serve_two_workers(tmp_path, redis_url, port)
    clients: list[socket.socket] = []
    try:
        wait_until_ready(f"http://127.0.0.1:{port}/readyz", proc)
        workers = [p for p in psutil.Process(proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]
        deadline = time.monotonic() + 30  # /readyz answered by one worker: the other may still start
        while True:
            listening = {w.pid: [c for c in w.net_connections() if c.status == "LISTEN"] for w in workers}
            if len(workers) == 2 and all(len(held) == 1 for held in listening.values()):
                break
            assert time.monotonic() < deadline, listening
            time.sleep(0.1)
        assert {held[0].laddr.port for held in listening.values()} == {port}
        assert not [c for c in psutil.Process(proc.pid).net_connections("tcp") if c.status == "LISTEN"]
        for _ in range(32):  # all at once, as a pool of keep-alive clients opens
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        for client in clients:
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert client.recv(4096).startswith(b"HTTP/1.1 200")
        shares = sorted(
            sum(1 for c in w.net_connections("tcp") if c.status == "ESTABLISHED" and c.laddr.port == port)
            for w in workers
        )
        assert sum(shares) == 32 and shares[0] >= 4, shares  # by hash: 4 or fewer is one chance in 10^6
    finally:
        for client in clients:
            client.close()
        proc.send_signal(signal.SIGINT)
        proc.wait(60)


def test_a_second_server_on_the_same_port_is_refused_not_let_into_its_group(
    tmp_path: Path, redis_url: str
) -> None:
    """SO_REUSEPORT lets any process of the same user bind a port already in a group: a second
    ``atout serve --workers 2`` on the first one's port must fail (exit 3, saying why) rather than
    take a share of its connections (service.runtime.reuse_port.claim)."""
    port = free_port()
    first = serve_two_workers(tmp_path, redis_url, port)
    try:
        wait_until_ready(f"http://127.0.0.1:{port}/readyz", first)
        env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT), "ATOUT_LOG_LEVEL": "warning"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        second = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(port), "--workers", "2"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its workers too are stopped below, should it start them
        )
        try:
            _, said = second.communicate(timeout=60)
        finally:
            if second.poll() is None:
                os.killpg(second.pid, signal.SIGKILL)
                second.wait(10)
        assert second.returncode == 3, said[-2000:]
        assert f"cannot listen on 127.0.0.1:{port}" in said and "in use" in said
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200  # the first serves on
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(60)


def test_the_supervisor_claims_a_free_address_and_its_workers_join_it() -> None:
    """A free port is claimed (bound, SO_REUSEPORT, not listening) and a worker's socket joins it;
    a port where a server listens, alone or in a SO_REUSEPORT group, is refused."""
    with claim("127.0.0.1", 0) as held:
        port = held.getsockname()[1]
        with bound("127.0.0.1", port) as worker:
            worker.listen()
            with pytest.raises(OSError):
                claim("127.0.0.1", port)
    with socket.socket() as plain:
        plain.bind(("127.0.0.1", 0))
        plain.listen()
        with pytest.raises(OSError):
            claim("127.0.0.1", plain.getsockname()[1])


def healthz_count(metrics: str) -> float:
    for line in metrics.splitlines():
        if (
            line.startswith("atout_http_requests_total{")
            and 'route="/healthz"' in line
            and 'status="200"' in line
        ):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_nothing_outlives_a_killed_serve(tmp_path: Path) -> None:
    port = free_port()
    proc = serve_without_redis_url(tmp_path, port, {"ATOUT_LOG_LEVEL": "warning"}, subprocess.DEVNULL)
    wait_until_ready(f"http://127.0.0.1:{port}/readyz", proc)
    redis_port = int((tmp_path / "redis" / "redis.url").read_text().strip().rsplit(":", 1)[1].split("/")[0])
    children = [
        int(p)
        for p in (Path("/proc") / str(proc.pid) / "task" / str(proc.pid) / "children").read_text().split()
    ]
    assert len(children) == 5  # redis-server, three workers (fast, expert, webhooks), the matcher
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 60
    while any(Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid) for pid in children):
        assert time.monotonic() < deadline, "a child of atout serve outlived it"
        time.sleep(0.1)
    assert not accepts_connections(redis_port)


def _state(pid: int) -> str:
    try:
        return (
            (Path("/proc") / str(pid) / "status").read_text().split("State:", 1)[1].split("\n", 1)[0].lower()
        )
    except (FileNotFoundError, IndexError):
        return "zombie"
