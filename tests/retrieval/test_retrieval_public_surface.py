"""The public names of graphagents.retrieval and graphagents.cache are exactly what we mean to export."""

from __future__ import annotations

import types

import pytest

import graphagents.cache as cache
import graphagents.retrieval as retrieval

EXPECTED = {
    retrieval: {
        "MODES", "RRF_K", "CachingEmbedder", "Document", "Embedder", "FakeEmbedder", "Hit", "IngestReport", "Mode",
        "OfflineEmbedder", "SourceRecord", "Store", "UpsertResult", "VectorCache", "chunk_text", "ingest",
        "load_embedder", "matvec", "open_store", "rrf", "sentences", "terms", "write_seed",
    },
    cache: {
        "DEFAULT_THRESHOLD", "Cache", "CacheHit", "MemoryCache", "MemoryPartitions", "RedisCache", "RedisPartitions",
        "SemanticCache", "literals", "open_cache", "open_semantic_cache", "qualifiers", "quantities",
        "slot_signature", "text_signature",
    },
}  # fmt: skip


@pytest.mark.parametrize("module", [retrieval, cache], ids=lambda m: m.__name__)
def test_all_is_the_public_surface(module: types.ModuleType) -> None:
    assert set(module.__all__) == EXPECTED[module]
    public = {name for name, value in vars(module).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"}
    assert public == set(module.__all__)  # nothing public that __all__ does not list, and the reverse
    assert all(getattr(module, name) is not None for name in module.__all__)
