"""The generated demo database, its gold questions, and SQLite/PostgreSQL agreement."""

from __future__ import annotations

import csv
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphagents.agents.text2sql import demo
from graphagents.agents.text2sql.demo import (
    TABLES,
    build_sqlite,
    demo_questions_path,
    demo_sqlite_path,
    load_postgres,
)
from graphagents.agents.text2sql.demo.sqlite import DEMO_SQLITE_NAME, data_stamp
from graphagents.errors import ServiceUnavailableError, UsageError
from graphagents.sql import gold_is_ordered, load_questions, results_match
from graphagents.store import sqlite_stamp

QUESTIONS = load_questions(demo_questions_path())
CATEGORIES = {"lookup", "filter", "aggregate", "group_by", "top_n", "join", "date_range", "code_value"}


_FINGERPRINT = """
import hashlib
from graphagents.agents.text2sql.demo import generate
generate.N_CUSTOMERS, generate.N_ORDERS = 300, 2_000  # the code paths matter here, not the volume
print(hashlib.sha256(repr(generate.generate_demo_data()).encode()).hexdigest())
"""


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sqlite(tmp_path_factory.mktemp("demo") / "demo.sqlite")


@pytest.fixture(scope="session")
def demo_pg(demo_db: Path, pg_admin_url: str) -> Iterator[tuple[str, str]]:
    """(url, schema): the demo data in a private schema of the test server, dropped afterwards."""
    import psycopg

    schema = f"t2s_demo_{uuid.uuid4().hex[:10]}"
    load_postgres(pg_admin_url, schema=schema)
    yield pg_admin_url, schema
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _pg_rows(url: str, schema: str, sql: str) -> list[tuple[object, ...]]:
    import psycopg

    with psycopg.connect(url, options=f"-c search_path={schema}") as conn:
        return conn.execute(sql).fetchall()


# ------------------------------------------------------------------ the generated data


def test_public_surface() -> None:
    assert sorted(demo.__all__) == [
        "DEMO_DB_NAME", "TABLES", "build_sqlite", "demo_questions_path", "demo_sqlite_path", "load_postgres",
    ]


