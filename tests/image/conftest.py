"""The images every test here runs, built once per test run (podman_tools.shared_build): the project's
(`make image`) and, for the kube drill, a Redis on the same debootstrapped base."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from podman_tools import IMAGE, REDIS_IMAGE, build_project_image, build_redis_image, shared_build


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The folder all xdist workers of this run share (their base temporary folders' parent), or None
    when pytest runs without xdist."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return None
    return tmp_path_factory.getbasetemp().parent


@pytest.fixture(scope="session")
def image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from shared_build(run_folder(tmp_path_factory), IMAGE, build_project_image)


@pytest.fixture(scope="session")
def redis_image(image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from shared_build(run_folder(tmp_path_factory), REDIS_IMAGE, build_redis_image)
