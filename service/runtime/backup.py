"""``atout backup`` and ``atout restore``: a consistent RDB snapshot of the game store, and a new data
folder for ``atout serve`` made from one.

Two ways to take the snapshot, because neither works everywhere:

- **The embedded Redis** (no ``REDIS_URL``; the one ``atout serve`` runs in ``ATOUT_DATA_DIR``):
  ``BGSAVE``, wait for it, copy the server's ``dump.rdb``. The fork makes it consistent (one instant
  of every game), and nothing else changes for the players.
- **Any other Redis** (``REDIS_URL``): its files are on another machine, so the snapshot comes over the
  connection, as ``redis-cli --rdb`` takes it: ``SYNC``, and the master streams a fresh RDB. For that
  moment the master counts one more replica, one that never acknowledges anything: with
  ``ATOUT_REDIS_WAIT_REPLICAS`` (default 1) and no real replica, a move made meanwhile waits its
  ``ATOUT_REDIS_WAIT_MS`` and answers 503 ``store_unavailable`` (retry with the same Idempotency-Key).
  That is why the embedded Redis is not backed up this way.

A restore loads the RDB into a redis-server started on a new folder with the AOF off, turns the AOF
on (Redis writes it from the loaded data), stops it, then starts it once more as ``atout serve``
will, from the AOF alone, and checks it holds as many keys as the snapshot.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import redis
from rq import Queue
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer

from service.base.settings import get_settings
from service.runtime.embedded_redis import EmbeddedRedis, EmbeddedRedisError
from service.runtime.redis_binary import RedisBinaryNotFound
from workers.jobs.watchdog import enqueue_bot_turns_of_every_game

RDB_MAGIC = re.compile(rb"REDIS\d{4}")
"""An RDB file starts with ``REDIS`` and its format version in four digits."""

RDB_EOF = 0xFF
"""An RDB file's last opcode; eight bytes of checksum follow it (a truncated copy lacks it)."""

SYNC_MARK_LENGTH = 40
"""A diskless master sends ``$EOF:<40 bytes>`` and ends the RDB with the same 40 bytes."""

CHUNK = 1 << 20


class BackupError(RuntimeError):
    """A backup or restore that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class Snapshot:
    path: Path
    size: int
    seconds: float
    keys: int
    method: str  # "bgsave", "sync" or "sync diskless"


@dataclass(frozen=True)
class Restored:
    data_dir: Path
    keys: int
    seconds: float
    requeued: int  # RQ jobs that were running at the snapshot, put back in their queues
    resumed: int  # bot turns due at the snapshot, enqueued (a no-op for one already queued)


def _client(url: str, timeout: float) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=5)


def _reach(client: redis.Redis, where: str) -> int:
    """The server's key count, or a BackupError naming what could not be reached."""
    try:
        return int(client.dbsize())
    except redis.exceptions.RedisError as error:
        raise BackupError(f"Redis at {where} does not answer: {error}") from error


