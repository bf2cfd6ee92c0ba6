"""Seed vectors: a corpus shipped with its embeddings is indexed without running the encoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rt_helpers import CountingFake

from graphagents.agents.rag.corpus import MEDICAL_VECTORS, medical_corpus_path
from graphagents.packagedata import package_path
from graphagents.retrieval import OfflineEmbedder, VectorCache, ingest, open_store, write_seed


class CountingOffline(OfflineEmbedder):
    """The real offline encoder, recording every text that reaches the model."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.seen: list[str] = []

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        return super()._embed_batch(texts)


def test_seeded_texts_never_reach_the_model_and_land_in_the_disk_cache(tmp_path: Path) -> None:
    maker = CountingFake(dim=32)
    seed = tmp_path / "seed.npz"
    assert write_seed(seed, maker, ["alpha beta", "gamma delta", " alpha beta "]) == 2
    disk = VectorCache(tmp_path / "cache.sqlite")
    user = CountingFake(dim=32, disk=disk)
    assert user.add_seed(seed)
    out = user.embed(["alpha beta", "gamma delta", "not seeded"])
    assert user.seen == ["not seeded"]  # only the text the seed lacks was embedded
    assert np.allclose(out[0], maker.embed_one("alpha beta"))
    assert set(disk.get_many(["alpha beta", "gamma delta"])) == {"alpha beta", "gamma delta"}


def test_a_seed_made_by_another_embedder_is_refused(tmp_path: Path) -> None:
    seed = tmp_path / "seed.npz"
    write_seed(seed, CountingFake(dim=32), ["alpha beta"])
    other = CountingFake(dim=16)
    assert not other.add_seed(seed)  # another width: the vectors would be meaningless
    other.embed(["alpha beta"])
    assert other.seen == ["alpha beta"]


def test_the_bundled_corpus_is_indexed_from_its_shipped_vectors(tmp_path: Path) -> None:
    """A fresh install: an empty vector cache and store, yet the 1,996 bundled passages are indexed
    without one encoder call, and a search finds what the question asks about."""
    embedder = CountingOffline(disk=VectorCache(tmp_path / "cold.sqlite"))
    assert embedder.add_seed(package_path("graphagents.agents.rag", *MEDICAL_VECTORS))
    store = open_store(f"file://{tmp_path / 'store'}", "seeded", embedder)
    report = ingest([medical_corpus_path()], store, progress=False)
    assert report.added == 1996
    assert embedder.seen == []
    hits = store.search("What are the symptoms of low blood pressure?", k=5, mode="dense")
    assert any("low blood pressure" in str(h.metadata.get("title", "")).lower() for h in hits)
    store.close()


@pytest.mark.parametrize("name", ["passages.jsonl", "README.md", "vectors-offline.npz"])
def test_the_corpus_ships_with_its_attribution_and_vectors(name: str) -> None:
    path = package_path("graphagents.agents.rag", "data", "medquad", name)
    assert path.stat().st_size > 1000
    if name == "README.md":
        text = path.read_text(encoding="utf-8")
        assert "CC BY 4.0" in text and "Ben Abacha" in text