def test_generation_does_not_depend_on_hash_seed() -> None:
    outputs = set()
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        cmd = [sys.executable, "-c", _FINGERPRINT]
        outputs.add(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    assert len(outputs) == 1 and len(next(iter(outputs)).strip()) == 64


def test_schema_has_the_promised_shape(demo_db: Path) -> None:
    con = sqlite3.connect(demo_db)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {t.name for t in TABLES} | {"_comments"} <= tables
    assert len(TABLES) >= 8
    with_fks = [t.name for t in TABLES if con.execute(f"PRAGMA foreign_key_list({t.name})").fetchall()]
    assert {"customers", "orders", "order_items", "payments", "reviews", "employees"} <= set(with_fks)
    assert con.execute("SELECT COUNT(*) FROM order_items").fetchone()[0] >= 100_000
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []


def test_every_table_and_column_has_a_korean_comment(demo_db: Path) -> None:
    con = sqlite3.connect(demo_db)
    comments = {(t, c): text for t, c, text in con.execute("SELECT * FROM _comments")}
    for table in TABLES:
        assert comments[(table.name, None)]
        for column in table.columns:
            text = comments[(table.name, column.name)]
            assert any("\uac00" <= ch <= "\ud7a3" for ch in text), (table.name, column.name, text)


def test_code_values_are_documented_in_code_tables(demo_db: Path) -> None:
    con = sqlite3.connect(demo_db)
    assert dict(con.execute("SELECT status_code, status_name FROM status_codes")) == {
        "P": "결제완료", "S": "배송중", "D": "배송완료", "C": "취소",
    }
    assert dict(con.execute("SELECT grade_code, grade_name FROM customer_grades")) == {
        "G": "일반", "S": "실버", "V": "VIP",
    }
    regions = dict(con.execute("SELECT region_code, region_name FROM regions"))
    assert regions["SEL"] == "서울" and regions["BSN"] == "부산" and len(regions) >= 8
    used = {r[0] for r in con.execute("SELECT DISTINCT status_code FROM orders")}
    assert used == {"P", "S", "D", "C"}


def test_values_stay_in_their_documented_ranges(demo_db: Path) -> None:
    con = sqlite3.connect(demo_db)
    low, high = con.execute("SELECT MIN(order_date), MAX(order_date) FROM orders").fetchone()
    assert low >= "2023-01-01" and high <= "2024-12-31"
    assert con.execute("SELECT MIN(rating), MAX(rating) FROM reviews").fetchone() == (1, 5)
    late = con.execute(
        "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        "WHERE o.order_date < c.join_date"
    ).fetchone()[0]
    assert late == 0
    mismatched = con.execute(
        "SELECT COUNT(*) FROM payments p JOIN (SELECT order_id, SUM(quantity * unit_price) AS total "
        "FROM order_items GROUP BY order_id) t ON t.order_id = p.order_id WHERE t.total <> p.amount"
    ).fetchone()[0]
    assert mismatched == 0


def test_some_filters_need_a_full_scan(demo_db: Path) -> None:
    con = sqlite3.connect(demo_db)
    plan = " ".join(r[-1] for r in con.execute(
        "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM orders WHERE order_date >= '2024-01-01'"))
    assert "SCAN" in plan and "INDEX" not in plan
    plan = " ".join(r[-1] for r in con.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM orders WHERE customer_id = 5"))
    assert "idx_orders_customer_id" in plan


def test_demo_sqlite_path_reuses_a_current_file(demo_db: Path, tmp_path: Path) -> None:
    cached = tmp_path / DEMO_SQLITE_NAME
    shutil.copy(demo_db, cached)
    before = cached.stat().st_mtime_ns
    assert demo_sqlite_path(tmp_path) == cached
    assert cached.stat().st_mtime_ns == before


def test_demo_sqlite_path_rebuilds_a_stale_or_broken_file(tmp_path: Path) -> None:
    cached = tmp_path / DEMO_SQLITE_NAME
    cached.write_bytes(b"an old or half-copied file")
    assert demo_sqlite_path(tmp_path) == cached
    con = sqlite3.connect(cached)
    assert con.execute("PRAGMA user_version").fetchone()[0] == data_stamp()
    assert con.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == 5_000
    con.close()
    assert [p.name for p in tmp_path.iterdir()] == [DEMO_SQLITE_NAME]  # no temporary file left behind


def test_a_stamp_from_other_code_counts_as_stale(demo_db: Path, tmp_path: Path) -> None:
    cached = tmp_path / DEMO_SQLITE_NAME
    shutil.copy(demo_db, cached)
    with sqlite3.connect(cached) as con:
        con.execute("PRAGMA user_version = 1")
    con.close()
    assert sqlite_stamp(cached) == 1 != data_stamp()


def test_load_postgres_reports_an_unreachable_server() -> None:
    with pytest.raises(ServiceUnavailableError, match="is the server running"):
        load_postgres("postgresql://postgres@127.0.0.1:1/test")


# ------------------------------------------------------------------ questions.csv


def test_questions_file_follows_the_defog_layout() -> None:
    with demo_questions_path().open(encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    assert header == ["question", "query", "db_name", "query_category", "instructions"]
    assert len(QUESTIONS) >= 45
    assert {q.db_name for q in QUESTIONS} == {"demo"}
    counts = Counter(q.query_category for q in QUESTIONS)
    assert set(counts) == CATEGORIES and min(counts.values()) >= 5
    english = [q for q in QUESTIONS if q.question.isascii()]
    assert len(english) >= 15
    assert len(QUESTIONS) - len(english) >= 15
    texts = {q.question for q in QUESTIONS}
    required = (
        "지역별 매출 상위 5개", "서울에 사는 VIP 고객 수", "2024년 월별 주문 건수",
        "How many orders were cancelled?", "Top 3 products by revenue", "평균 리뷰 평점이 가장 높은 카테고리",
    )
    assert set(required) <= texts


def _gold_cases() -> list[tuple[str, str]]:
    return [(f"{i:02d}-{q.query_category}", sql) for i, q in enumerate(QUESTIONS) for sql in q.gold_queries]


@pytest.mark.parametrize(("qid", "sql"), _gold_cases(), ids=[c[0] for c in _gold_cases()])
def test_gold_query_is_non_empty_on_sqlite(demo_db: Path, qid: str, sql: str) -> None:
    rows = sqlite3.connect(demo_db).execute(sql).fetchall()
    assert rows and any(v is not None for v in rows[0]), qid


# ------------------------------------------------------------------ PostgreSQL


@pytest.mark.postgres
def test_postgres_holds_the_same_rows(demo_db: Path, demo_pg: tuple[str, str]) -> None:
    url, schema = demo_pg
    con = sqlite3.connect(demo_db)
    for table in TABLES:
        checksum = f"SELECT COUNT(*), SUM(LENGTH(CAST({table.columns[1].name} AS TEXT))) FROM {table.name}"
        lite = con.execute(checksum).fetchone()
        assert results_match([lite], _pg_rows(url, schema, checksum), ordered=False), table.name


@pytest.mark.postgres
def test_postgres_has_comments_indexes_and_full_scans(demo_pg: tuple[str, str]) -> None:
    url, schema = demo_pg
    missing = _pg_rows(url, schema, (
        "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        f"WHERE n.nspname = '{schema}' AND c.relkind = 'r' AND col_description(c.oid, a.attnum) IS NULL"
    ))
    assert missing == []
    assert _pg_rows(url, schema, "SELECT obj_description('orders'::regclass, 'pg_class')")[0][0]
    plan_rows = _pg_rows(url, schema, "EXPLAIN SELECT * FROM order_items WHERE product_id = 3")
    plan = " ".join(str(r[0]) for r in plan_rows)
    assert "Seq Scan on order_items" in plan
    fks = _pg_rows(url, schema, (
        "SELECT COUNT(*) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
        f"WHERE n.nspname = '{schema}' AND c.contype = 'f'"
    ))[0][0]
    assert isinstance(fks, int) and fks >= 10


@pytest.mark.postgres
def test_load_refuses_to_overwrite_without_drop_existing(demo_pg: tuple[str, str]) -> None:
    url, schema = demo_pg
    with pytest.raises(UsageError, match="drop_existing=True"):
        load_postgres(url, schema=schema, drop_existing=False)
    assert _pg_rows(url, schema, "SELECT COUNT(*) FROM customers") == [(5_000,)]


@pytest.mark.postgres
@pytest.mark.parametrize(("qid", "sql"), _gold_cases(), ids=[c[0] for c in _gold_cases()])
def test_gold_query_returns_the_same_rows_on_both_engines(
    demo_db: Path, demo_pg: tuple[str, str], qid: str, sql: str
) -> None:
    url, schema = demo_pg
    lite = sqlite3.connect(demo_db).execute(sql).fetchall()
    pg = _pg_rows(url, schema, sql)
    assert pg, qid
    assert results_match(lite, pg, ordered=gold_is_ordered(sql)), (qid, lite[:5], pg[:5])
