"""The rolling upgrade drill (issue 26): the previous release (commit ``PREVIOUS``, the last one landed
before these drills; its stored state is ``atout.match/1``) and this checkout side by side on one
Redis, as a rolling deploy runs them: an old and a new API answering the same games (each human move
posted to the other one than the move before), an old and a new worker taking the bot turns, including
the jobs the other version enqueued (each worker runs alone for a while), then the old ones stopped and
the matches finished on the new ones. Every match of the three games ends, no answer is an error, every
acknowledged move is in the game's log and every log verifies.

The old release is unpacked from git (``git archive``), no network: the same venv runs it, with its own
tree first on ``PYTHONPATH``. Without that commit in the history (a shallow clone, a source tarball) the
test fails and says what is missing: a drill that silently does not run would pass for a safe upgrade."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from rq import Queue, Worker
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry
from rq.serializers import JSONSerializer
from svc_helpers import FAST_OPTIONS, UNLIMITED_RATES, auth, fill

import engine
from service.runtime.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS = "5c5cea1"
"""The previous release: no tags exist here; the last commit landed before the operations drills."""

ADMIN = "admin-secret-for-the-upgrade-drill"
SEATS = {
    "rough": ["open", "bot:random", "open", "bot:heuristic"],
    "five_hundred": ["open", "bot:heuristic", "open", "bot:random"],
    "euchre5": ["open", "bot:random", "open", "bot:heuristic", "bot:random"],
}
HUMANS = {0, 2}
QUEUES = ("atout-bots", "atout-bots-expert")
PHASE = 12
"""Human moves acknowledged in each phase of the deploy before the next step (a match takes ~30-50)."""


@pytest.fixture(scope="module")
def old_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's source, unpacked from this repository's history."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{PREVIOUS}^{{commit}}"], capture_output=True, check=False
    )
    if found.returncode != 0:
        pytest.fail(
            f"the upgrade drill needs commit {PREVIOUS} (the previous release) in the git history of {ROOT}: "
            f"{found.stderr.decode(errors='replace').strip() or 'not a git checkout'}. In a shallow clone "
            "run `git fetch --unshallow`; a source tarball cannot run this drill."
        )
    tree = tmp_path_factory.mktemp("previous-release")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", PREVIOUS], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    assert (tree / "service" / "runtime" / "cli.py").is_file()
    return tree


@dataclass
class Process:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        """SIGTERM as a deploy sends it: the API drains, a worker finishes its job; exit 0."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(60)
        assert code == 0, f"{self.name} exited {code}: {self.log.read_text()[-3000:]}"


@dataclass
class Fleet:
    redis_url: str
    logs: Path
    started: list[Process] = field(default_factory=list)

    def start(self, name: str, tree: Path, *args: str) -> Process:
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        env.update(
            UNLIMITED_RATES,
            REDIS_URL=self.redis_url,
            PYTHONPATH=str(tree),
            ATOUT_ADMIN_TOKEN=ADMIN,
            ATOUT_LOG_LEVEL="info",
            ATOUT_BOT_BUDGET="0.01",
        )
        log = self.logs / f"{name}.log"
        output = open(log, "wb")  # noqa: SIM115  # the child holds it; closed when this process ends
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.runtime.cli", *args],
            env=env,
            cwd=tree,  # `python -m` puts the current folder first on sys.path: the release's own tree
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        output.close()
        process = Process(name, proc, log)
        self.started.append(process)
        return process

    def api(self, name: str, tree: Path) -> tuple[Process, str]:
        port = free_port()
        return self.start(name, tree, "serve", "--port", str(port)), f"http://127.0.0.1:{port}"


def jobs_run(worker: Process) -> int:
    """The jobs a worker has run so far, as RQ logs each one (a line ``Job OK``, flushed per record)."""
    return worker.log.read_text(errors="replace").count("Job OK")


def wait_ready(process: Process, url: str) -> None:
    deadline = time.monotonic() + 90
    while True:
        assert process.proc.poll() is None, process.log.read_text()[-3000:]
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{process.name} did not start"
        time.sleep(0.1)


def wait_worker(connection: redis.Redis, process: Process) -> None:
    """Until the worker ``process`` is registered on both bot queues."""
    deadline = time.monotonic() + 90
    while not any(w.pid == process.proc.pid for w in Worker.all(connection=connection)):
        assert process.proc.poll() is None, process.log.read_text()[-3000:]
        assert time.monotonic() < deadline, f"{process.name} did not register"
        time.sleep(0.1)


