"""The embedded redis-server is a real server: it answers, persists with AOF and stops cleanly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import redis

from service.runtime import redis_binary
from service.runtime.embedded_redis import EmbeddedRedis


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


def test_a_client_without_the_password_is_refused(redis_server: EmbeddedRedis) -> None:
    stranger = redis.Redis(host="127.0.0.1", port=redis_server.port, socket_connect_timeout=2)
    try:
        with pytest.raises(redis.exceptions.AuthenticationError):
            stranger.get("anything")
    finally:
        stranger.close()
    assert redis_server.password and redis_server.password in redis_server.url


def test_the_password_is_in_no_command_line_and_the_url_file_is_private(redis_server: EmbeddedRedis) -> None:
    assert redis_server.pid is not None
    assert redis_server.password not in Path(f"/proc/{redis_server.pid}/cmdline").read_text()
    assert redis_server.url_file.stat().st_mode & 0o777 == 0o600
    assert redis_server.url_file.read_text().strip() == redis_server.url
    assert redis_server.password not in redis_server.public_url


def test_memory_is_capped_and_nothing_is_ever_evicted(redis_client: redis.Redis) -> None:
    config = redis_client.config_get("maxmemory*")
    assert config["maxmemory-policy"] == "noeviction"
    assert int(config["maxmemory"]) == 512 * 1024 * 1024
    assert redis_client.config_get("protected-mode") == {"protected-mode": "yes"}
    assert redis_client.config_get("bind")["bind"] == "127.0.0.1"


def test_a_restart_after_a_crash_keeps_port_password_and_data(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data").start()
    try:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        client.config_set("appendfsync", "always")
        client.set("kept", "yes")
        port, url = server.port, server.url
        assert server.process is not None
        server.process.kill()  # by PID
        server.process.wait(30)
        assert not server.alive()
        server.restart()
        assert (server.port, server.url) == (port, url)
        assert client.get("kept") == "yes"  # the same client object reconnects by itself
        client.close()
    finally:
        server.stop()


class _PortsInTurn:
    """Stands in for ``socket.socket`` in ``free_port``: "binding" port 0 hands out the given ports in
    turn, as an unlucky kernel might."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports

    def __call__(self, *_: object) -> _PortsInTurn:
        return self

    def __enter__(self) -> _PortsInTurn:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def bind(self, _address: object) -> None:
        self.port = self.ports.pop(0)

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)


def _sockets(ports: list[int]) -> object:
    """The ``socket`` module as ``free_port`` sees it (the rest of the process keeps the real one)."""
    import socket
    from types import SimpleNamespace

    return SimpleNamespace(socket=_PortsInTurn(ports), AF_INET=socket.AF_INET, SOCK_STREAM=socket.SOCK_STREAM)


def test_a_free_port_is_never_one_we_are_about_to_bind(monkeypatch: pytest.MonkeyPatch) -> None:
    """`atout serve` starts its Redis before the API binds its port: the Redis must not take it."""
    import service.runtime.embedded_redis as embedded

    monkeypatch.setattr(embedded, "socket", _sockets([8000, 6379, 8000, 8001]))
    assert embedded.free_port(exclude={8000}) == 8001


def test_the_embedded_redis_avoids_the_api_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import service.runtime.embedded_redis as embedded

    api_port, other = embedded.free_port(), embedded.free_port()
    while other == api_port:
        other = embedded.free_port()
    monkeypatch.setattr(embedded, "socket", _sockets([api_port, other]))
    server = EmbeddedRedis(tmp_path, appendonly=False, avoid_ports=[api_port])
    try:
        server.start(attempts=1)
        assert server.port == other
    finally:
        server.stop()
