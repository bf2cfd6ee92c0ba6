"""The embedded store keeps its indexes on disk (reopen maps them, nothing is re-indexed) and searches
large stores through an HNSW graph whose candidates are re-scored exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from rt_helpers import CountingFake

from graphagents.retrieval import Document, FakeEmbedder, Store, open_store
from graphagents.retrieval._embedded import EmbeddedStore

WORDS = ["fever", "cough", "insulin", "metformin", "stroke", "salt", "sleep", "asthma", "rash", "migraine",
         "kidney", "liver", "vaccine", "allergy", "anemia", "thyroid"]


def corpus(n: int) -> list[Document]:
    rng = np.random.default_rng(3)
    return [Document(f"d{i:04d}", " ".join(rng.choice(WORDS, size=12)) + f" case {i}", {"n": i}) for i in range(n)]


def _open(tmp_path: Path, embedder: FakeEmbedder, **options: object) -> EmbeddedStore:
    store = open_store(f"file://{tmp_path}", "p", embedder, **options)
    assert isinstance(store, EmbeddedStore)
    return store


def _results(store: Store, queries: list[str]) -> list[list[tuple[str, float]]]:
    return [[(h.id, h.score) for h in store.search(q, 8, mode)]
            for q in queries for mode in ("bm25", "dense", "hybrid")]


QUERIES = ["fever and cough", "insulin metformin", "stroke salt kidney", "case 17", "thyroid anemia rash"]


def test_reopen_maps_the_saved_indexes_instead_of_rebuilding(tmp_path: Path, fake: CountingFake,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    store = _open(tmp_path, fake)
    store.upsert(corpus(200))
    before = _results(store, QUERIES)
    assert not store.snapshot().loaded_from_disk
    store.close()
    embedded = len(fake.seen)
    reopened = _open(tmp_path, fake)
    monkeypatch.setattr(EmbeddedStore, "_build", lambda self: pytest.fail("rebuilt instead of loading"))
    assert _results(reopened, QUERIES) == before
    assert reopened.snapshot().loaded_from_disk
    assert len(fake.seen) == embedded  # nothing embedded again (the queries come from the LRU)
    monkeypatch.undo()
    reopened.upsert([Document("new", "fever fever fever", {})])  # a write: a new generation, rebuilt and saved
    assert reopened.search("fever", 1, "bm25")[0].id == "new"
    saved = sorted(p.name for p in tmp_path.joinpath("p").glob("index-*"))
    assert saved == [f"index-{reopened.snapshot().generation}"]  # older generations' folders are removed
    reopened.close()


def test_a_damaged_saved_index_is_rebuilt(tmp_path: Path, fake: CountingFake) -> None:
    store = _open(tmp_path, fake)
    store.upsert(corpus(50))
    before = _results(store, QUERIES)
    generation = store.snapshot().generation
    store.close()
    (tmp_path / "p" / f"index-{generation}" / "vectors.npy").write_bytes(b"garbage")
    reopened = _open(tmp_path, fake)
    assert _results(reopened, QUERIES) == before and not reopened.snapshot().loaded_from_disk
    shutil.rmtree(tmp_path / "p" / f"index-{generation}")
    again = _open(tmp_path, fake)
    assert _results(again, QUERIES) == before


def test_saved_indexes_of_a_replaced_database_are_not_used(tmp_path: Path, fake: CountingFake) -> None:
    store = _open(tmp_path, fake)
    store.upsert(corpus(30))
    store.search("fever", 3)
    store.close()
    (tmp_path / "p" / "store.sqlite").unlink()  # someone deletes the database but not the index folders
    for extra in ("store.sqlite-wal", "store.sqlite-shm"):
        (tmp_path / "p" / extra).unlink(missing_ok=True)
    fresh = _open(tmp_path, fake)
    fresh.upsert([Document("only", "fever", {})])
    assert [h.id for h in fresh.search("fever", 5, "bm25")] == ["only"] and not fresh.snapshot().loaded_from_disk


def test_large_stores_search_an_hnsw_graph_and_rescore_exactly(tmp_path: Path, fake: CountingFake) -> None:
    docs = corpus(600)
    exact = _open(tmp_path / "exact", fake)
    exact.upsert(docs)
    graph = _open(tmp_path / "graph", fake, exact_limit=100)
    graph.upsert(docs)
    assert graph.snapshot().hnsw is not None and exact.snapshot().hnsw is None
    found = wanted = 0
    for q in QUERIES:
        truth = {h.id: h.score for h in exact.search(q, 600, "dense")}  # every cosine, exactly
        want = [h.id for h in exact.search(q, 10, "dense")]
        got = graph.search(q, 10, "dense")
        assert all(h.score == truth[h.id] for h in got)  # candidates are re-scored exactly
        assert [h.score for h in got] == sorted((h.score for h in got), reverse=True)
        found, wanted = found + len({h.id for h in got} & set(want)), wanted + len(want)
    assert found / wanted >= 0.9  # approximate: the graph may miss a true neighbour now and then
    before = [(h.id, h.score) for h in graph.search(QUERIES[0], 10, "dense")]
    graph.close()
    reopened = _open(tmp_path / "graph", fake, exact_limit=100)
    assert reopened.snapshot().loaded_from_disk and reopened.snapshot().hnsw is not None
    assert [(h.id, h.score) for h in reopened.search(QUERIES[0], 10, "dense")] == before  # the same graph


def test_ingest_saves_the_indexes_once_at_its_end(tmp_path: Path, fake: CountingFake,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from graphagents.retrieval import ingest

    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(3):
        (folder / f"f{i}.txt").write_text(f"Fever and cough, file {i}. Rest helps.", encoding="utf-8")
    store = _open(tmp_path / "s", fake)
    builds: list[int] = []
    original = EmbeddedStore._build
    monkeypatch.setattr(EmbeddedStore, "_build", lambda self: builds.append(1) or original(self))
    ingest([folder], store, progress=False)
    assert builds == [1]  # one build for three files, by the writer
    generation = store.snapshot().generation
    assert (tmp_path / "s" / "p" / f"index-{generation}" / "meta.json").exists()
    reader = _open(tmp_path / "s", FakeEmbedder(dim=fake.dim))
    assert reader.snapshot().loaded_from_disk  # another process maps what the writer saved
