from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from t2s_helpers import temporary_pg_database

from graphagents.agents.text2sql.memory import (
    MemoryScope,
    QueryMemory,
    delete_user_entries,
    export_user_entries,
    question_literals,
)
from graphagents.retrieval import load_embedder as get_embedder
from graphagents.store import Database, open_database

SQL_SEOUL = "SELECT COUNT(*) FROM customers WHERE region_code = 'SEL'"
KIM = MemoryScope.for_user("kim", "sqlite:///shop.db")


@pytest.fixture(scope="module")
def pg_memory_url(pg_admin_url: str) -> Iterator[str]:
    """A database of our own on the shared server (pg_admin_url: skip locally, fail under CI)."""
    with temporary_pg_database(pg_admin_url, "t2s_memory") as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def app_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        db = open_database(f"sqlite:///{tmp_path / 'app.db'}")
    else:
        db = open_database(request.getfixturevalue("pg_memory_url"))
    yield db
    db.close()


@pytest.fixture
def fp() -> str:
    return f"fp-{uuid.uuid4().hex[:8]}"


def test_literals() -> None:
    assert question_literals("2024년 매출 상위 10개") == {"#2024", "#10"}
    assert question_literals("이름이 '홍길동'인 고객") == {"'홍길동'"}
    assert question_literals("서울 고객 수", ["서울", "부산"]) == {"서울"}


def test_empty_memory_generates_new(app_db: Database, fp: str) -> None:
    result = QueryMemory(app_db, get_embedder()).find(fp, "서울 고객 수는?", scope=KIM)
    assert result.action == "GENERATE_NEW" and result.best is None and result.candidates == ()


