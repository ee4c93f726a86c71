"""The backup and restore drill (issue 26): ``atout serve`` on its embedded Redis with matches of the
three games in play (REST seats, built-in bots, a bot account), ``atout backup`` while they are played,
the service stopped, ``atout restore`` into a new data folder and ``atout serve`` started on it: every
game, seat token and the bot account are back, the matches play on to the end, and a client resumes a
game's event stream from its last event id. Then each refusal of the two commands."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from rq import Queue, Retry
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.serializers import JSONSerializer
from starlette.testclient import TestClient
from svc_helpers import FAST_OPTIONS, UNLIMITED_RATES, Table, auth, create, fill

from service.base.settings import get_settings
from service.runtime.cli import main
from service.runtime.embedded_redis import EmbeddedRedis, free_port
from workers.jobs.queue import DUE_KEY, due_member, job_id

ROOT = Path(__file__).resolve().parents[2]
ADMIN = "admin-secret-for-the-restore-drill"
# seat 0 a person (REST token), seat 1 a built-in bot, seat 2 the bot account, the rest built-in bots
SEATS = {
    "rough": ["open", "bot:random", "open", "bot:heuristic"],
    "five_hundred": ["open", "bot:heuristic", "open", "bot:random"],
    "euchre5": ["open", "bot:random", "open", "bot:random", "bot:heuristic"],
}
OURS = {0, 2}


def atout(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.runtime.cli", *args],
        env={**base_env(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "ATOUT_REDIS_URL"}}
    return {**env, "PYTHONPATH": str(ROOT), "ATOUT_LOG_LEVEL": "warning", "ATOUT_BOT_BUDGET": "0.01"}


class Served:
    """``atout serve`` on ``data`` (its embedded Redis and workers), on a free loopback port."""

    def __init__(self, data: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**base_env(), **UNLIMITED_RATES, "ATOUT_DATA_DIR": str(data), "ATOUT_ADMIN_TOKEN": ADMIN}
        self.output = open(log, "ab")  # noqa: SIM115  # closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", "serve", "--port", str(self.port)],
            env=env,
            cwd=data.parent,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 90
        while True:
            assert self.proc.poll() is None, log.read_text()[-3000:]
            try:
                ready = httpx.get(f"{self.url}/readyz", timeout=2).json()
                if ready.get("status") == "ready":  # the store answers and every queue has a worker
                    break
            except (httpx.TransportError, ValueError):
                pass
            assert time.monotonic() < deadline, "atout serve did not become ready"
            time.sleep(0.1)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            assert self.proc.wait(60) == 0
        finally:
            self.output.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[list[Served]]:
    running: list[Served] = []
    try:
        yield running
    finally:
        for server in running:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(30)
                server.output.close()


def events(http: httpx.Client, table: Table, after: str | None = None) -> list[dict[str, Any]]:
    """Seat 0's events so far (SSE, ``follow=false``), after ``after`` when given (Last-Event-ID)."""
    headers = auth(table.tokens[0]) | ({"Last-Event-ID": after} if after else {})
    answer = http.get(f"/v1/games/{table.game_id}/events?follow=false", headers=headers)
    assert answer.status_code == 200, answer.text
    return [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]


def sse(http: httpx.Client, table: Table, after: str) -> list[dict[str, Any]]:
    """Seat 0's SSE frames after ``after``, each ``data`` with its ``event`` name."""
    headers = auth(table.tokens[0]) | {"Last-Event-ID": after}
    answer = http.get(f"/v1/games/{table.game_id}/events?follow=false", headers=headers)
    assert answer.status_code == 200, answer.text
    frames, name = [], "message"
    for line in answer.text.splitlines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            frames.append({"event": name, **json.loads(line[6:])})
    return frames