@pytest.fixture
def fleet(redis_url: str, tmp_path: Path) -> Iterator[Fleet]:
    running = Fleet(redis_url, tmp_path)
    try:
        yield running
    finally:
        for process in running.started:
            if process.proc.poll() is None:
                process.proc.kill()
                process.proc.wait(30)


@dataclass
class Drill:
    """The human seats' moves, each through the API whose turn it is, and what came back."""

    urls: list[str]
    rng: random.Random
    tokens: dict[str, dict[int, str]] = field(default_factory=dict)
    acknowledged: list[tuple[str, int, int, dict[str, Any]]] = field(
        default_factory=list
    )  # game, version made, seat
    by_api: dict[str, int] = field(default_factory=dict)
    conflicts: int = 0  # 409: a read that was one version behind; read again and play (documented retry)
    errors: list[str] = field(default_factory=list)
    posted: int = 0
    bot_turns: dict[tuple[str, int], float] = field(default_factory=dict)  # first seen waiting
    longest_bot_wait: float = 0.0

    def next_url(self) -> str:
        self.posted += 1
        return self.urls[self.posted % len(self.urls)]

    def step(self, http: httpx.Client, gid: str) -> bool:
        """One move of a human seat in ``gid`` when one is to act; False once the match is over."""
        url = self.next_url()
        game = http.get(f"{url}/v1/games/{gid}").json()
        if game["status"] == "finished":
            return False
        seat = game["to_act"]
        if seat not in HUMANS:  # a bot's turn: the workers play it; how long it waits is measured
            since = self.bot_turns.setdefault((gid, game["version"]), time.monotonic())
            self.longest_bot_wait = max(self.longest_bot_wait, time.monotonic() - since)
            return True
        token = self.tokens[gid][seat]
        legal = http.get(f"{url}/v1/games/{gid}/actions", headers=auth(token))
        if legal.status_code != 200:
            self.errors.append(f"{url} actions {legal.status_code} {legal.text}")
            return True
        offered = legal.json()  # the pre-v1 release names the list `actions`, v1 `legal_actions`
        action = fill(
            v1_template(self.rng.choice(offered.get("legal_actions", offered.get("actions")))), self.rng
        )
        url = self.next_url()  # the move goes to the other API than the one that read the game
        answer = http.post(
            f"{url}/v1/games/{gid}/actions",
            json={"action": action, "expected_version": game["version"]},
            headers=auth(token),
        )
        if answer.status_code == 200:
            version = answer.json()["version"]  # the version the move made: its entry's in the log
            if version != game["version"] + 1:
                self.errors.append(f"{url} act answered version {version} after {game['version']}")
            self.acknowledged.append((gid, version, seat, action))
            self.by_api[url] = self.by_api.get(url, 0) + 1
        elif answer.status_code == 409 and answer.json().get("code") == "version_conflict":
            self.conflicts += 1
        else:
            self.errors.append(f"{url} act {answer.status_code} {answer.text}")
        return True


def v1_template(action: dict[str, Any]) -> dict[str, Any]:
    """A legal action as v1 words it: the pre-v1 release offered a discard's cards as ``from``, v1 as
    ``choices`` (docs/glossary.md)."""
    if action["type"] == "discard" and "from" in action:
        return {**{k: v for k, v in action.items() if k != "from"}, "choices": action["from"]}
    return action


def play_for(
    drill: Drill,
    http: httpx.Client,
    games: list[str],
    moves: int,
    seconds: float,
    why: Callable[[list[str]], str],
) -> list[str]:
    """Play the human turns of ``games`` until ``moves`` more are acknowledged (or every match is over);
    the games still running. More than ``seconds`` for it: a stalled game, the test fails."""
    deadline = time.monotonic() + seconds
    goal = len(drill.acknowledged) + moves
    running = list(games)
    while running and len(drill.acknowledged) < goal:
        assert time.monotonic() < deadline, f"{moves} moves not played in {seconds} s; {why(running)}"
        running = [gid for gid in running if drill.step(http, gid)]
        time.sleep(0.005)
    return running


def canonical(action: dict[str, Any] | None) -> dict[str, Any] | None:
    """An action as the log writes it: a discard's cards in the engine's order, not the order sent."""
    if action is None or "cards" not in action:
        return action
    return {**action, "cards": sorted(action["cards"])}