def _atomic_copy(source: BinaryIO, target: Path, size: int | None, mark: bytes | None = None) -> int:
    """Write ``source`` to ``target`` through a temporary file renamed at the end, so a failed copy
    never leaves a file that looks like a backup. ``size``: read exactly that many bytes; else read
    until ``mark`` ends the stream (a diskless master's RDB), the mark itself left out."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    written = 0
    try:
        # every token and key of every game is in it: readable by its owner alone, as redis.url
        with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            if size is not None:
                while written < size:
                    chunk = source.read(min(CHUNK, size - written))
                    if not chunk:
                        raise BackupError(f"the snapshot ended after {written} of {size} bytes")
                    out.write(chunk)
                    written += len(chunk)
            else:
                assert mark is not None
                pending = b""
                while (end := pending.find(mark)) < 0:
                    chunk = source.read1(CHUNK)  # type: ignore[attr-defined]  # a buffered socket file
                    if not chunk:
                        raise BackupError("the snapshot stream ended before its end mark")
                    pending += chunk
                    if pending.find(mark) < 0 and len(pending) > SYNC_MARK_LENGTH:
                        out.write(pending[:-SYNC_MARK_LENGTH])  # the mark may start in what is kept
                        written += len(pending) - SYNC_MARK_LENGTH
                        pending = pending[-SYNC_MARK_LENGTH:]
                out.write(pending[:end])  # a diskless master goes on with its write stream after the mark
                written += end
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return written


def embedded_url(data_dir: Path) -> str:
    """The URL of the embedded Redis a running ``atout serve`` wrote in its data folder."""
    try:
        return (data_dir / "redis.url").read_text().strip()
    except OSError as error:
        raise BackupError(
            f"no running atout serve in {data_dir} (cannot read {data_dir / 'redis.url'}: "
            f"{error.strerror}); start it, or set ATOUT_DATA_DIR to its folder, or REDIS_URL"
        ) from error


def _persistence(client: redis.Redis) -> dict[str, Any]:
    info: dict[str, Any] = client.info("persistence")
    return info


def snapshot_by_bgsave(url: str, target: Path, timeout: float = 300.0) -> Snapshot:
    """``BGSAVE`` on a Redis whose folder is on this machine (the embedded one), wait for it, copy its
    ``dump.rdb`` to ``target``, and remove that copy from the server's folder (the AOF is what the
    embedded server loads; a second, stale copy of every game there would only mislead)."""
    started = time.monotonic()
    client = _client(url, timeout=30)
    try:
        keys = _reach(client, "the embedded server")
        folder = Path(str(client.config_get("dir")["dir"]))
        dump = folder / str(client.config_get("dbfilename")["dbfilename"])
        before = int(client.lastsave().timestamp())
        while int(time.time()) <= before:  # LASTSAVE counts seconds: one more save must show
            time.sleep(0.05)
        client.bgsave(schedule=True)  # after an AOF rewrite in progress, if there is one
        deadline = time.monotonic() + timeout
        while True:
            state = _persistence(client)
            busy = state.get("rdb_bgsave_in_progress") or state.get("aof_rewrite_in_progress")
            if not busy and int(client.lastsave().timestamp()) > before:
                break
            if not busy and state.get("rdb_last_bgsave_status") == "err":
                raise BackupError(f"Redis could not write its snapshot: read {folder / 'redis.log'}")
            if time.monotonic() > deadline:
                raise BackupError(f"the snapshot took more than {timeout:.0f} s: read {folder / 'redis.log'}")
            time.sleep(0.02)
        with open(dump, "rb") as source:
            size = _atomic_copy(source, target, os.fstat(source.fileno()).st_size)
        dump.unlink(missing_ok=True)
    except redis.exceptions.RedisError as error:
        raise BackupError(f"Redis stopped answering during the snapshot: {error}") from error
    finally:
        client.close()
    return Snapshot(target, size, time.monotonic() - started, keys, "bgsave")


def snapshot_by_sync(url: str, target: Path, timeout: float = 300.0) -> Snapshot:
    """The snapshot a master streams to a new replica (``SYNC``), as ``redis-cli --rdb`` saves it:
    for a Redis whose files are not on this machine."""
    started = time.monotonic()
    client = _client(url, timeout=timeout)
    connection: Any = None
    try:
        keys = _reach(client, "REDIS_URL")
        connection = client.connection_pool.get_connection()
        # "eof": a diskless master may stream the snapshot without writing it to its disk first
        for option in (("capa", "eof"), ("rdb-only", "1")):  # rdb-only (Redis 7): no write stream after it
            with contextlib.suppress(redis.exceptions.ResponseError):
                connection.send_command("REPLCONF", *option)
                connection.read_response()
        connection.send_command("SYNC")
        sock = connection._sock  # the RDB is raw bytes after one header line: read past the parser
        if sock is None:
            raise BackupError("the connection to Redis closed before the snapshot")
        with sock.makefile("rb") as stream:
            header = b"\n"
            while header == b"\n":  # newlines: the master is still writing the snapshot
                header = stream.readline()
            if header.startswith(b"-"):
                raise BackupError(f"Redis refused SYNC: {header[1:].decode(errors='replace').strip()}")
            if not header.startswith(b"$") or not header.endswith(b"\r\n"):
                raise BackupError(f"Redis answered SYNC with {header[:60]!r}, not a snapshot")
            body = header[1:-2]
            if body.startswith(b"EOF:"):
                method = "sync diskless"
                size = _atomic_copy(stream, target, None, mark=body[4:])
            else:
                method = "sync"
                size = _atomic_copy(stream, target, int(body))
    except (redis.exceptions.RedisError, OSError) as error:
        raise BackupError(f"the snapshot over the connection failed: {error}") from error
    finally:
        if connection is not None:
            connection.disconnect()  # the master drops the would-be replica
        client.close()
    return Snapshot(target, size, time.monotonic() - started, keys, method)


def check_rdb(path: Path) -> int:
    """The size of ``path`` when it looks like a whole RDB file (magic, end opcode before the
    checksum), else a BackupError saying what it is not."""
    try:
        with open(path, "rb") as source:
            head = source.read(9)
            size = os.fstat(source.fileno()).st_size
            source.seek(max(0, size - 9))
            end = source.read(1)
    except FileNotFoundError as error:
        raise BackupError(f"{path} does not exist") from error
    except OSError as error:
        raise BackupError(f"cannot read {path}: {error.strerror}") from error
    if not RDB_MAGIC.fullmatch(head):
        raise BackupError(f"{path} is not a Redis RDB snapshot (it does not start with REDIS and a version)")
    if size < 18 or end != bytes([RDB_EOF]):
        raise BackupError(f"{path} is a truncated RDB snapshot (no end marker): take the backup again")
    return size


def restore(source: Path, data_dir: Path, wait_seconds: float = 300.0) -> Restored:
    """A new data folder for ``atout serve`` holding what ``source`` (an RDB snapshot) holds, as an AOF.
    Refuses a folder that already has anything in it: a restore never mixes with or replaces games.
    A restore that fails leaves the folder empty again, ready for the next attempt."""
    started = time.monotonic()
    check_rdb(source)
    data_dir = data_dir.resolve()
    if data_dir.exists() and (not data_dir.is_dir() or any(data_dir.iterdir())):
        raise BackupError(
            f"{data_dir} is not an empty folder: restore into a new one, then point ATOUT_DATA_DIR at it"
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copyfile(source, data_dir / "dump.rdb")
        keys, requeued, resumed = _load_into_aof(data_dir, source, wait_seconds)
        (data_dir / "dump.rdb").unlink()
        reloaded = _count_keys(data_dir, wait_seconds)  # as atout serve starts it: from the AOF alone
        if reloaded != keys:
            raise BackupError(f"the restored AOF holds {reloaded} keys, the snapshot {keys}")
    except BaseException:
        for entry in data_dir.iterdir():  # it was empty: everything in it is this restore's
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        raise
    return Restored(data_dir, keys, time.monotonic() - started, requeued, resumed)


def requeue_abandoned_jobs(client: redis.Redis) -> int:
    """Every RQ job the snapshot shows running (a bot turn, a timer, a webhook delivery) was running
    on a worker that is not coming back: hand each to RQ's own path for a dead worker's job now (a
    retry if it has one left, else the failed registry, which the bot-turn watchdog reads), instead
    of leaving the turn waiting for the job's timeout to pass first. Returns how many there were."""
    count = 0
    for queue in Queue.all(connection=client, serializer=JSONSerializer):
        running = StartedJobRegistry(queue=queue)
        count += len(running.get_job_ids(cleanup=False))
        running.cleanup(timestamp=time.time() + 10 * 365 * 86400)  # every one expired: none will end
    return count