def test_same_question_is_immediate_reuse(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    memory.record(fp, "서울 고객 수는?", SQL_SEOUL, success=True, scope=KIM, value_mappings={"서울": "SEL"})
    result = memory.find(fp, "서울 고객 수는?", scope=KIM)
    assert result.action == "IMMEDIATE_TEMPLATE_REUSE"
    assert result.best is not None and result.best.sql == SQL_SEOUL
    assert result.best.value_mappings == {"서울": "SEL"}
    assert result.best.similarity > 0.99 and result.best.success_rate == 1.0 and result.best.usage == 1.0


def test_different_number_downgrades_to_adapt(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    sql = "SELECT SUM(amount) FROM payments WHERE paid_date LIKE '2023%'"
    memory.record(fp, "2023년 결제 금액 합계", sql, success=True, scope=KIM)
    result = memory.find(fp, "2024년 결제 금액 합계", scope=KIM)
    assert result.best is not None and result.best.score > 0.9, result  # the encoder alone would reuse
    assert result.action == "ADAPT_TEMPLATE"
    assert any("#2023" in s and "#2024" in s for s in result.suggestions)


def test_different_entity_downgrades_to_adapt(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    memory.record(fp, "서울 고객 수는?", SQL_SEOUL, success=True, scope=KIM, value_mappings={"서울": "SEL"})
    result = memory.find(fp, "부산 고객 수는?", scope=KIM)
    assert result.action == "ADAPT_TEMPLATE", result
    # a caller-known entity is enough even without a stored mapping
    memory2 = QueryMemory(app_db, get_embedder(), entity_words=["VIP", "실버"])
    memory2.record(fp, "VIP 고객 목록", "SELECT * FROM customers WHERE grade_code = 'V'", success=True, scope=KIM)
    assert memory2.find(fp, "실버 고객 목록", scope=KIM).action != "IMMEDIATE_TEMPLATE_REUSE"


def test_unrelated_question_generates_new(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    memory.record(fp, "서울 고객 수는?", SQL_SEOUL, success=True, scope=KIM)
    result = memory.find(fp, "리뷰 평점이 가장 낮은 상품 카테고리", scope=KIM)
    assert result.action == "GENERATE_NEW"
    assert len(result.candidates) == 1  # still reported, for the tool's observation


def test_scores_counts_and_scope(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    good = "SELECT COUNT(*) FROM orders"
    flaky = "SELECT COUNT(order_id) FROM orders"
    for _ in range(3):
        memory.record(fp, "전체 주문 건수", good, success=True, scope=KIM)
    memory.record(fp, "전체 주문 건수", flaky, success=True, scope=KIM)
    memory.record(fp, "전체 주문 건수", flaky, success=False, scope=KIM)
    memory.record(fp, "실패만 한 질문", "SELECT nope", success=False, scope=KIM)
    result = memory.find(fp, "전체 주문 건수", k=5, scope=KIM)
    by_sql = {c.sql: c for c in result.candidates}
    assert set(by_sql) == {good, flaky}  # never-successful rows are not candidates
    assert by_sql[good].success_rate == 1.0 and by_sql[flaky].success_rate == 0.5
    assert by_sql[good].usage == 1.0 and 0 < by_sql[flaky].usage < 1.0
    assert result.best is not None and result.best.sql == good
    expected = by_sql[flaky].similarity * 0.5 + 0.5 * 0.3 + by_sql[flaky].usage * 0.2
    assert by_sql[flaky].score == pytest.approx(expected, abs=1e-3)
    assert memory.find(f"{fp}-other", "전체 주문 건수", scope=KIM).action == "GENERATE_NEW"


def test_persists_across_instances(app_db: Database, fp: str) -> None:
    QueryMemory(app_db, get_embedder()).record(fp, "상품 수", "SELECT COUNT(*) FROM products", success=True, scope=KIM)
    result = QueryMemory(app_db, get_embedder()).find(fp, "상품 수", scope=KIM)
    assert result.action == "IMMEDIATE_TEMPLATE_REUSE"


def test_one_users_questions_are_never_anothers_candidates(app_db: Database, fp: str) -> None:
    """Issue 10: the memory is per user and database, like the result cache."""
    memory = QueryMemory(app_db, get_embedder())
    kim, lee = MemoryScope.for_user("kim", "sqlite:///shop.db"), MemoryScope.for_user("lee", "sqlite:///shop.db")
    kim_other_db = MemoryScope.for_user("kim", "postgresql://db/shop")
    memory.record(fp, "김 고객의 비밀 질문: 서울 고객 수는?", SQL_SEOUL, success=True, scope=kim)
    assert memory.find(fp, "김 고객의 비밀 질문: 서울 고객 수는?", scope=kim).action == "IMMEDIATE_TEMPLATE_REUSE"
    for other in (lee, kim_other_db):
        result = memory.find(fp, "김 고객의 비밀 질문: 서울 고객 수는?", scope=other)
        assert result.action == "GENERATE_NEW" and result.candidates == ()
    # the same question asked by two users: two rows with their own counts
    memory.record(fp, "김 고객의 비밀 질문: 서울 고객 수는?", SQL_SEOUL, success=False, scope=lee)
    best = memory.find(fp, "김 고객의 비밀 질문: 서울 고객 수는?", scope=kim).best
    assert best is not None and best.success_rate == 1.0


def test_scope_hashes_show_neither_user_nor_database() -> None:
    scope = MemoryScope.for_user("kim@example.com", "postgresql://app:pw@db/shop")
    for text in (scope.scope, scope.owner):
        assert "kim" not in text and "shop" not in text and set(text) <= set("0123456789abcdef.")
    assert scope != MemoryScope.for_user("lee@example.com", "postgresql://app:pw@db/shop")
    assert scope.owner == MemoryScope.for_user("kim@example.com", "sqlite:///other.db").owner


def test_export_and_delete_cover_every_database_of_one_user_only(app_db: Database, fp: str) -> None:
    memory = QueryMemory(app_db, get_embedder())
    kim, lee = f"kim-{uuid.uuid4().hex[:6]}", f"lee-{uuid.uuid4().hex[:6]}"
    memory.record(fp, "서울 고객 수는?", SQL_SEOUL, success=True, scope=MemoryScope.for_user(kim, "sqlite:///a.db"),
                  value_mappings={"서울": "SEL"})
    memory.record(fp, "상품 수", "SELECT COUNT(*) FROM products", success=True,
                  scope=MemoryScope.for_user(kim, "sqlite:///b.db"))
    memory.record(fp, "부산 고객 수는?", SQL_SEOUL, success=True, scope=MemoryScope.for_user(lee, "sqlite:///a.db"))
    exported = export_user_entries(app_db, kim)
    assert {e["question"] for e in exported} == {"서울 고객 수는?", "상품 수"}
    assert exported[0]["value_mappings"] == {"서울": "SEL"} and exported[0]["fingerprint"] == fp
    assert delete_user_entries(app_db, kim) == 2
    assert export_user_entries(app_db, kim) == [] and delete_user_entries(app_db, kim) == 0
    assert memory.find(fp, "서울 고객 수는?", scope=MemoryScope.for_user(kim, "sqlite:///a.db")).candidates == ()
    assert [e["question"] for e in export_user_entries(app_db, lee)] == ["부산 고객 수는?"]


def test_the_unscoped_table_of_earlier_versions_is_dropped(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        db.execute("CREATE TABLE t2s_query_memory (entry_key TEXT PRIMARY KEY, question TEXT)")
        db.execute("INSERT INTO t2s_query_memory VALUES ('k', '누군가의 질문')")
        QueryMemory(db, get_embedder())
        tables = {r[0] for r in db.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "t2s_query_memory" not in tables and "t2s_user_query_memory" in tables
    finally:
        db.close()
