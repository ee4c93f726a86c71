"""What the image tests share: podman run with tests/image/containers.conf, the names of the images
they build, and one build per test run however many pytest-xdist workers need it.

`make test` runs two xdist workers with work stealing: the image tests may land on both, each worker
with its own session fixtures. The first to get here builds under a file lock in the run's shared
temporary folder; the other waits on the lock and finds the images built. In CI the last worker to
finish removes them (the count of users is kept beside the lock).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "tests" / "image" / "containers.conf"
# Names of our own (podman's image store is the machine's), one per checkout: two checkouts testing at
# once must not run each other's image.
CHECKOUT = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
IMAGE = f"localhost/atout-test:{CHECKOUT}"
REDIS_IMAGE = f"localhost/atout-test-redis:{CHECKOUT}"
BASE_IMAGE = "localhost/atout-base:bookworm-slim"  # the Makefile's BASE_IMAGE: `make image` makes it
REDIS_CONTAINERFILE = ROOT / "tests" / "image" / "redis.Containerfile"


def podman(
    *args: str, timeout: float = 120, check: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CONTAINERS_CONF": str(CONF)}
    done = subprocess.run(
        ["podman", *args], env=env, input=stdin, capture_output=True, text=True, timeout=timeout
    )
    if check:
        assert done.returncode == 0, f"podman {' '.join(args)}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return done


def dangling_images() -> set[str]:
    return set(podman("images", "--quiet", "--no-trunc", "--filter", "dangling=true").stdout.split())


def image_exists(name: str) -> bool:
    return podman("image", "exists", name, check=False).returncode == 0


def build_project_image() -> None:
    # Cold: debootstrap (~30 s, once per machine) and the wheels (~1 min); then podman's layer cache.
    built = subprocess.run(
        ["make", "-s", "image", f"IMAGE={IMAGE}"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]


def build_redis_image() -> None:
    """Debian's redis-server on the base `make image` made (tests/image/redis.Containerfile): ~15 s."""
    assert image_exists(BASE_IMAGE), f"{BASE_IMAGE} is missing: `make image` makes it"
    podman(
        "build", "--pull=never", "--build-arg", f"BASE={BASE_IMAGE}", "--file", str(REDIS_CONTAINERFILE),
        "--tag", REDIS_IMAGE, str(REDIS_CONTAINERFILE.parent), timeout=600,
    )  # fmt: skip


@contextmanager
def locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # bounded by the test's timeout (pytest-timeout)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_build(shared: Path | None, name: str, build: Callable[[], None]) -> Iterator[str]:
    """Yield the image `name`, built once per test run: `shared` is the folder every xdist worker of this
    run sees (None without xdist: one process, its session fixture builds once anyway)."""
    if shared is None:
        before = dangling_images()
        build()
        yield name
        if os.environ.get("CI"):
            remove(name, before)
        return
    state_file = shared / f"{name.replace('/', '_').replace(':', '_')}.json"
    with locked(shared / "atout-images.lock"):
        state = json.loads(state_file.read_text()) if state_file.exists() else {"users": 0, "built": False}
        if not state["built"] or not image_exists(name):  # removed by a worker that finished earlier
            state["before"] = sorted(dangling_images())
            began = time.monotonic()
            build()
            state["built"] = True
            print(f"{name} built by this worker in {time.monotonic() - began:.0f} s")  # shown by -rP
        state["users"] += 1
        state_file.write_text(json.dumps(state))
    yield name
    with locked(shared / "atout-images.lock"):
        state = json.loads(state_file.read_text())
        state["users"] -= 1
        if state["users"] == 0 and os.environ.get("CI"):
            remove(name, set(state["before"]))
            state["built"] = False
        state_file.write_text(json.dumps(state))


def remove(name: str, dangling_before: set[str]) -> None:
    # A CI machine's disk is not a build cache: the image and the build stages this run left behind
    # (about 1 GB) are removed; on a developer's machine they speed up the next run.
    podman("rmi", "--force", name, check=False, timeout=120)
    for left in dangling_images() - dangling_before:
        podman("rmi", left, check=False, timeout=120)
