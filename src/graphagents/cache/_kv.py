"""A small JSON key-value cache with TTL: in-process LRU+TTL by default, Redis when ``CACHE_URL`` says so."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from cachetools import TTLCache

from graphagents.errors import ConfigError, ServiceUnavailableError, redact_url


def redis_client(url: str) -> Any:
    """A connected ``redis.Redis`` for ``url``, or one line saying what is missing."""
    try:
        import redis
    except ImportError as exc:
        raise ConfigError("Redis support is not installed: pip install 'graphagents[redis]'") from exc
    client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise ServiceUnavailableError(f"cannot reach Redis at {redact_url(url)}: {exc}") from exc
    return client


def is_redis_url(url: str | None) -> bool:
    return bool(url) and str(url).startswith(("redis://", "rediss://", "unix://"))


class Cache(Protocol):
    def get(self, key: str) -> Any | None: ...

    def set(self, key: str, value: Any) -> None: ...

    def delete(self, key: str) -> None: ...

    def clear(self) -> None: ...

    def delete_prefix(self, prefix: str) -> int: ...


class MemoryCache:
    """LRU eviction past ``maxsize`` and expiry after ``ttl`` seconds (cachetools.TTLCache).

    ``clock`` is the time source (seconds, monotonic by default); tests pass a fake to expire entries
    without sleeping.
    """

    def __init__(self, *, maxsize: int = 1000, ttl: float = 3600, clock: Callable[[], float] = time.monotonic) -> None:
        self._data: TTLCache[str, str] = TTLCache(maxsize=maxsize, ttl=ttl, timer=clock)
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        with self._lock:
            raw = self._data.get(key)
        return None if raw is None else json.loads(raw)

    def set(self, key: str, value: Any) -> None:
        raw = json.dumps(value, ensure_ascii=False, default=str)
        with self._lock:
            self._data[key] = raw

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def delete_prefix(self, prefix: str) -> int:
        """Remove every key that starts with ``prefix`` (a user's entries); how many were removed."""
        with self._lock:
            doomed = [k for k in self._data if k.startswith(prefix)]
            for key in doomed:
                self._data.pop(key, None)
        return len(doomed)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class RedisCache:
    """Values as JSON strings under ``<namespace>:<key>`` with a per-key expiry."""

    def __init__(self, url: str, *, namespace: str, ttl: float = 3600) -> None:
        self._client = redis_client(url)
        self.namespace = namespace
        self.ttl = int(ttl)

    def _k(self, key: str) -> str:
        return f"{self.namespace}:{key}"

    def get(self, key: str) -> Any | None:
        raw = self._client.get(self._k(key))
        return None if raw is None else json.loads(raw)  # type: ignore[arg-type]

    def set(self, key: str, value: Any) -> None:
        self._client.set(self._k(key), json.dumps(value, ensure_ascii=False, default=str), ex=self.ttl)

    def delete(self, key: str) -> None:
        self._client.delete(self._k(key))

    def clear(self) -> None:
        self._delete_matching(self._k("*"))

    def delete_prefix(self, prefix: str) -> int:
        """Remove every key that starts with ``prefix`` (a user's entries); how many were removed."""
        return self._delete_matching(self._k(_glob_escape(prefix)) + "*")

    def _delete_matching(self, pattern: str) -> int:
        removed = 0
        batch: list[Any] = []
        for key in self._client.scan_iter(match=pattern, count=500):
            batch.append(key)
            if len(batch) >= 500:
                removed += int(self._client.delete(*batch))
                batch = []
        if batch:
            removed += int(self._client.delete(*batch))
        return removed


def _glob_escape(text: str) -> str:
    """``text`` as a literal inside a Redis MATCH pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def open_cache(url: str | None, *, namespace: str, maxsize: int = 1000, ttl: float = 3600) -> Cache:
    """``MemoryCache`` when ``url`` is unset or ``"memory"``, ``RedisCache`` for ``redis://...``."""
    if not url or url == "memory":
        return MemoryCache(maxsize=maxsize, ttl=ttl)
    if is_redis_url(url):
        return RedisCache(url, namespace=f"graphagents:{namespace}", ttl=ttl)
    raise ConfigError(f"unsupported CACHE_URL {redact_url(url)!r}: leave it unset or use redis://host:port/db")


__all__ = ["Cache", "MemoryCache", "RedisCache", "is_redis_url", "open_cache", "redis_client"]