def open_tables(http: httpx.Client, bot_key: str) -> list[Table]:
    tables = []
    for n, (game, seats) in enumerate(SEATS.items()):
        body = {"kind": game, "seed": str(700 + n), "options": FAST_OPTIONS[game], "seats": seats}
        created = http.post("/v1/games", json=body, headers=auth(ADMIN))
        assert created.status_code == 201, created.text
        table = Table(http, created.json()["game"]["game_id"])  # type: ignore[arg-type]  # an httpx client
        for seat in sorted(OURS):
            headers = auth(bot_key) if seat == 2 else {}
            joined = http.post(f"/v1/games/{table.game_id}/join", json={"seat": seat}, headers=headers)
            assert joined.status_code == 201, joined.text
            table.tokens[seat] = joined.json()["token"]
        tables.append(table)
    return tables


def play_our_turns(
    tables: list[Table], rng: random.Random, stop: threading.Event, moves: list[int], pace: list[float]
) -> None:
    """Our seats' moves, one table after the other, a round every ``pace[0]`` seconds, until ``stop``
    (the bots play in the workers)."""
    while not stop.is_set():
        for table in tables:
            game = table.game()
            if game["status"] == "finished" or game["to_act"] not in OURS:
                continue
            seat = game["to_act"]
            answer = table.act(
                seat, fill(rng.choice(table.legal(seat)), rng), expected_version=game["version"]
            )
            assert answer.status_code in {200, 409}, answer.text  # 409: a bot's timer beat us to it
            moves[0] += answer.status_code == 200
        time.sleep(pace[0])


def finish(tables: list[Table], rng: random.Random, deadline_seconds: float = 120) -> None:
    deadline = time.monotonic() + deadline_seconds
    while any(t.game()["status"] != "finished" for t in tables):
        assert time.monotonic() < deadline, [t.game() for t in tables]
        for table in tables:
            game = table.game()
            if game["status"] != "finished" and game["to_act"] in OURS:
                seat = game["to_act"]
                answer = table.act(
                    seat, fill(rng.choice(table.legal(seat)), rng), expected_version=game["version"]
                )
                assert answer.status_code == 200, answer.text
        time.sleep(0.01)


