"""Fixtures of the service tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import redis

from service.base.settings import Settings, get_settings
from workers.jobs import turns as bot_turns


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
        bot_turns.close_runtimes()  # jobs this test ran in-process: their loop and pools go with it
        get_settings.cache_clear()
