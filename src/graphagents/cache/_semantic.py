"""A semantic cache any agent can use: a hit needs the same scope, an equal signature AND a close
embedding.

``scope`` is whose answer it is (a user id, or a hash of the profile the answer was written for:
one user's answers never reach another); ``signature`` digests the slots the answer depends on
(see :mod:`._signature`); the embedding similarity (cosine >= ``threshold``) only decides between
questions that already agree on both. Lookups compare the query with the few entries of one
partition, so their cost does not grow with the cache.

The default threshold is the rag design note's 0.85. Alone it serves wrong answers ("타이레놀 500mg
하루 몇 번?" vs "1000mg" score 0.95 with the offline encoder); behind the signature it separates
paraphrases (0.85-0.97 on our Korean and English pairs) from other questions about the same slots.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from graphagents.errors import ConfigError

from ._kv import is_redis_url, redis_client
from ._partitions import Clock, MemoryPartitions, Partitions, RedisPartitions

if TYPE_CHECKING:
    from graphagents.retrieval import Embedder

DEFAULT_THRESHOLD = 0.85


@dataclass(frozen=True)
class CacheHit:
    value: Any
    similarity: float
    text: str  # the cached question the value was stored for
    created_at: float


class SemanticCache:
    """``lookup`` / ``store`` / ``delete_scope`` over a partition store (memory or Redis)."""

    def __init__(self, partitions: Partitions, embedder: Embedder, *, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigError(f"semantic cache threshold must be in (0, 1], got {threshold}")
        self.partitions = partitions
        self.embedder = embedder
        self.threshold = threshold

    def _vector(self, text: str, vector: np.ndarray | Sequence[float] | None) -> np.ndarray:
        return self.embedder.embed_one(text) if vector is None else np.asarray(vector, dtype=np.float32)

    def lookup(self, text: str, *, scope: str, signature: str,
               vector: np.ndarray | Sequence[float] | None = None, threshold: float | None = None) -> CacheHit | None:
        """The closest entry of the ``(scope, signature)`` partition if its similarity reaches the
        threshold (the cache's, or ``threshold`` for this lookup: a per-session setting).
        ``vector`` skips embedding ``text`` when the caller has it already."""
        if not text.strip():
            return None
        entries = self.partitions.entries(scope, signature)
        if not entries:
            return None
        query = self._vector(text, vector)
        similarities = np.stack([e.vector for e in entries]) @ query
        best = int(np.argmax(similarities))
        score = float(similarities[best])
        if score < (self.threshold if threshold is None else threshold):
            return None
        entry = entries[best]
        return CacheHit(entry.value, round(score, 4), entry.text, entry.created_at)

    def store(self, text: str, value: Any, *, scope: str, signature: str,
              vector: np.ndarray | Sequence[float] | None = None) -> None:
        """Remember ``value`` (JSON-able) as the answer to ``text`` for this scope and signature;
        storing the same text again replaces its entry."""
        if text.strip():
            self.partitions.add(scope, signature, text, self._vector(text, vector), value)

    def delete_scope(self, scope: str) -> int:
        """Forget every entry of ``scope`` (a user's data deletion); returns how many there were."""
        return self.partitions.delete_scope(scope)

    def clear(self) -> None:
        self.partitions.clear()

    def __len__(self) -> int:
        return len(self.partitions)


def open_semantic_cache(
    url: str | None,
    *,
    namespace: str,
    embedder: Embedder | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    ttl: float = 24 * 3600,
    per_partition: int = 32,
    max_partitions: int = 50_000,
    clock: Clock = time.time,
) -> SemanticCache:
    """In process when ``url`` is unset or ``"memory"``; in Redis (shared by every process of the
    deployment) for ``redis://...``: pass ``settings.cache_url``. ``clock`` is for tests."""
    if embedder is None:
        from graphagents.retrieval import load_embedder

        embedder = load_embedder()
    partitions: Partitions
    if not url or url == "memory":
        partitions = MemoryPartitions(ttl=ttl, per_partition=per_partition, max_partitions=max_partitions, clock=clock)
    elif is_redis_url(url):
        partitions = RedisPartitions(redis_client(url), namespace=namespace, ttl=ttl, per_partition=per_partition,
                                     clock=clock)
    else:
        from graphagents.errors import redact_url

        raise ConfigError(f"unsupported CACHE_URL {redact_url(url)!r}: leave it unset or use redis://host:port/db")
    return SemanticCache(partitions, embedder, threshold=threshold)


__all__ = ["DEFAULT_THRESHOLD", "CacheHit", "SemanticCache", "open_semantic_cache"]
