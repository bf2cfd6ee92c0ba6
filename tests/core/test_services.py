"""The Postgres checkpointer/database and the Redis cache, against the real servers."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

import graphagents as ga
from graphagents.cache import MemoryCache, open_cache
from graphagents.errors import ConfigError, ServiceUnavailableError
from graphagents.settings import Settings


def test_postgres_checkpointer_survives_restart(example_spec: Any, pg_database: str, fresh_resources: None,
                                                tmp_path: Any) -> None:
    from graphagents import _connections as resources

    settings = Settings(checkpoint_url=pg_database, data_dir=tmp_path)
    assert settings.resolved_database_url == pg_database == settings.resolved_store_url
    sid = f"pg-{uuid.uuid4().hex[:10]}"
    assert ga.load("example", settings=settings).session(sid).send("hi").text == "What is your name?"
    resources.reset()
    agent = ga.load("example", settings=settings)
    assert type(agent.checkpointer).__name__ == "PostgresSaver"
    assert agent.get_session(sid).send("Eve").text == "Hello Eve! Favourite colour?"


def test_unreachable_postgres_is_one_clear_line(example_spec: Any, fresh_resources: None, tmp_path: Any) -> None:
    settings = Settings(checkpoint_url="postgresql://nobody@127.0.0.1:1/none", data_dir=tmp_path)
    with pytest.raises(ServiceUnavailableError) as info:
        ga.load("example", settings=settings)
    assert "127.0.0.1:1" in str(info.value) and "\n" not in str(info.value)


def test_memory_cache_lru_and_ttl() -> None:
    cache = MemoryCache(maxsize=2, ttl=0.2)
    cache.set("a", {"v": 1})
    cache.set("b", [1, 2])
    assert cache.get("a") == {"v": 1}
    cache.set("c", "x")  # evicts b, the least recently used
    assert cache.get("b") is None and cache.get("a") == {"v": 1}
    time.sleep(0.25)
    assert cache.get("a") is None


def test_redis_cache_round_trip(redis_url: str) -> None:
    cache = open_cache(redis_url, namespace=f"t{uuid.uuid4().hex[:6]}", ttl=60)
    cache.set("k", {"rows": [[1, "서울"]]})
    assert cache.get("k") == {"rows": [[1, "서울"]]}
    cache.clear()
    assert cache.get("k") is None


def test_cache_url_errors() -> None:
    with pytest.raises(ConfigError):
        open_cache("memcached://x", namespace="n")
    with pytest.raises(ServiceUnavailableError, match="cannot reach Redis"):
        open_cache("redis://127.0.0.1:1/0", namespace="n")