def _load_into_aof(data_dir: Path, source: Path, wait_seconds: float) -> tuple[int, int, int]:
    """Start a redis-server on ``data_dir``'s ``dump.rdb`` with the AOF off, put back the jobs it shows
    running, enqueue every bot turn due (the snapshot may fall between a move's write and its bot
    turn's enqueue), turn the AOF on (Redis writes it from the loaded data), wait for it and stop the
    server; the number of keys, of jobs put back and of bot turns enqueued."""
    loader = EmbeddedRedis(data_dir, appendonly=False, maxmemory="0")
    try:
        try:
            loader.start(attempts=1, wait_seconds=wait_seconds)
        except (EmbeddedRedisError, RedisBinaryNotFound) as error:
            raise BackupError(f"redis-server could not load {source}: {error}") from error
        client = _client(loader.url, timeout=30)
        try:
            requeued = requeue_abandoned_jobs(client)
            restored = {"redis_url": loader.url, "queue_url": None, "redis_cluster": False}
            resumed = enqueue_bot_turns_of_every_game(get_settings().model_copy(update=restored))
            keys = int(client.dbsize())
            client.config_set("appendonly", "yes")
            deadline = time.monotonic() + wait_seconds
            while True:
                state = _persistence(client)
                if not state.get("aof_rewrite_in_progress") and not state.get("aof_rewrite_scheduled"):
                    if state.get("aof_last_bgrewrite_status") != "ok":
                        raise BackupError(f"Redis could not write the AOF: read {data_dir / 'redis.log'}")
                    return keys, requeued, resumed
                if time.monotonic() > deadline:
                    raise BackupError(f"writing the AOF took more than {wait_seconds:.0f} s")
                time.sleep(0.02)
        finally:
            client.close()
    finally:
        loader.stop()


