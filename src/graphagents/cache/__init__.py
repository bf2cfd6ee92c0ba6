"""Caches for every agent: a key-value cache with TTL, and a scoped, slot-guarded semantic cache.

    from graphagents.cache import open_cache, open_semantic_cache, slot_signature
    results = open_cache(settings.cache_url, namespace="text2sql")      # exact keys, LRU + TTL
    answers = open_semantic_cache(settings.cache_url, namespace="rag")  # similar questions
    sig = slot_signature({"drug": "acetaminophen", "dose": "500mg"})
    hit = answers.lookup(question, scope=user_id, signature=sig)

Both live in process by default and in Redis when ``CACHE_URL`` is ``redis://...``. Import from
here; the underscore modules behind it are internals.
"""

from __future__ import annotations

from ._kv import Cache, MemoryCache, RedisCache, open_cache
from ._partitions import MemoryPartitions, RedisPartitions
from ._semantic import DEFAULT_THRESHOLD, CacheHit, SemanticCache, open_semantic_cache
from ._signature import literals, qualifiers, quantities, slot_signature, text_signature

__all__ = [
    "DEFAULT_THRESHOLD",
    "Cache",
    "CacheHit",
    "MemoryCache",
    "MemoryPartitions",
    "RedisCache",
    "RedisPartitions",
    "SemanticCache",
    "literals",
    "open_cache",
    "open_semantic_cache",
    "qualifiers",
    "quantities",
    "slot_signature",
    "text_signature",
]
