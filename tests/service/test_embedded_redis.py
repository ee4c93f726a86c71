"""The embedded redis-server is a real server: it answers, persists with AOF and stops cleanly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import redis

from service import redis_binary
from service.embedded_redis import EmbeddedRedis


def test_find_returns_an_executable_redis_server() -> None:
    path = redis_binary.find()
    assert os.access(path, os.X_OK)
    assert Path(path).name == "redis-server"


def test_fixture_server_is_not_on_the_default_port(redis_server: EmbeddedRedis) -> None:
    assert redis_server.port != 6379


def test_each_test_starts_with_an_empty_database(redis_client: redis.Redis) -> None:
    assert redis_client.dbsize() == 0
    redis_client.set("left-behind", "1")


def test_the_next_test_does_not_see_the_previous_keys(redis_client: redis.Redis) -> None:
    assert redis_client.get("left-behind") is None


def test_append_only_data_survives_a_clean_restart(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        client.set("kept", "yes")
        client.close()
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        assert client.get("kept") == "yes"
        client.close()
    assert server.process is None


def test_an_override_that_is_not_executable_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATOUT_REDIS_SERVER", "/nonexistent/redis-server")
    with pytest.raises(redis_binary.RedisBinaryNotFound, match="ATOUT_REDIS_SERVER"):
        redis_binary.find()


def test_a_relative_data_dir_works_as_atout_serve_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`atout serve`'s default data dir is the relative var/redis (a fresh clone's `make serve`)."""
    monkeypatch.chdir(tmp_path)
    server = EmbeddedRedis("var/redis").start()
    try:
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        client.close()
        assert (tmp_path / "var" / "redis" / "redis.log").exists()
    finally:
        server.stop()
