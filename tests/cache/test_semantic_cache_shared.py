"""Core additions for rag: a per-lookup threshold, and one semantic cache per (CACHE_URL, namespace,
embedder) in the process, reachable by user-data hooks for a user's erasure."""

from __future__ import annotations

from graphagents import _connections
from graphagents.cache import open_semantic_cache
from graphagents.retrieval import FakeEmbedder


def test_lookup_threshold_overrides_the_caches() -> None:
    cache = open_semantic_cache(None, namespace="t", embedder=FakeEmbedder(), threshold=0.5)
    cache.store("metformin side effects", "a", scope="u", signature="s")
    assert cache.lookup("metformin side effects", scope="u", signature="s") is not None
    assert cache.lookup("metformin side effects?", scope="u", signature="s", threshold=1.0) is None
    assert cache.lookup("metformin side effects", scope="u", signature="s", threshold=0.99) is not None


def test_semantic_cache_for_is_shared_and_listed() -> None:
    _connections.reset()
    one = _connections.semantic_cache_for(None, "ns", FakeEmbedder())
    assert _connections.semantic_cache_for(None, "ns", FakeEmbedder()) is one
    assert _connections.semantic_cache_for(None, "other", FakeEmbedder()) is not one
    assert _connections.semantic_caches(None, "ns") == [one]
    _connections.reset()
    assert _connections.semantic_caches(None, "ns") == []