def _count_keys(data_dir: Path, wait_seconds: float) -> int:
    check = EmbeddedRedis(data_dir, appendonly=True, maxmemory="0")
    try:
        try:
            check.start(attempts=1, wait_seconds=wait_seconds)
        except EmbeddedRedisError as error:
            raise BackupError(f"the restored folder does not start: {error}") from error
        client = _client(check.url, timeout=30)
        try:
            return int(client.dbsize())
        finally:
            client.close()
    finally:
        check.stop()


def backup_command(args: argparse.Namespace) -> int:
    settings = get_settings()
    target = Path(args.to)
    try:
        if settings.redis_cluster:
            raise BackupError(
                "REDIS_URL names a Redis Cluster: back up each master (redis-cli --rdb against each, "
                "docs/operations.md)"
            )
        if settings.redis_url:
            done = snapshot_by_sync(settings.redis_url, target, timeout=args.timeout)
        else:
            url = embedded_url(Path(settings.data_dir).resolve())
            done = snapshot_by_bgsave(url, target, timeout=args.timeout)
    except BackupError as error:
        print(f"atout backup: {error}", file=sys.stderr)
        return 2
    print(
        f"atout backup: {done.size} bytes in {done.path} ({done.method}, {done.seconds:.2f} s; the store "
        f"had {done.keys} keys as it began)"
    )
    return 0


def restore_command(args: argparse.Namespace) -> int:
    data_dir = Path(args.data or get_settings().data_dir)
    try:
        done = restore(Path(args.source), data_dir, wait_seconds=args.timeout)
    except BackupError as error:
        print(f"atout restore: {error}", file=sys.stderr)
        return 2
    print(
        f"atout restore: {done.keys} keys into {done.data_dir} ({done.seconds:.2f} s; {done.requeued} "
        f"running jobs handed back to RQ, {done.resumed} bot turns enqueued); start it with "
        f"ATOUT_DATA_DIR={done.data_dir} atout serve"
    )
    return 0


def add_commands(sub: Any) -> None:
    """``atout backup`` and ``atout restore`` on the ``atout`` command's subparsers."""
    b = sub.add_parser(
        "backup",
        help="write a consistent RDB snapshot of the game store (the embedded Redis, or REDIS_URL)",
    )
    b.add_argument("--to", required=True, help="the snapshot file to write (replaced when it exists)")
    b.add_argument("--timeout", type=float, default=300.0, help="seconds the snapshot may take")
    b.set_defaults(func=backup_command)
    r = sub.add_parser(
        "restore", help="make a new data folder for atout serve (ATOUT_DATA_DIR) from an RDB snapshot"
    )
    r.add_argument("--from", dest="source", required=True, help="the RDB snapshot (atout backup --to)")
    r.add_argument("--data", default=None, help="the new, empty data folder (default ATOUT_DATA_DIR)")
    r.add_argument("--timeout", type=float, default=300.0, help="seconds loading and writing may take")
    r.set_defaults(func=restore_command)
