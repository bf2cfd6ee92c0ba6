"""The semantic cache, in process and in a real Redis: scope, signature and similarity all needed."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from cache_helpers import FakeClock

from graphagents.cache import SemanticCache, open_semantic_cache, slot_signature, text_signature
from graphagents.errors import ConfigError
from graphagents.packagedata import package_path
from graphagents.retrieval import Embedder, FakeEmbedder

TRAP_A, TRAP_B = "타이레놀 500mg 하루 몇 번?", "타이레놀 1000mg 하루 몇 번?"
PARAPHRASES = [
    ("타이레놀 500mg 하루 몇 번?", "타이레놀 500mg은 하루에 몇 번 먹어요?"),
    ("타이레놀 500mg 하루 몇 번?", "타이레놀 500mg 하루 복용 횟수는?"),
    ("메트포르민 부작용이 뭐예요?", "메트포르민의 부작용은 무엇인가요?"),
    ("What are the side effects of metformin?", "What side effects does metformin have?"),
    ("What are the side effects of metformin?", "metformin side effects?"),
]


def _sig(drug: str, text: str) -> str:
    from graphagents.cache import quantities

    return slot_signature({"drug": drug, "doses": quantities(text)})


@pytest.fixture(params=["memory", "redis"])
def make_cache(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator:
    made: list[SemanticCache] = []

    def make(embedder: Embedder, **kwargs: object) -> SemanticCache:
        url = None if request.param == "memory" else request.getfixturevalue("redis_url")
        cache = open_semantic_cache(url, namespace=f"test-{uuid.uuid4().hex[:8]}", embedder=embedder,
                                    clock=clock, **kwargs)  # type: ignore[arg-type]
        made.append(cache)
        return cache

    yield make
    for cache in made:
        cache.clear()


def test_dose_trap_is_close_but_never_a_hit(make_cache, offline: Embedder) -> None:
    cache = make_cache(offline)
    assert float(offline.embed_one(TRAP_A) @ offline.embed_one(TRAP_B)) > 0.93  # the encoder alone would serve it
    cache.store(TRAP_A, {"answer": "500mg: 4-6시간마다"}, scope="u1", signature=_sig("acetaminophen", TRAP_A))
    assert cache.lookup(TRAP_B, scope="u1", signature=_sig("acetaminophen", TRAP_B)) is None
    hit = cache.lookup(TRAP_A, scope="u1", signature=_sig("acetaminophen", TRAP_A))
    assert hit is not None and hit.value == {"answer": "500mg: 4-6시간마다"} and hit.similarity > 0.99


def test_paraphrases_with_equal_signatures_hit(make_cache, offline: Embedder) -> None:
    cache = make_cache(offline)
    for i, (stored, asked) in enumerate(PARAPHRASES):
        sig = text_signature(stored, entity_words=["타이레놀", "메트포르민", "metformin"], extra={"i": i})
        cache.store(stored, {"i": i}, scope="u1", signature=sig)
        hit = cache.lookup(asked, scope="u1", signature=sig)
        assert hit is not None and hit.value == {"i": i} and hit.text == stored, (stored, asked)
        assert hit.similarity >= cache.threshold


def test_scope_separates_users_and_delete_scope_forgets_one(make_cache) -> None:
    cache = make_cache(FakeEmbedder(dim=64))
    for user in ("u1", "u2"):
        for q in ("aspirin dose", "ibuprofen dose"):
            cache.store(q, f"{user}:{q}", scope=user, signature=q.split()[0])
    assert cache.lookup("aspirin dose", scope="u3", signature="aspirin") is None
    assert cache.lookup("aspirin dose", scope="u2", signature="aspirin").value == "u2:aspirin dose"  # type: ignore[union-attr]
    assert len(cache) == 4
    assert cache.delete_scope("u1") == 2 and cache.delete_scope("u1") == 0
    assert cache.lookup("aspirin dose", scope="u1", signature="aspirin") is None
    assert cache.lookup("ibuprofen dose", scope="u2", signature="ibuprofen").value == "u2:ibuprofen dose"  # type: ignore[union-attr]
    assert len(cache) == 2


def test_ttl_with_an_injected_clock(make_cache, clock: FakeClock) -> None:
    cache = make_cache(FakeEmbedder(dim=64), ttl=600)
    cache.store("question", "answer", scope="u", signature="s")
    clock.advance(599)
    assert cache.lookup("question", scope="u", signature="s") is not None
    clock.advance(2)
    assert cache.lookup("question", scope="u", signature="s") is None
    assert len(cache) == 0  # the expired entry is gone, not only hidden


def test_partitions_are_capped_and_restoring_replaces(make_cache, clock: FakeClock) -> None:
    cache = make_cache(FakeEmbedder(dim=64), per_partition=3)
    for i in range(5):
        cache.store(f"question number {i}", i, scope="u", signature="s")
        clock.advance(1)
    assert cache.partitions.entries("u", "s")[0].text == "question number 2"  # the oldest two went
    cache.store("question number 4", "new", scope="u", signature="s")
    entries = cache.partitions.entries("u", "s")
    assert len(entries) == 3 and entries[-1].value == "new"
    assert cache.lookup("question number 4", scope="u", signature="s").value == "new"  # type: ignore[union-attr]


def test_lookup_edges(make_cache) -> None:
    cache = make_cache(FakeEmbedder(dim=64), threshold=0.99)
    cache.store("", "nothing", scope="u", signature="s")
    assert len(cache) == 0 and cache.lookup("  ", scope="u", signature="s") is None
    cache.store("a question", "v", scope="u", signature="s", vector=np.eye(64, dtype=np.float32)[0])
    assert cache.lookup("whatever text", scope="u", signature="s", vector=np.eye(64)[0]).value == "v"  # type: ignore[union-attr]
    assert cache.lookup("whatever text", scope="u", signature="s", vector=np.eye(64)[1]) is None


def test_redis_entries_are_shared_between_processes(redis_url: str, clock: FakeClock) -> None:
    namespace = f"test-{uuid.uuid4().hex[:8]}"
    writer = open_semantic_cache(redis_url, namespace=namespace, embedder=FakeEmbedder(dim=64), clock=clock)
    reader = open_semantic_cache(redis_url, namespace=namespace, embedder=FakeEmbedder(dim=64), clock=clock)
    try:
        writer.store("shared question", {"a": 1}, scope="u", signature="s")
        assert reader.lookup("shared question", scope="u", signature="s").value == {"a": 1}  # type: ignore[union-attr]
        keys = list(writer.partitions.client.scan_iter(match=f"graphagents:semcache:{namespace}:*"))  # type: ignore[attr-defined]
        assert keys and all(0 < writer.partitions.client.ttl(k) <= 24 * 3600 + 1 for k in keys)  # type: ignore[attr-defined]
    finally:
        writer.clear()


def test_bad_settings() -> None:
    with pytest.raises(ConfigError, match="threshold"):
        open_semantic_cache(None, namespace="x", embedder=FakeEmbedder(), threshold=1.5)
    with pytest.raises(ConfigError, match="unsupported CACHE_URL"):
        open_semantic_cache("memcached://x", namespace="x", embedder=FakeEmbedder())


def test_medical_trap_pairs_never_hit(offline: Embedder) -> None:
    """The dev traps (age group, subtype, thresholds, profile): signatures from the profile
    and the question's quantities keep every pair apart, however close the questions read."""
    path = package_path("graphagents.agents.rag", "evaldata", "dev_cache_traps.jsonl")
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    cache = open_semantic_cache(None, namespace="traps", embedder=offline, threshold=0.85)
    false_hits = 0
    for n, pair in enumerate(pairs):
        for field in ("question", "question_ko"):
            a, b = pair["a"], pair["b"]
            sig_a = text_signature(a[field], extra=a["profile"])
            sig_b = text_signature(b[field], extra=b["profile"])
            cache.store(a[field], n, scope="user", signature=sig_a)
            false_hits += cache.lookup(b[field], scope="user", signature=sig_b) is not None
    assert len(pairs) >= 19 and false_hits == 0
