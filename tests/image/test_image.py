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
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from podman_tools import podman

from service.runtime.embedded_redis import free_port

HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")
ADMIN = "image-test-admin-token"
MISSING = [tool for tool in ("make", "podman", "buildah", "runc", "debootstrap") if not shutil.which(tool)]
SKIP = (
    f"the image test needs {', '.join(MISSING)} (`make tools` installs them)"
    if MISSING
    else "the image test needs root (debootstrap, podman's shared image store)"
)

pytestmark = [
    pytest.mark.skipif(bool(MISSING) or os.geteuid() != 0, reason=SKIP),
    pytest.mark.timeout(600),  # the first test's setup includes a cold build: debootstrap, every wheel
]


@pytest.fixture
def containers() -> Iterator[list[str]]:
    names: list[str] = []
    try:
        yield names
    finally:
        for name in names:
            # shown by pytest when the test failed: how each container ended, and its last words
            state = podman("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", name, check=False)
            output = podman("logs", name, check=False, timeout=30)
            print(f"--- {name}: {state.stdout.strip()}\n{(output.stdout + output.stderr)[-4000:]}")
            podman("rm", "--force", "--time", "0", name, check=False, timeout=60)


def start(image: str, name: str, env: dict[str, str], *command: str) -> None:
    """The way k8s/ runs it: read-only root, a writable /tmp only, uid 10001 (the image's own)."""
    flags = [f"--env={key}={value}" for key, value in env.items()]
    podman(
        "run", "--detach", "--name", name, "--network", "host", "--init", "--read-only", "--tmpfs", "/tmp",
        "--user", "10001", *flags, image, *command,
    )  # fmt: skip


def logs(name: str) -> str:
    done = podman("logs", name, timeout=30)
    return done.stdout + done.stderr


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def certificates(bundle: str) -> dict[str, list[str]]:
    """PEM certificates of a bundle, by their base64 body, each with its lines."""
    found: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in bundle.splitlines():
        if "BEGIN CERTIFICATE" in line:
            lines = []
        elif "END CERTIFICATE" in line and lines is not None:
            found["".join(lines)] = lines
            lines = None
        elif lines is not None:
            lines.append(line.strip())
    return found


def play_a_match(base: str) -> dict[str, Any]:
    """Three seats played through the API, the fourth by a bot in the worker container."""
    rng = random.Random(7)
    with httpx.Client(base_url=base, timeout=20) as http:
        body = {"kind": "rough", "options": {"target_score": 200}, "seats": ["open"] * 3 + ["bot:random"]}
        created = http.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        gid = created.json()["game"]["game_id"]
        tokens = {}
        for seat in range(3):
            joined = http.post(f"/v1/games/{gid}/join", json={"seat": seat})
            assert joined.status_code == 201, joined.text
            tokens[seat] = joined.json()["token"]
        deadline = time.monotonic() + 120
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
            legal = http.get(f"/v1/games/{gid}/actions", headers=headers).json()["legal_actions"]
            action = rng.choice(legal)
            if action["type"] == "discard" and "choices" in action:
                action = {"type": "discard", "cards": rng.sample(action["choices"], action["count"])}
            move = {"action": action, "expected_version": game["version"]}
            posted = http.post(f"/v1/games/{gid}/actions", json=move, headers=headers)
            assert posted.status_code in (200, 409), posted.text  # 409: the bot moved first
        log = http.get(f"/v1/games/{gid}/log", headers={"Authorization": f"Bearer {ADMIN}"})
        assert log.status_code == 200, log.text
    result: dict[str, Any] = log.json()
    return result


def test_the_image_has_no_compiler_the_compiled_engine_and_none_of_the_hosts_certificates(image: str) -> None:
    checked = podman(
        "run", "--rm", "--network", "none", "--read-only", "--entrypoint", "sh", image, "-c",
        "id -u; command -v gcc cc c++ make x86_64-linux-gnu-gcc-12 || true; "
        "ls /run/host-ca.crt 2>&1 || true; python3 -c 'import engine; print(engine.BUILD)'",
    )  # fmt: skip
    lines = checked.stdout.splitlines()
    assert lines[0] == "10001", checked.stdout  # not root
    assert len(lines) == 3 and "No such file" in lines[1], checked.stdout  # no compiler, no CA mount point
    assert lines[2] == "compiled", checked.stdout  # the engine was compiled in the build stage (mypyc)

    # The certificates the host trusts beyond Debian's own (what pip needed to reach the index through
    # this machine's proxy) are found nowhere in the image.
    bundle = podman("run", "--rm", "--network", "none", "--entrypoint", "cat", image, str(HOST_CA)).stdout
    extra = [
        lines for body, lines in certificates(HOST_CA.read_text()).items() if body not in certificates(bundle)
    ]
    if extra:
        needles = "\n".join(line for lines in extra for line in lines[1:-1] if len(line) == 64) + "\n"
        scan = podman(
            "run", "--rm", "-i", "--network", "none", "--user", "0", "--entrypoint", "sh", image, "-c",
            "grep -rlsF -f /dev/stdin / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev; true",
            stdin=needles, timeout=120,
        )  # fmt: skip
        assert scan.stdout == "", f"the host's CA certificates are in the image: {scan.stdout}"


def test_serve_and_a_worker_from_the_image_play_a_match_and_stop_cleanly_on_sigterm(
    image: str, redis_url: str, containers: list[str], serves_everything: Callable[[str], None]
) -> None:
    port = free_port()
    tag = f"{os.getpid()}-{port}"
    env = {"REDIS_URL": redis_url, "ATOUT_ADMIN_TOKEN": ADMIN, "ATOUT_LOG_JSON": "true"}
    api, worker = f"atout-test-api-{tag}", f"atout-test-worker-{tag}"
    containers += [api, worker]
    start(image, api, {**env, "ATOUT_HOST": "127.0.0.1", "ATOUT_PORT": str(port)}, "serve")
    start(image, worker, env, "atout", "worker", "--queues", "all")  # as k8s/ names it: args ["atout", …]
    base = f"http://127.0.0.1:{port}"
    wait_for(lambda: httpx.get(f"{base}/readyz", timeout=2).status_code == 200, "the API in the container")
    wait_for(
        lambda: httpx.get(f"{base}/readyz", timeout=2).json()["status"] == "ready", "the worker's heartbeat"
    )
    serves_everything(base)  # /play and its modules, /docs, GraphiQL, every static file (issue 20)
    # every process of each container (the init, atout, this exec) runs as 10001
    for name in (api, worker):
        uids = podman("exec", name, "sh", "-c", "cat /proc/[0-9]*/status | grep ^Uid:").stdout.split("\n")
        assert {line.split()[1] for line in uids if line} == {"10001"}, uids

    log = play_a_match(base)
    assert log["winners"], log
    assert {entry["seat"] for entry in log["actions"]} == {0, 1, 2, 3}  # the bot seat played too

    for name in (api, worker):
        podman("stop", "--time", "30", name, timeout=60)  # STOPSIGNAL: SIGTERM, then 30 s before a kill
        state = podman("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip()
        output = logs(name)
        assert state == "0", f"{name} exited {state}:\n{output[-3000:]}"
        assert "Traceback" not in output, output[-3000:]
    assert '"event": "stopped"' in logs(api)  # the API's lifespan ran its shutdown
    assert "warm shut down requested" in logs(worker)  # RQ: the current job finished, then out
