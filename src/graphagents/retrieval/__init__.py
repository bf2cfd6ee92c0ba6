"""Retrieval for every agent: embedders, BM25 over Kiwi morphemes, dense search, RRF, ingestion.

    from graphagents.retrieval import open_store, ingest
    store = open_store(None, "medical")            # embedded, under DATA_DIR/retrieval/medical
    ingest(["passages.jsonl", "my_docs/"], store)  # idempotent and incremental
    hits = store.search("메트포르민 부작용", k=8)     # hybrid: BM25 + dense fused with RRF (k=60)

``open_store("postgresql://...", name)`` keeps the same store in PostgreSQL with pgvector (HNSW for
vectors, a tsvector of the same terms for BM25), for corpora shared by many processes. Import from
here; the underscore modules behind it are internals.
"""

from __future__ import annotations

from ._documents import MODES, RRF_K, Document, Hit, Mode, UpsertResult, rrf
from ._embed import (
    CachingEmbedder,
    Embedder,
    FakeEmbedder,
    OfflineEmbedder,
    SeedVectors,
    load_embedder,
    write_seed,
)
from ._ingest import IngestReport, ingest, read_documents
from ._linalg import matvec
from ._store import SourceRecord, Store, open_store
from ._text import chunk_text, sentences, terms
from ._vector_cache import VectorCache

__all__ = [
    "MODES",
    "RRF_K",
    "CachingEmbedder",
    "Document",
    "Embedder",
    "FakeEmbedder",
    "Hit",
    "IngestReport",
    "Mode",
    "OfflineEmbedder",
    "SeedVectors",
    "SourceRecord",
    "Store",
    "UpsertResult",
    "VectorCache",
    "chunk_text",
    "ingest",
    "load_embedder",
    "matvec",
    "open_store",
    "read_documents",
    "rrf",
    "sentences",
    "terms",
    "write_seed",
]