def test_a_backup_taken_while_games_are_played_restores_every_game_seat_and_bot(
    tmp_path: Path, served: list[Served]
) -> None:
    rng = random.Random(26)
    first = Served(tmp_path / "data", tmp_path / "serve.log")
    served.append(first)
    with httpx.Client(base_url=first.url, timeout=30) as http:
        bot = http.post("/v1/bots", json={"name": "restored-bot"}).json()
        tables = open_tables(http, bot["api_key"])
        stop, moves, pace = threading.Event(), [0], [0.01]
        player = threading.Thread(target=play_our_turns, args=(tables, rng, stop, moves, pace), daemon=True)
        player.start()
        while moves[0] < 9:  # into each match
            assert player.is_alive()
            time.sleep(0.05)
        # slower while the backup runs (its command takes seconds to start): the matches must still
        # be in play at the snapshot, and go on after the restore
        pace[0] = 0.4
        seen = [events(http, t) for t in tables]  # what each client has read before the backup
        before = [t.game()["version"] for t in tables]
        moves_before = moves[0]
        backup = atout(
            "backup", "--to", str(tmp_path / "atout.rdb"), env={"ATOUT_DATA_DIR": str(tmp_path / "data")}
        )
        after = [t.game()["version"] for t in tables]
        played_during = moves[0] - moves_before
        # Moves made after the snapshot, which the restore loses: the resync checked at the end needs
        # some (the backup can end before the player's next move, 0.4 s apart).
        moves_after = moves[0]
        deadline = time.monotonic() + 30
        while moves[0] < moves_after + 2 and player.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        player.join(30)
        assert played_during > 0  # the snapshot was taken while the games were played
        assert backup.returncode == 0, backup.stderr
        assert not (tmp_path / "data" / "dump.rdb").exists()  # no stale copy left beside the AOF
        assert (tmp_path / "atout.rdb").stat().st_mode & 0o777 == 0o600  # it holds every token
        final = [t.game()["version"] for t in tables]
        late = [events(http, t) for t in tables]  # a client that read on until the stop
    first.stop()
    served.remove(first)
    print(backup.stdout.strip(), f"({played_during} moves by our seats while the command ran)")

    restore = atout("restore", "--from", str(tmp_path / "atout.rdb"), "--data", str(tmp_path / "restored"))
    assert restore.returncode == 0, restore.stderr
    print(restore.stdout.strip())
    second = Served(tmp_path / "restored", tmp_path / "serve2.log")
    served.append(second)
    with httpx.Client(base_url=second.url, timeout=30) as http:
        for table in tables:
            table.client = http  # type: ignore[assignment]  # the same seat tokens, the restored service
        restored = [t.game()["version"] for t in tables]
        for was, now, end in zip(before, restored, final, strict=True):
            assert was <= now <= end  # the snapshot is one instant between the backup's start and end
        assert [t.game()["status"] for t in tables] == ["active"] * 3  # to be played on after the restore
        print(f"versions before the backup {before}, after it {after}, at stop {final}, restored {restored}")
        for table in tables:
            for seat in OURS:  # every seat token works: its legal moves, or none when not to act
                assert (
                    http.get(f"/v1/games/{table.game_id}/view", headers=auth(table.tokens[seat])).status_code
                    == 200
                )
        me = http.get("/v1/bots/me", headers=auth(bot["api_key"]))
        assert me.status_code == 200, me.text
        assert sorted(s["game_id"] for s in me.json()["seats"]) == sorted(t.game_id for t in tables)

        # the stream resumes from the last id each client read before the backup: exactly what follows
        for table, old in zip(tables, seen, strict=True):
            now = events(http, table)
            assert now[: len(old)] == old  # the restored stream starts as the one the client read
            assert events(http, table, after=old[-1]["id"]) == now[len(old) :]

        started = time.monotonic()
        finish(tables, rng)
        print(
            f"the three matches finished {time.monotonic() - started:.1f} s after the restored service was up"
        )
        for table, old in zip(tables, seen, strict=True):
            rest = events(http, table, after=old[-1]["id"])
            whole = events(http, table)
            assert whole[: len(old)] == old and rest == whole[len(old) :]
            kinds = [frame["event"]["type"] for frame in rest]
            assert "game_finished" in kinds, kinds[-4:]
            assert table.game()["version"] > restored[tables.index(table)]  # moves made after the restore
        # a client that read on past the snapshot holds an id the restored stream never had: following
        # on would show it the lost moves' versions again, with other moves; it is told to resync
        assert any(end > was for was, end in zip(restored, final, strict=True))  # some moves were lost
        for table, read, was, end in zip(tables, late, restored, final, strict=True):
            if end == was:
                continue  # no move of this game was lost
            frames = sse(http, table, after=read[-1]["id"])
            assert [(f["event"], f["code"]) for f in frames] == [("resync", "stream_window_passed")], frames
            assert "restored from a backup" in frames[0]["detail"]
            assert frames[0]["last_event_id"] == events(http, table)[-1]["id"]
    second.stop()
    served.remove(second)


