"""The embedded store: writes, idempotence, search modes and the BM25 it computes."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from rt_helpers import CountingFake

from graphagents.errors import ConfigError, InputError
from graphagents.retrieval import Document, FakeEmbedder, Store, open_store, rrf, terms

DOCS = [
    Document("flu", "Influenza causes fever, cough and muscle aches. Rest and fluids help.", {"topic": "flu"}),
    Document("dm2", "Type 2 diabetes is treated with metformin, diet and exercise.", {"topic": "diabetes"}),
    Document("dm1", "Type 1 diabetes needs insulin because the pancreas makes none.", {"topic": "diabetes"}),
    Document("htn", "High blood pressure raises the risk of stroke; salt makes it worse.", {"topic": "bp"}),
    Document("ko", "당뇨병 환자는 공복혈당을 매일 확인해야 합니다.", {"topic": "diabetes", "lang": "ko"}),
]


def _store(tmp_path: Path, embedder: FakeEmbedder, name: str = "t") -> Store:
    return open_store(f"file://{tmp_path}", name, embedder)


def test_upsert_is_idempotent_and_embeds_only_changes(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    first = store.upsert(DOCS)
    assert (first.added, first.updated, first.unchanged) == (5, 0, 0) and len(store) == 5
    fake.seen.clear()
    again = store.upsert(DOCS)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5) and fake.seen == []
    changed = Document("flu", "Influenza is a viral infection of the airways.", {"topic": "flu"})
    result = store.upsert([changed, DOCS[1]])
    assert (result.added, result.updated, result.unchanged) == (0, 1, 1)
    assert fake.seen == [changed.text]
    assert store.get(["flu"])["flu"].text == changed.text
    assert store.search("viral airways", 1, "bm25")[0].id == "flu"


def test_metadata_change_is_an_update(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.upsert(DOCS[:1])
    result = store.upsert([Document("flu", DOCS[0].text, {"topic": "influenza"})])
    assert result.updated == 1 and store.get(["flu"])["flu"].metadata == {"topic": "influenza"}


def test_add_refuses_to_overwrite(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.add(DOCS)
    assert store.add(DOCS).unchanged == 5
    with pytest.raises(InputError, match="already exist"):
        store.add([Document("flu", "other text")])
    with pytest.raises(InputError, match="twice"):
        store.upsert([Document("x", "a"), Document("x", "b")])
    with pytest.raises(ValueError, match="non-empty"):
        Document(" ", "text")


def test_search_modes_and_hit_fields(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.upsert(DOCS)
    bm25 = store.search("metformin for type 2 diabetes", 3, "bm25")
    assert bm25[0].id == "dm2" and bm25[0].mode == "bm25" and bm25[0].bm25_rank == 1
    assert bm25[0].score == bm25[0].bm25_score and bm25[0].dense_rank is None
    assert bm25[0].metadata == {"topic": "diabetes"} and "metformin" in bm25[0].text
    dense = store.search("metformin for type 2 diabetes", 3, "dense")
    assert [h.dense_rank for h in dense] == [1, 2, 3] and dense[0].dense_score == dense[0].score
    hybrid = store.search("metformin for type 2 diabetes", 5, "hybrid")
    assert hybrid[0].id == "dm2" and hybrid[0].bm25_rank == 1
    expected = rrf([[h.id for h in store.search("metformin for type 2 diabetes", 20, m)] for m in ("bm25", "dense")])
    assert [h.id for h in hybrid] == [doc_id for doc_id, _ in expected[:5]]
    assert store.search("공복혈당", 1, "bm25")[0].id == "ko"
    assert store.search("", 5) == [] and store.search("diabetes", 0) == []
    assert store.search("zzzz qqqq", 5, "bm25") == []  # no term in the corpus: no lexical hit
    with pytest.raises(ConfigError, match="unknown search mode"):
        store.search("x", 3, "sparse")  # type: ignore[arg-type]


def _reference_bm25(corpus: dict[str, list[str]], query: list[str], k1: float = 1.5, b: float = 0.75) -> dict:
    """BM25 (Lucene variant) written out by hand, to check what the store computes."""
    n = len(corpus)
    avgdl = sum(len(t) for t in corpus.values()) / n
    df = Counter(term for t in corpus.values() for term in set(t))
    out = {}
    for doc_id, doc_terms in corpus.items():
        tf = Counter(doc_terms)
        norm = k1 * (1 - b + b * len(doc_terms) / avgdl)
        score = sum(math.log(1 + (n - df[q] + 0.5) / (df[q] + 0.5)) * tf[q] / (tf[q] + norm)
                    for q in set(query) if q in tf)
        if score > 0:
            out[doc_id] = score
    return out


def test_bm25_scores_are_bm25(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.upsert(DOCS)
    query = "type 2 diabetes metformin risk"
    expected = _reference_bm25({d.id: terms(d.text) for d in DOCS}, terms(query))
    got = {h.id: h.score for h in store.search(query, 10, "bm25")}
    assert set(got) == set(expected)
    for doc_id, score in expected.items():
        assert got[doc_id] == pytest.approx(score, rel=1e-4)


def test_title_is_indexed_but_not_returned(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.upsert([Document("c1", "It is treated with rest.", {"title": "Influenza"}),
                  Document("c2", "It is treated with insulin.", {"title": "Diabetes"})])
    hit = store.search("influenza", 1, "bm25")[0]
    assert hit.id == "c1" and hit.text == "It is treated with rest." and hit.metadata["title"] == "Influenza"


def test_delete_reopen_and_other_writers(tmp_path: Path, fake: CountingFake) -> None:
    store = _store(tmp_path, fake)
    store.upsert(DOCS)
    assert store.delete(["flu", "nope"]) == 1 and len(store) == 4
    assert all(h.id != "flu" for h in store.search("influenza fever", 5))
    store.close()
    reopened = _store(tmp_path, FakeEmbedder(dim=64))
    assert len(reopened) == 4 and reopened.get(["dm1"])["dm1"].text == DOCS[2].text
    other = _store(tmp_path, FakeEmbedder(dim=64))  # another process on the same files
    assert reopened.search("influenza fever", 1, "bm25") == []
    other.upsert([DOCS[0]])
    assert reopened.search("influenza fever", 1, "bm25")[0].id == "flu"  # the new generation is seen


def test_store_remembers_its_embedder(tmp_path: Path, fake: CountingFake) -> None:
    _store(tmp_path, fake).upsert(DOCS[:1])

    class Other(FakeEmbedder):
        name = "other-model"

    with pytest.raises(ConfigError, match="holds vectors of embedder 'fake'"):
        _store(tmp_path, Other(dim=64))


def test_store_names_and_urls_are_checked(tmp_path: Path, fake: CountingFake) -> None:
    with pytest.raises(ConfigError, match="bad store name"):
        open_store(None, "Bad-Name", fake)
    with pytest.raises(ConfigError, match="unsupported store URL"):
        open_store("mysql://localhost/x", "ok", fake)
    default = open_store(None, "defaults", fake)  # under DATA_DIR/retrieval
    from graphagents.settings import get_settings

    assert str(default.directory).startswith(str(get_settings().data_dir))  # type: ignore[attr-defined]
    default.drop()
    assert not default.directory.exists()  # type: ignore[attr-defined]


def test_rrf() -> None:
    assert rrf([["a", "b", "c"], ["c", "a"]]) == [("a", pytest.approx(1 / 61 + 1 / 62)),
                                                 ("c", pytest.approx(1 / 63 + 1 / 61)), ("b", pytest.approx(1 / 62))]
    assert [i for i, _ in rrf([["x", "y"], ["y", "x"]])] == ["x", "y"]  # a tie goes to the smaller id
    assert [i for i, _ in rrf([["a"], ["b"]], weights=[1.0, 2.0])] == ["b", "a"]
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1, 2])
