"""Fixtures of the service tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import redis

from service.base.settings import Settings, get_settings


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261202)


@pytest.fixture
def worker_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[redis.Redis]:
    """REDIS_URL (and a short expert budget) in the environment, as a worker process reads it."""
    assert settings.redis_url
    monkeypatch.setenv("REDIS_URL", settings.redis_url)
    monkeypatch.setenv("ATOUT_BOT_BUDGET", "0.01")
    get_settings.cache_clear()
    connection = redis.Redis.from_url(settings.redis_url)
    try:
        yield connection
    finally:
        connection.close()
        get_settings.cache_clear()