def run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str], *args: str
) -> tuple[int, str, str]:
    """``atout <args>`` in this process (a subprocess costs seconds of imports each), with ``env``."""
    for name in ("REDIS_URL", "ATOUT_REDIS_URL", "ATOUT_REDIS_CLUSTER", "ATOUT_QUEUE_URL", "ATOUT_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        code = main(list(args))
    finally:
        get_settings.cache_clear()
    out = capsys.readouterr()
    return code, out.out, out.err


def test_backup_and_restore_refusals(
    tmp_path: Path,
    redis_server: EmbeddedRedis,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def atout(*args: str, **env: str) -> tuple[int, str, str]:
        return run(monkeypatch, capsys, env, *args)

    # Redis unreachable: no running atout serve in the data folder, or REDIS_URL to nothing
    code, _, err = atout("backup", "--to", str(tmp_path / "x.rdb"), ATOUT_DATA_DIR=str(tmp_path / "none"))
    assert code == 2 and "no running atout serve in" in err, err
    dead = f"redis://127.0.0.1:{free_port()}/0"
    code, _, err = atout("backup", "--to", str(tmp_path / "x.rdb"), REDIS_URL=dead)
    assert code == 2 and "does not answer" in err, err
    assert not (tmp_path / "x.rdb").exists()
    code, _, err = atout(
        "backup",
        "--to",
        str(tmp_path / "x.rdb"),
        REDIS_URL=dead,
        ATOUT_REDIS_CLUSTER="1",
        ATOUT_QUEUE_URL=dead,
    )
    assert code == 2 and "back up each master" in err, err

    # a backup of any REDIS_URL (the session's server here) comes over the connection
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.set("atout:probe", "kept")
    client.close()
    code, out, err = atout("backup", "--to", str(tmp_path / "good.rdb"), REDIS_URL=redis_server.url)
    assert code == 0 and "(sync," in out, err

    # restore: a missing file, a file that is no RDB, a truncated one, a folder not empty
    code, _, err = atout("restore", "--from", str(tmp_path / "nope.rdb"), "--data", str(tmp_path / "a"))
    assert code == 2 and "does not exist" in err, err
    (tmp_path / "text.rdb").write_text("not a snapshot at all\n")
    code, _, err = atout("restore", "--from", str(tmp_path / "text.rdb"), "--data", str(tmp_path / "a"))
    assert code == 2 and "is not a Redis RDB snapshot" in err, err
    good = (tmp_path / "good.rdb").read_bytes()
    (tmp_path / "cut.rdb").write_bytes(good[: len(good) // 2])
    code, _, err = atout("restore", "--from", str(tmp_path / "cut.rdb"), "--data", str(tmp_path / "a"))
    assert code == 2 and "truncated" in err, err
    assert not (tmp_path / "a").exists()  # nothing made for a refused file
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "appendonly.aof").write_text("someone's games\n")
    code, _, err = atout("restore", "--from", str(tmp_path / "good.rdb"), "--data", str(tmp_path / "busy"))
    assert code == 2 and "is not an empty folder" in err, err
    assert (tmp_path / "busy" / "appendonly.aof").read_text() == "someone's games\n"  # untouched

    # an RDB of a format this redis-server cannot read: refused with Redis's reason, the folder left empty
    (tmp_path / "future.rdb").write_bytes(b"REDIS0099" + good[9:])
    code, _, err = atout("restore", "--from", str(tmp_path / "future.rdb"), "--data", str(tmp_path / "b"))
    assert code == 2 and "could not load" in err, err
    assert list((tmp_path / "b").iterdir()) == []

    code, out, err = atout(
        "restore", "--from", str(tmp_path / "good.rdb"), ATOUT_DATA_DIR=str(tmp_path / "b")
    )
    assert code == 0 and "1 keys into" in out, err
    with EmbeddedRedis(tmp_path / "b") as again:
        check = redis.Redis.from_url(again.url)
        assert check.get("atout:probe") == b"kept"
        check.close()


def test_a_job_running_at_the_snapshot_is_handed_back_to_rq_on_restore(
    tmp_path: Path,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No worker survives a restore: a job the snapshot shows running would otherwise wait for its
    timeout (60 s for a bot turn) before RQ noticed; the restore retries it at once."""
    connection = redis.Redis.from_url(redis_url)
    queue = Queue("atout-bots", connection=connection, serializer=JSONSerializer)
    job = queue.enqueue_call("time.sleep", args=(60,), retry=Retry(max=2), timeout=120)
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.cli", "worker", "--queues", "fast", "--metrics-port", "0"],
        env={**base_env(), "REDIS_URL": redis_url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while job.get_status(refresh=True) != "started":
            assert worker.poll() is None and time.monotonic() < deadline, job.get_status()
            time.sleep(0.1)
        code, out, err = run(
            monkeypatch, capsys, {"REDIS_URL": redis_url}, "backup", "--to", str(tmp_path / "b.rdb")
        )
        assert code == 0, err
    finally:
        worker.kill()
        worker.wait(30)
        connection.close()
    code, out, err = run(
        monkeypatch, capsys, {}, "restore", "--from", str(tmp_path / "b.rdb"), "--data", str(tmp_path / "r")
    )
    assert code == 0 and "1 running jobs handed back to RQ" in out, out + err
    with EmbeddedRedis(tmp_path / "r") as restored:
        check = redis.Redis.from_url(restored.url)
        again = Queue("atout-bots", connection=check, serializer=JSONSerializer)
        assert again.job_ids == [job.id]  # queued, for the next worker to take
        assert Job.fetch(job.id, connection=check, serializer=JSONSerializer).get_status() == "queued"
        assert StartedJobRegistry(queue=again).get_job_ids() == []
        check.close()


def test_a_bot_turn_the_snapshot_caught_before_its_enqueue_is_enqueued_on_restore(
    tmp_path: Path,
    client: TestClient,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A move is written, then the bot turn it leads to is enqueued: a snapshot between the two holds
    a bot to act with no job and no watchdog entry (a CI run met it: a restored match never moved
    on). The restore enqueues every due bot turn; one already queued stays one job."""
    waiting = create(client, "rough", seats=["bot:random"] * 4)["game"]
    stranded = create(client, "euchre5", seats=["bot:heuristic"] * 5)["game"]
    connection = redis.Redis.from_url(redis_url)
    try:
        lost = job_id(stranded["game_id"], stranded["version"])
        Job.fetch(lost, connection=connection, serializer=JSONSerializer).delete()  # the gap: no job,
        connection.zrem(DUE_KEY, due_member(stranded["game_id"], stranded["version"]))  # no entry
        code, _, err = run(
            monkeypatch, capsys, {"REDIS_URL": redis_url}, "backup", "--to", str(tmp_path / "g.rdb")
        )
        assert code == 0, err
    finally:
        connection.close()
    code, out, err = run(
        monkeypatch, capsys, {}, "restore", "--from", str(tmp_path / "g.rdb"), "--data", str(tmp_path / "r")
    )
    assert code == 0 and "2 bot turns enqueued" in out, out + err
    with EmbeddedRedis(tmp_path / "r") as restored:
        check = redis.Redis.from_url(restored.url)
        queued = Queue("atout-bots", connection=check, serializer=JSONSerializer).job_ids
        assert sorted(queued) == sorted([lost, job_id(waiting["game_id"], waiting["version"])])
        assert check.zscore(DUE_KEY, due_member(stranded["game_id"], stranded["version"])) is not None
        check.close()


def test_a_diskless_master_streams_its_snapshot_with_an_end_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Redis 7 sends a replica's snapshot without writing it (``repl-diskless-sync yes``, its default):
    ``$EOF:<mark>``, the RDB, the mark, then its write stream; the backup keeps the RDB alone."""
    with EmbeddedRedis(tmp_path / "master") as master:
        client = redis.Redis.from_url(master.url)
        client.config_set("repl-diskless-sync", "yes")
        client.config_set("repl-diskless-sync-delay", "0")
        client.mset({f"atout:k{n}": os.urandom(1000) for n in range(3000)})  # 3 MB: many reads
        client.close()
        code, out, err = run(
            monkeypatch, capsys, {"REDIS_URL": master.url}, "backup", "--to", str(tmp_path / "d.rdb")
        )
    assert code == 0 and "(sync diskless," in out, err
    code, out, err = run(
        monkeypatch, capsys, {}, "restore", "--from", str(tmp_path / "d.rdb"), "--data", str(tmp_path / "r")
    )
    assert code == 0 and "3000 keys into" in out, out + err
