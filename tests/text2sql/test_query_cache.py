from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from graphagents.agents.text2sql.query_cache import QueryCache, cache_scope
from graphagents.cache import Cache, MemoryCache, RedisCache, open_cache

KIM = cache_scope("kim", "sqlite:///shop.db")


def _redis(url: str, ttl: float = 3600) -> RedisCache:
    """A cache in a namespace of its own (the redis_url fixture: skip locally, fail under CI)."""
    cache = open_cache(url, namespace=f"text2sql-test-{uuid.uuid4().hex[:8]}", ttl=ttl)
    assert isinstance(cache, RedisCache)
    return cache


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> Iterator[Cache]:
    if request.param == "memory":
        yield MemoryCache(maxsize=100, ttl=60)
        return
    cache = _redis(request.getfixturevalue("redis_url"))
    yield cache
    cache.clear()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  서울  고객은   몇 명?? ", "서울 고객은 몇 명"),
        ("2024년 매출 알려줘요?", "2024년 매출 알려줘"),
        ("Ｔｏｐ　５ products!", "top 5 products"),
        ("매출이 얼마인가요?", "매출이 얼마"),
        ("요", "요"),
    ],
)
def test_normalise(raw: str, expected: str) -> None:
    assert QueryCache.normalise(raw) == expected


def test_normalise_keeps_numbers_apart() -> None:
    assert QueryCache.normalise("2023년 매출?") != QueryCache.normalise("2024년 매출?")
    assert QueryCache.normalise("상위 5개") != QueryCache.normalise("상위 50개")


def test_roundtrip_and_variants_hit(backend: Cache) -> None:
    qc = QueryCache(backend)
    result = {"sql": "SELECT COUNT(*) FROM customers WHERE region_code = 'SEL'", "rows": [[1234]]}
    assert qc.get("fp1", "서울 고객 수는?", scope=KIM) is None
    qc.put("fp1", "서울 고객 수는?", result, scope=KIM)
    assert qc.get("fp1", "서울  고객 수는", scope=KIM) == result
    assert qc.get("fp1", "서울 고객 수는요?", scope=KIM) == result


def test_fingerprint_and_numbers_separate_entries(backend: Cache) -> None:
    qc = QueryCache(backend)
    qc.put("fp1", "2023년 매출", {"v": 2023}, scope=KIM)
    assert qc.get("fp2", "2023년 매출", scope=KIM) is None  # schema changed
    assert qc.get("fp1", "2024년 매출", scope=KIM) is None  # different number
    qc.put("fp1", "2024년 매출", {"v": 2024}, scope=KIM)
    assert qc.get("fp1", "2023년 매출", scope=KIM) == {"v": 2023}
    assert qc.get("fp1", "2024년 매출", scope=KIM) == {"v": 2024}
    qc.invalidate("fp1", "2023년 매출?", scope=KIM)
    assert qc.get("fp1", "2023년 매출", scope=KIM) is None


def test_blank_question_not_cached(backend: Cache) -> None:
    qc = QueryCache(backend)
    qc.put("fp", " ?? ", {"v": 1}, scope=KIM)
    assert qc.get("fp", "", scope=KIM) is None


def test_memory_lru_eviction() -> None:
    qc = QueryCache(MemoryCache(maxsize=2, ttl=60))
    qc.put("fp", "a 질문", {"v": 1}, scope=KIM)
    qc.put("fp", "b 질문", {"v": 2}, scope=KIM)
    assert qc.get("fp", "a 질문", scope=KIM) == {"v": 1}  # touch a: b becomes least recent
    qc.put("fp", "c 질문", {"v": 3}, scope=KIM)
    assert qc.get("fp", "b 질문", scope=KIM) is None
    assert qc.get("fp", "a 질문", scope=KIM) == {"v": 1}


def test_memory_ttl_expiry() -> None:
    now = [1000.0]
    qc = QueryCache(MemoryCache(maxsize=10, ttl=60, clock=lambda: now[0]))
    qc.put("fp", "질문", {"v": 1}, scope=KIM)
    now[0] += 59
    assert qc.get("fp", "질문", scope=KIM) == {"v": 1}
    now[0] += 2
    assert qc.get("fp", "질문", scope=KIM) is None


def test_redis_ttl_is_set(redis_url: str) -> None:
    cache = _redis(redis_url, ttl=30)
    try:
        qc = QueryCache(cache)
        qc.put("fp", "질문", {"v": 1}, scope=KIM)
        ttl = cache._client.ttl(cache._k(QueryCache.key("fp", "질문", KIM)))
        assert 0 < ttl <= 30
    finally:
        cache.clear()


def test_a_cached_result_belongs_to_its_user_and_database(backend: Cache) -> None:
    """One user's cached result is never served to another (their rights on the data may differ), nor
    a result read from one database to a question against another with the same schema."""
    qc = QueryCache(backend)
    qc.put("fp", "서울 고객 수", {"rows": [[1234]]}, scope=KIM)
    assert qc.get("fp", "서울 고객 수", scope=KIM) == {"rows": [[1234]]}
    assert qc.get("fp", "서울 고객 수", scope=cache_scope("lee", "sqlite:///shop.db")) is None
    assert qc.get("fp", "서울 고객 수", scope=cache_scope("kim", "postgresql://app@db/tenant2")) is None
    assert cache_scope("kim", "a") == cache_scope("kim", "a") != cache_scope("kim\x00a", "")
    assert "kim" not in QueryCache.key("fp", "질문", KIM)  # keys never show who asked


def test_erasing_a_user_removes_their_results_on_every_database_only(backend: Cache) -> None:
    """Erasure (the user-data hook) reaches every result cached for the user, whichever database it
    was read from, and leaves other users' results alone."""
    qc = QueryCache(backend)
    kim_pg = cache_scope("kim", "postgresql://app@db/tenant2")
    lee = cache_scope("lee", "sqlite:///shop.db")
    qc.put("fp", "서울 고객 수", {"rows": [[1]]}, scope=KIM)
    qc.put("fp", "부산 고객 수", {"rows": [[2]]}, scope=kim_pg)
    qc.put("fp", "서울 고객 수", {"rows": [[3]]}, scope=lee)
    assert qc.delete_user("kim") == 2
    assert qc.get("fp", "서울 고객 수", scope=KIM) is None
    assert qc.get("fp", "부산 고객 수", scope=kim_pg) is None
    assert qc.get("fp", "서울 고객 수", scope=lee) == {"rows": [[3]]}
    assert qc.delete_user("kim") == 0

