"""The container image: built by `make image` with podman and no registry, served from against a
real Redis, a whole game played through it (a bot seat played by a worker container from the same
image), then stopped with SIGTERM, cleanly.

Runs wherever podman, buildah, runc and debootstrap exist and we are root (`make test` installs
them first through `make tools` on Debian); elsewhere it is skipped, naming what is missing.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.embedded_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "localhost/atout-test:ci"  # a name of our own: podman's image store is the machine's
CONF = ROOT / "tests" / "image" / "containers.conf"
ADMIN = "image-test-admin-token"
MISSING = [tool for tool in ("podman", "buildah", "runc", "debootstrap") if shutil.which(tool) is None]

pytestmark = pytest.mark.skipif(
    bool(MISSING) or os.geteuid() != 0,
    reason=f"building the image needs root and {', '.join(MISSING) or 'podman'} (`make tools` installs them)",
)


def podman(*args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CONTAINERS_CONF": str(CONF)}
    return subprocess.run(
        ["podman", *args], env=env, capture_output=True, text=True, timeout=timeout, check=check
    )


@pytest.fixture(scope="session")
def image() -> str:
    built = subprocess.run(
        ["make", "-s", "image", f"IMAGE={IMAGE}"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return IMAGE


def run(image: str, name: str, env: dict[str, str], *command: str) -> None:
    flags = [f"--env={key}={value}" for key, value in env.items()]
    podman(
        "run", "--detach", "--name", name, "--network", "host", "--init", "--read-only", "--tmpfs", "/tmp",
        *flags, image, *command,
    )  # fmt: skip


@pytest.fixture
def containers() -> Iterator[list[str]]:
    names: list[str] = []
    try:
        yield names
    finally:
        for name in names:
            podman("rm", "--force", "--time", "0", name, check=False)


def wait_for(condition: Any, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def play_a_match(base: str) -> dict[str, Any]:
    """Three seats played through the API, the fourth by a bot in the worker container."""
    rng = random.Random(7)
    with httpx.Client(base_url=base, timeout=20) as http:
        body = {"game": "rough", "options": {"target_score": 200}, "seats": ["open"] * 3 + ["bot:random"]}
        created = http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        gid = created.json()["game"]["id"]
        tokens = {}
        for seat in range(3):
            joined = http.post(f"/v1/games/{gid}/join", json={"seat": seat})
            assert joined.status_code == 201, joined.text
            tokens[seat] = joined.json()["token"]
        deadline = time.monotonic() + 180
        while True:
            game = http.get(f"/v1/games/{gid}").json()
            if game["status"] == "finished":
                break
            assert time.monotonic() < deadline, f"the match did not end: {game}"
            seat = game["to_act"]
            if seat not in tokens:  # the bot's turn: the worker container plays it
                time.sleep(0.02)
                continue
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = http.get(f"/v1/games/{gid}/actions", headers=headers).json()["actions"]
            action = rng.choice(legal)
            if action["type"] == "discard" and "from" in action:
                action = {"type": "discard", "cards": rng.sample(action["from"], action["count"])}
            move = {"action": action, "expected_version": game["version"]}
            posted = http.post(f"/v1/games/{gid}/actions", json=move, headers=headers)
            assert posted.status_code in (200, 409), posted.text  # 409: the bot moved first
        log = http.get(f"/v1/games/{gid}/log", headers={"Authorization": f"Bearer {ADMIN}"}).json()
    return log


def test_the_image_has_no_compiler_and_no_host_certificates(image: str) -> None:
    checked = podman(
        "run", "--rm", "--network", "host", "--read-only", image, "sh", "-c",
        "id -u; command -v gcc cc make || true; test ! -s /run/host-ca.crt && echo no-ca",
    )  # fmt: skip
    lines = checked.stdout.split()
    assert lines[0] == "10001"  # not root
    assert lines[1:] == ["no-ca"], checked.stdout  # no compiler found, the build's CA bundle not kept


def test_serve_and_a_worker_from_the_image_play_a_match_and_stop_cleanly_on_sigterm(
    image: str, redis_url: str, containers: list[str]
) -> None:
    port = free_port()
    tag = f"{os.getpid()}-{port}"
    env = {"REDIS_URL": redis_url, "ATOUT_ADMIN_TOKEN": ADMIN, "ATOUT_LOG_JSON": "true"}
    api, worker = f"atout-test-api-{tag}", f"atout-test-worker-{tag}"
    containers += [api, worker]
    run(image, api, {**env, "ATOUT_HOST": "127.0.0.1", "ATOUT_PORT": str(port)})
    run(image, worker, env, "atout", "worker", "--queues", "all")
    base = f"http://127.0.0.1:{port}"
    wait_for(lambda: httpx.get(f"{base}/readyz", timeout=2).status_code == 200, "the API in the container")
    assert podman("exec", api, "id", "-u").stdout.strip() == "10001"

    log = play_a_match(base)
    assert log["winners"], log
    assert {entry["seat"] for entry in log["actions"]} == {0, 1, 2, 3}  # the bot seat played too

    for name in (api, worker):
        podman("stop", "--time", "30", name, timeout=60)  # STOPSIGNAL: SIGTERM, then 30 s before a kill
        state = podman("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip()
        output = podman("logs", name).stdout + podman("logs", name).stderr
        assert state == "0", f"{name} exited {state}:\n{output[-3000:]}"
        assert "Traceback" not in output, output[-3000:]
    api_log = podman("logs", api).stdout + podman("logs", api).stderr
    assert '"event": "stopped"' in api_log  # the API's lifespan ran its shutdown