def stalled(http: httpx.Client, url: str, games: list[str], connection: redis.Redis) -> str:
    """What a match left unfinished was waiting for: its turn, its bot job, the queues."""
    lines = []
    for gid in games:
        game = http.get(f"{url}/v1/games/{gid}").json()
        kind = game.get("kind", game.get("game"))  # v1 names it `kind`, the pre-v1 release `game`
        lines.append(f"{gid}: {kind} v{game['version']} to_act {game['to_act']} {game['status']}")
        job = (
            Job.fetch(f"bot-{gid}-{game['version']}", connection=connection, serializer=JSONSerializer)
            if connection.exists(f"rq:job:bot-{gid}-{game['version']}")
            else None
        )
        lines.append(f"  its bot job: {job and job.get_status()}")
    for queue in QUEUES:
        lines.append(f"{queue}: {Queue(queue, connection=connection, serializer=JSONSerializer).job_ids}")
    lines.append(f"botdue: {connection.zrange('atout:botdue', 0, -1, withscores=True)}")
    return "matches not finished:\n" + "\n".join(lines)


def test_old_and_new_release_side_by_side_on_one_redis(old_tree: Path, fleet: Fleet, redis_url: str) -> None:
    started = time.monotonic()
    connection = redis.Redis.from_url(redis_url)
    old_api, old_url = fleet.api("old-api", old_tree)
    new_api, new_url = fleet.api("new-api", ROOT)
    old_worker = fleet.start("old-worker", old_tree, "worker", "--queues", "all", "--metrics-port", "0")
    new_worker = fleet.start("new-worker", ROOT, "worker", "--queues", "all", "--metrics-port", "0")
    wait_ready(old_api, old_url)
    wait_ready(new_api, new_url)
    wait_worker(connection, old_worker)
    wait_worker(connection, new_worker)
    # the old tree runs its own code, not this checkout's
    assert (
        f"{old_tree}"
        in subprocess.run(
            [sys.executable, "-c", "import service; print(service.__file__)"],
            env={**os.environ, "PYTHONPATH": str(old_tree)},
            cwd=old_tree,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )

    drill = Drill([old_url, new_url], random.Random(2026))
    games = []
    with httpx.Client(timeout=30) as http:
        for n, (game, seats) in enumerate(SEATS.items()):
            # each release in its own contract: the pre-v1 one names the kind `game`, its id `id`, and
            # takes the seed as an integer; v1 as a decimal string
            named, seed = ("kind", str(900 + n)) if n % 2 else ("game", 900 + n)
            body = {named: game, "seed": seed, "options": FAST_OPTIONS[game], "seats": seats}
            created = http.post(f"{(old_url, new_url)[n % 2]}/v1/games", json=body, headers=auth(ADMIN))
            assert created.status_code == 201, created.text
            gid = created.json()["game"]["game_id" if n % 2 else "id"]
            drill.tokens[gid] = {}
            for seat in sorted(HUMANS):  # one seat joined through each API
                joined = http.post(
                    f"{(old_url, new_url)[seat // 2]}/v1/games/{gid}/join", json={"seat": seat}
                )
                assert joined.status_code == 201, joined.text
                drill.tokens[gid][seat] = joined.json()["token"]
            games.append(gid)

        def why(running: list[str]) -> str:
            refused = "\n".join(drill.errors[-5:]) or "none"
            return f"{stalled(http, new_url, running, connection)}\nthe last refusals: {refused}"

        phases: list[tuple[str, int]] = []
        running = play_for(drill, http, games, PHASE, 30, why)  # both workers
        phases.append(("both APIs, both workers", len(drill.acknowledged)))
        new_worker.stop()
        solo = jobs_run(old_worker)
        running = play_for(drill, http, running, PHASE, 30, why)  # the old worker plays the new API's jobs
        phases.append(("both APIs, the old worker alone", len(drill.acknowledged)))
        assert jobs_run(old_worker) > solo  # bot turns the new API enqueued, played by the old worker
        again = fleet.start("new-worker-2", ROOT, "worker", "--queues", "all", "--metrics-port", "0")
        wait_worker(connection, again)
        old_worker.stop()
        solo = jobs_run(again)
        running = play_for(drill, http, running, PHASE, 30, why)  # the new worker plays the old API's jobs
        phases.append(("both APIs, the new worker alone", len(drill.acknowledged)))
        assert jobs_run(again) > solo  # and the other way round
        old_api.stop()
        drill.urls = [new_url]
        running = play_for(
            drill, http, running, 10_000, 120, why
        )  # the old release gone: finish on the new one
        phases.append(("the new API and worker", len(drill.acknowledged)))
        assert running == [], stalled(http, new_url, running, connection)

        assert drill.errors == []
        for (name, count), (_, before) in zip(phases, [("", 0), *phases], strict=False):
            assert count > before, f"no move acknowledged in the phase {name!r}: {phases}"
        assert drill.by_api[old_url] > 0 and drill.by_api[new_url] > 0
        versions = {}
        for gid in games:
            log = http.get(f"{new_url}/v1/games/{gid}/log")
            assert log.status_code == 200, log.text
            body = log.json()
            assert engine.verify_log(body) == [], gid
            entries = {(e["version"], e["seat"]): e["action"] for e in body["actions"]}
            assert sorted(v for v, _ in entries) == list(range(1, len(entries) + 1))  # no gap, no duplicate
            versions[body["kind"]] = len(entries)
            for g, version, seat, action in drill.acknowledged:
                if g == gid:
                    assert canonical(entries.get((version, seat))) == canonical(action), (gid, version, seat)
    again.stop()
    new_api.stop()
    for queue in QUEUES:
        failed = FailedJobRegistry(queue=Queue(queue, connection=connection, serializer=JSONSerializer))
        assert failed.get_job_ids() == [], queue
    for process in (new_worker, again, old_worker):
        text = process.log.read_text()
        assert "Traceback" not in text, text[-3000:]
    bot_jobs = {p.name: jobs_run(p) for p in (old_worker, new_worker, again)}
    connection.close()
    print(
        f"upgrade drill: {len(games)} matches finished, {sum(versions.values())} moves ({versions}), "
        f"{len(drill.acknowledged)} human moves acknowledged ({drill.by_api[old_url]} by the old API, "
        f"{drill.by_api[new_url]} by the new), {drill.conflicts} version_conflict retried, bot jobs "
        f"by worker "
        f"{bot_jobs}, phases {phases}, longest wait for a bot's move {drill.longest_bot_wait:.1f} s, "
        f"{time.monotonic() - started:.1f} s"
    )


def stranded(queue: Queue) -> Job:
    """A job as a worker stopped between RQ's two steps of taking it leaves it: queued, its id in the
    queue's intermediate list and in no queue."""
    job = Job.create("time.sleep", args=(0,), connection=queue.connection, serializer=JSONSerializer)
    job.origin = queue.name
    job.set_status(JobStatus.QUEUED)
    job.save()
    queue.connection.rpush(queue.intermediate_queue_key, job.id)
    return job


def test_a_job_stranded_between_taking_and_starting_is_handed_back(redis_url: str, tmp_path: Path) -> None:
    """RQ takes a job in two steps (its id moved to the queue's intermediate list, then the job marked
    started); a SIGTERM to an idle worker stops it at once, even between the two. The drill met it: a
    bot turn in no queue for over a minute (until RQ's own cleanup). A worker of this release hands
    such a job back to its queue at each maintenance pass (here the first, as it starts: the job is then
    played) and as it stops (the job is then left queued for the next worker)."""
    connection = redis.Redis.from_url(redis_url)
    try:
        queue = Queue("atout-bots", connection=connection, serializer=JSONSerializer)
        before = stranded(queue)
        fleet = Fleet(redis_url, tmp_path)
        worker = fleet.start("worker", ROOT, "worker", "--queues", "fast", "--metrics-port", "0")
        try:
            wait_worker(connection, worker)
            deadline = time.monotonic() + 30
            while before.get_status(refresh=True) != JobStatus.FINISHED:
                assert time.monotonic() < deadline, before.get_status()
                time.sleep(0.1)
            after = stranded(queue)  # stranded while it runs: its next maintenance is 30 s away
        finally:
            worker.stop()
        assert worker.log.read_text().count("job_handed_back") == 2, worker.log.read_text()[-3000:]
        assert connection.lrange(queue.intermediate_queue_key, 0, -1) == []
        assert queue.job_ids == [after.id]  # back in its queue, for the next worker
    finally:
        connection.close()
