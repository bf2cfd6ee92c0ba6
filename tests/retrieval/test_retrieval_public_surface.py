"""The public names of graphagents.retrieval, graphagents.cache and graphagents.sql are exactly what we mean to
export."""

from __future__ import annotations

import types

import pytest

import graphagents.cache as cache
import graphagents.retrieval as retrieval
import graphagents.sql as sql

EXPECTED = {
    retrieval: {
        "MODES", "RRF_K", "CachingEmbedder", "Document", "Embedder", "FakeEmbedder", "Hit", "IngestReport", "Mode",
        "OfflineEmbedder", "SeedVectors", "SourceRecord", "Store", "UpsertResult", "VectorCache", "chunk_text",
        "ingest", "load_embedder", "matvec", "open_store", "read_documents", "rrf", "sentences", "terms", "write_seed",
    },
    cache: {
        "DEFAULT_THRESHOLD", "Cache", "CacheHit", "MemoryCache", "MemoryPartitions", "RedisCache", "RedisPartitions",
        "SemanticCache", "literals", "open_cache", "open_semantic_cache", "qualifiers", "quantities",
        "slot_signature", "text_signature",
    },
    sql: {
        "DEFAULT_ADMIN_URL", "DENIED_FUNCTIONS", "ROW_COUNT_CAP", "ColumnInfo", "Database", "DatabaseError", "Dialect",
        "ExplainPlan", "ForeignKey", "MissingDatabaseError", "PostgresDatabase", "QueryError", "QueryResult",
        "QueryRows", "QueryTimeout", "Question", "SQLiteDatabase", "SchemaInfo", "TableInfo",
        "available_defog_databases", "connect", "connection_error", "create_database", "createdb_command",
        "expand_gold_alternatives", "gold_is_ordered", "is_denied_function", "load_defog_database", "load_questions",
        "matches_gold", "normalize_value", "open_database", "psycopg_module", "question_asks_for_order",
        "results_match", "url_parts",
    },
}  # fmt: skip


@pytest.mark.parametrize("module", [retrieval, cache, sql], ids=lambda m: m.__name__)
def test_all_is_the_public_surface(module: types.ModuleType) -> None:
    assert set(module.__all__) == EXPECTED[module]
    public = {name for name, value in vars(module).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"}
    assert public == set(module.__all__)  # nothing public that __all__ does not list, and the reverse
    assert all(getattr(module, name) is not None for name in module.__all__)
