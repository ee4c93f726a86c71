"""What is shipped serves everything (issue 20): the built wheel, installed in a fresh virtual
environment outside the checkout and run as `atout serve` from an empty folder, serves every page and
asset the checkout serves. The wheel once left out ``service/static/play/``: ``/play`` answered 500 in
the image and every module of the page 404.

The wheel is built without compiling the engine (``ATOUT_PURE_ENGINE=1``: what is checked here is what
the package holds, and mypyc would add minutes); the image test builds and serves the compiled one.
The fresh environment gets the dependencies through a ``.pth`` naming this environment's
site-packages (no download), never the checkout: the test asserts the served code is the wheel's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from service.runtime.embedded_redis import free_port

ROOT = Path(__file__).resolve().parent.parent


def clean_copy(folder: Path) -> Path:
    """The checkout's tracked files as they are in the working tree, and nothing else."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A virtual environment outside the checkout with only the built wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    env = {**os.environ, "ATOUT_PURE_ENGINE": "1"}
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist)]
    subprocess.run(
        [*build, "."],
        cwd=clean_copy(work / "src"),  # never the checkout: a build/ left there would be packed again
        env=env,
        check=True,
        timeout=600,
    )
    (wheel,) = dist.glob("atout-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # the dependencies from this environment (after the wheel's own packages on the path)
    (site / "zz-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    yield venv


def test_the_wheel_holds_every_static_file(installed: Path) -> None:
    names = zipfile.ZipFile(next((installed.parent / "dist").glob("atout-*.whl"))).namelist()
    for module in (
        "app.js",
        "api.js",
        "cards.js",
        "dom.js",
        "fair.js",
        "i18n.js",
        "mygames.js",
        "player.js",
        "playnow.js",
        "index.html",
        "play.css",
        "standings.html",
        "standings.js",
    ):
        assert f"service/static/play/{module}" in names


def test_the_wheel_holds_the_workers_and_the_old_job_paths_but_no_dev_helper(installed: Path) -> None:
    """The RQ jobs and worker process moved to ``workers/jobs/`` (a package the wheel must carry), the
    previous release's job paths stay importable (``service/jobs/``, shims), and the dev-only cluster
    helper lives in tests/cluster, not in the package."""
    names = set(zipfile.ZipFile(next((installed.parent / "dist").glob("atout-*.whl"))).namelist())
    jobs = ("queue", "turns", "tournaments", "watchdog", "webhook_queue", "webhooks", "deliveries", "worker")
    for module in ("__init__", *jobs):
        assert f"workers/jobs/{module}.py" in names
    for shim in (
        "service/bots.py",
        "service/jobs/turns.py",
        "service/jobs/tournaments.py",
        "service/jobs/webhooks.py",
    ):
        assert shim in names
    assert not any("embedded_cluster" in name for name in names)


def test_the_installed_wheel_serves_every_page_and_asset(
    installed: Path, tmp_path: Path, serves_everything: Callable[[str], None]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    python = installed / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import atout.runner, service; print(service.__file__, atout.runner.__file__)"],
        cwd=empty,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(installed) in where and str(ROOT) not in where, where
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "PYTHONPATH"}}
    env.update(ATOUT_DATA_DIR=str(empty / "data"), ATOUT_LOG_LEVEL="warning")
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [str(installed / "bin" / "atout"), "serve", "--port", str(port)],
        cwd=empty,
        env=env,
        stdout=log,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the installed atout serve never became ready"
            time.sleep(0.1)
        serves_everything(base)
        # The bot authors' toolkit ships too: its command registers a bot account on what was served.
        registered = subprocess.run(
            [str(installed / "bin" / "atout"), "bot", "register", "wheel-bot", "--url", base],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert registered.returncode == 0, registered.stderr
        assert json.loads(registered.stdout)["name"] == "wheel-bot"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
