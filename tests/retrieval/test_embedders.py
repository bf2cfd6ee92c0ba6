from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rt_helpers import CountingFake

from graphagents.errors import MissingExtraError, UnknownProviderError
from graphagents.retrieval import Embedder, FakeEmbedder, VectorCache, load_embedder
from graphagents.retrieval._embed import LRU_BATCH_LIMIT, LangChainEmbedder


def test_fake_is_deterministic_normalised_and_sensible() -> None:
    a, b = FakeEmbedder(dim=128), FakeEmbedder(dim=128)
    texts = ["metformin side effects", "side effects of metformin", "how to file taxes", ""]
    va, vb = a.embed(texts), b.embed(texts)
    assert va.dtype == np.float32 and va.shape == (4, 128)
    assert np.array_equal(va, vb)
    assert np.allclose(np.linalg.norm(va[:3], axis=1), 1.0) and not va[3].any()  # empty text: zero row
    assert va[0] @ va[1] > va[0] @ va[2] + 0.3
    assert isinstance(a, Embedder)


def test_embed_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError, match="embed_one"):
        FakeEmbedder().embed("text")


def test_repeats_and_whitespace_hit_the_lru(fake: CountingFake) -> None:
    first = fake.embed(["고객 수", "매출"])
    again = fake.embed(["  고객 수 ", "매출", "고객 수"])
    assert fake.seen == ["고객 수", "매출"]
    assert np.array_equal(again[0], first[0]) and np.array_equal(again[2], first[0])


def test_bulk_calls_do_not_evict_query_vectors(fake: CountingFake) -> None:
    """The schema-search p95 tail: building an index must not flush the vectors of live queries."""
    fake._memory_size = 16
    fake.embed_one("the query")
    fake.embed([f"document {i}" for i in range(LRU_BATCH_LIMIT + 1)])
    fake.seen.clear()
    fake.embed_one("the query")
    assert fake.seen == []


def test_disk_cache_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    first = CountingFake(dim=32, disk=VectorCache(path))
    v1 = first.embed(["alpha", "beta"])
    restarted = CountingFake(dim=32, disk=VectorCache(path))
    v2 = restarted.embed(["beta", "alpha", "gamma"])
    assert restarted.seen == ["gamma"]  # only the new text reaches the model
    assert np.array_equal(v2[0], v1[1]) and np.array_equal(v2[1], v1[0])
    assert len(VectorCache(path)) == 3


def test_unwritable_disk_cache_only_costs_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    embedder = CountingFake(dim=16, disk=VectorCache(blocker / "sub" / "vectors.sqlite"))
    assert embedder.embed(["x"]).shape == (1, 16) and embedder.seen == ["x"]


def test_load_embedder_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_embedder("fake") is load_embedder("fake")  # shared per process
    assert load_embedder("fake").name == "fake"
    with pytest.raises(UnknownProviderError, match="offline, fake, openai:<model>"):
        load_embedder("word2vec")
    with pytest.raises(UnknownProviderError):
        load_embedder("openai:")
    from graphagents.settings import get_settings

    monkeypatch.setenv("GRAPHAGENTS_EMBEDDER", "fake")
    get_settings.cache_clear()
    try:
        assert load_embedder() is load_embedder("fake")  # the setting picks the default
    finally:
        monkeypatch.delenv("GRAPHAGENTS_EMBEDDER")
        get_settings.cache_clear()  # no later test may see the fake as its default


def test_provider_without_its_extra_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    # None in sys.modules makes an import fail as if the package were absent, whether or not another
    # test of this process has imported it (the test extra installs langchain-openai)
    monkeypatch.setitem(sys.modules, "langchain_openai", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'graphagents\[openai\]'"):
        load_embedder("openai:text-embedding-3-small")


def test_langchain_embeddings_behind_the_protocol() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=24), "lc:fake")
    assert embedder.dim == 24
    vectors = embedder.embed(["a", "b"])
    assert vectors.shape == (2, 24) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_offline_encoder_is_multilingual(offline: Embedder) -> None:
    ko, en, other = offline.embed(["메트포르민 부작용", "side effects of metformin", "주택 임대차 계약"])
    assert offline.dim == 512
    assert float(ko @ en) > float(ko @ other)
