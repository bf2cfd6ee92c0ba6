"""Where a semantic cache keeps its entries: in process, or in Redis shared by every process.

Entries are grouped in partitions keyed by ``(scope, signature)``, the two things that must be
equal for a hit, so a lookup reads one partition: a handful of vectors, whatever the cache's size.
Each partition is capped (oldest entries go first), entries expire after a TTL measured with an
injectable clock, and a scope index lets :meth:`delete_scope` remove one user's entries without
scanning anyone else's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

Clock = Callable[[], float]


@dataclass(frozen=True)
class Entry:
    id: str
    text: str
    vector: np.ndarray
    value: Any
    created_at: float
    expires_at: float


class Partitions(Protocol):
    def entries(self, scope: str, signature: str) -> list[Entry]:
        """Live (unexpired) entries of one partition, oldest first."""
        ...

    def add(self, scope: str, signature: str, text: str, vector: np.ndarray, value: Any) -> Entry: ...

    def delete_scope(self, scope: str) -> int:
        """Remove every entry of ``scope``; returns how many there were."""
        ...

    def clear(self) -> None: ...

    def __len__(self) -> int: ...


class MemoryPartitions:
    """Partitions in a dict, least recently used partitions evicted past ``max_partitions``."""

    def __init__(self, *, ttl: float, per_partition: int, max_partitions: int = 50_000,
                 clock: Clock = time.time) -> None:
        self.ttl, self.per_partition, self.max_partitions, self.clock = ttl, per_partition, max_partitions, clock
        self._parts: OrderedDict[tuple[str, str], list[Entry]] = OrderedDict()
        self._by_scope: dict[str, set[tuple[str, str]]] = {}
        self._lock = threading.Lock()

    def entries(self, scope: str, signature: str) -> list[Entry]:
        key = (scope, signature)
        now = self.clock()
        with self._lock:
            part = self._parts.get(key)
            if part is None:
                return []
            live = [e for e in part if e.expires_at > now]
            if len(live) != len(part):
                self._store(key, live)
            elif live:
                self._parts.move_to_end(key)
            return live

    def add(self, scope: str, signature: str, text: str, vector: np.ndarray, value: Any) -> Entry:
        now = self.clock()
        entry = Entry(uuid.uuid4().hex, text, np.asarray(vector, dtype=np.float32), value, now, now + self.ttl)
        key = (scope, signature)
        with self._lock:
            live = [e for e in self._parts.get(key, []) if e.expires_at > now and e.text != text]
            self._store(key, [*live, entry][-self.per_partition :])
            while len(self._parts) > self.max_partitions:
                old_key, _ = self._parts.popitem(last=False)
                self._unindex(old_key)
        return entry

    def _store(self, key: tuple[str, str], entries: list[Entry]) -> None:
        if entries:
            self._parts[key] = entries
            self._parts.move_to_end(key)
            self._by_scope.setdefault(key[0], set()).add(key)
        else:
            self._parts.pop(key, None)
            self._unindex(key)

    def _unindex(self, key: tuple[str, str]) -> None:
        keys = self._by_scope.get(key[0])
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_scope[key[0]]

    def delete_scope(self, scope: str) -> int:
        with self._lock:
            keys = self._by_scope.pop(scope, set())
            return sum(len(self._parts.pop(key, [])) for key in keys)

    def clear(self) -> None:
        with self._lock:
            self._parts.clear()
            self._by_scope.clear()

    def __len__(self) -> int:
        with self._lock:
            return sum(len(p) for p in self._parts.values())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class RedisPartitions:
    """One Redis hash per partition (``<ns>:p:<scope digest>:<signature>``, field = entry id, value =
    JSON with the base64 float32 vector) and one set per scope listing its partitions.

    Expiry is logical (each entry carries ``expires_at`` from the injected clock, expired fields are
    removed when read), and each key also gets a Redis TTL of ``ttl`` from its last write, so idle
    partitions vanish on their own. Writes go through a MULTI pipeline.
    """

    def __init__(self, client: Any, *, namespace: str, ttl: float, per_partition: int,
                 clock: Clock = time.time) -> None:
        self.client, self.prefix = client, f"graphagents:semcache:{namespace}"
        self.ttl, self.per_partition, self.clock = ttl, per_partition, clock

    def _part_key(self, scope: str, signature: str) -> str:
        return f"{self.prefix}:p:{_digest(scope)}:{signature}"

    def _scope_key(self, scope: str) -> str:
        return f"{self.prefix}:s:{_digest(scope)}"

    @staticmethod
    def _decode(field: bytes, raw: bytes) -> Entry:
        data = json.loads(raw)
        vector = np.frombuffer(base64.b64decode(data["v"]), dtype=np.float32)
        return Entry(field.decode(), data["t"], vector, data["val"], data["c"], data["e"])

    def entries(self, scope: str, signature: str) -> list[Entry]:
        key = self._part_key(scope, signature)
        now = self.clock()
        live: list[Entry] = []
        dead: list[Entry] = []
        for field, raw in self.client.hgetall(key).items():
            entry = self._decode(field, raw)
            (live if entry.expires_at > now else dead).append(entry)
        if dead:
            self.client.hdel(key, *[e.id for e in dead])
        return sorted(live, key=lambda e: (e.created_at, e.id))

    def add(self, scope: str, signature: str, text: str, vector: np.ndarray, value: Any) -> Entry:
        now = self.clock()
        entry = Entry(uuid.uuid4().hex, text, np.asarray(vector, dtype=np.float32), value, now, now + self.ttl)
        key, scope_key = self._part_key(scope, signature), self._scope_key(scope)
        current = self.entries(scope, signature)
        drop = [e.id for e in current if e.text == text]
        keep = [e for e in current if e.text != text]
        drop += [e.id for e in keep[: max(0, len(keep) + 1 - self.per_partition)]]
        blob = json.dumps({"t": text, "v": base64.b64encode(entry.vector.tobytes()).decode("ascii"),
                           "val": value, "c": entry.created_at, "e": entry.expires_at}, ensure_ascii=False, default=str)
        seconds = max(1, int(self.ttl) + 1)
        with self.client.pipeline(transaction=True) as pipe:
            if drop:
                pipe.hdel(key, *drop)
            pipe.hset(key, entry.id, blob)
            pipe.expire(key, seconds)
            pipe.sadd(scope_key, key)
            pipe.expire(scope_key, seconds)
            pipe.execute()
        return entry

    def delete_scope(self, scope: str) -> int:
        scope_key = self._scope_key(scope)
        keys = [k.decode() for k in self.client.smembers(scope_key)]
        if not keys:
            return 0
        with self.client.pipeline(transaction=True) as pipe:
            for key in keys:
                pipe.hlen(key)
            counts = pipe.execute()
            pipe.delete(*keys, scope_key)
            pipe.execute()
        return int(sum(counts))

    def clear(self) -> None:
        keys = list(self.client.scan_iter(match=f"{self.prefix}:*", count=1000))
        for start in range(0, len(keys), 500):
            self.client.delete(*keys[start : start + 500])

    def __len__(self) -> int:
        return int(sum(self.client.hlen(k) for k in self.client.scan_iter(match=f"{self.prefix}:p:*", count=1000)))


__all__ = ["Entry", "MemoryPartitions", "Partitions", "RedisPartitions"]
