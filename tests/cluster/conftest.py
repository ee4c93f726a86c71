"""The service's tests against a real Redis Cluster: 3 masters and 3 replicas on free loopback ports
(tests/cluster/embedded_cluster.py), the RQ queues on a plain redis-server (RQ does not speak Cluster).

The fixtures here replace the plain-Redis ones of tests/conftest.py and tests/service/conftest.py
for every test collected under tests/cluster, including the game, event and bot tests that
test_service_on_cluster.py imports from tests/service.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import redis
from embedded_cluster import EmbeddedCluster, redis_cli
from redis.cluster import RedisCluster

from service.base.settings import Settings, get_settings
from service.runtime.embedded_redis import EmbeddedRedisError
from tests.conftest import ADMIN_TOKEN, HIGH_RATES


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    try:
        redis_cli()
    except EmbeddedRedisError as missing:  # `make test` installs redis-tools first: not a skip there
        pytest.fail(str(missing))
    cluster = EmbeddedCluster(tmp_path_factory.mktemp("cluster")).start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def queue_url(redis_url: str) -> str:
    """The plain redis-server of the RQ queues (tests/conftest.py's, flushed for each test)."""
    return redis_url


@pytest.fixture
def cluster_url(redis_cluster: EmbeddedCluster) -> str:
    """The cluster, every master flushed (a test that killed a master waits for its failover first)."""
    redis_cluster.wait_healthy()
    with redis_cluster.cluster_client() as client:
        client.flushall(target_nodes=RedisCluster.PRIMARIES)
    return redis_cluster.url


@pytest.fixture
def settings(cluster_url: str, queue_url: str) -> Settings:
    return Settings(
        redis_url=cluster_url,
        redis_cluster=True,
        queue_url=queue_url,
        admin_token=ADMIN_TOKEN,
        log_json=True,
        **HIGH_RATES,
    )


@pytest.fixture
def redis_client(redis_cluster: EmbeddedCluster, cluster_url: str) -> Iterator[RedisCluster]:
    with redis_cluster.cluster_client() as client:
        yield client


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261202)  # the service tests' seed: the same games, the same lengths


@pytest.fixture
def worker_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[redis.Redis]:
    """The environment a worker process reads (games on the cluster, queues on the plain Redis),
    and a connection to the queues."""
    assert settings.redis_url and settings.queue_url
    monkeypatch.setenv("REDIS_URL", settings.redis_url)
    monkeypatch.setenv("ATOUT_REDIS_CLUSTER", "1")
    monkeypatch.setenv("ATOUT_QUEUE_URL", settings.queue_url)
    monkeypatch.setenv("ATOUT_BOT_BUDGET", "0.01")
    get_settings.cache_clear()
    connection = redis.Redis.from_url(settings.queue_url)
    try:
        yield connection
    finally:
        connection.close()
        get_settings.cache_clear()
