from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphagents.agents.text2sql.demo import demo_sqlite_path
from graphagents.agents.text2sql.schema import load_schema_graph
from graphagents.agents.text2sql.value_mapping import ValueMapper, ValueMapping
from graphagents.sql import Database, open_database


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Database:
    return open_database(str(demo_sqlite_path(tmp_path_factory.getbasetemp() / "t2s-demo")))


@pytest.fixture(scope="module")
def mapper(demo_db: Database, tmp_path_factory: pytest.TempPathFactory) -> ValueMapper:
    graph = load_schema_graph(demo_db, data_dir=tmp_path_factory.mktemp("vm-graph"))
    return ValueMapper(demo_db, graph)


@pytest.mark.parametrize(
    ("natural", "table", "column", "value", "source"),
    [
        ("서울", "regions", "region_name", "서울", "exact"),
        ("vip", "customer_grades", "grade_name", "VIP", "exact_ci"),
        ("서울", "customers", "region_code", "SEL", "comment"),
        ("배송완료", "orders", "status_code", "D", "comment"),
        ("여성", "customers", "gender", "F", "comment"),
        ("결제 완료", "orders", "status_code", "P", "fuzzy_comment"),
        ("카카오 페이", "payments", "method_code", "KP", "fuzzy_comment"),
    ],
)
def test_map_demo(mapper: ValueMapper, natural: str, table: str, column: str, value: str, source: str) -> None:
    m = mapper.map(natural, table, column)
    assert m is not None and (m.value, m.source) == (value, source), m
    assert m.table == table and m.column == column and m.natural == natural
    assert mapper.validate([m]) == [m]


def test_no_mapping_below_threshold(mapper: ValueMapper) -> None:
    assert mapper.map("화성", "customers", "region_code") is None
    assert mapper.map("   ", "customers", "region_code") is None


def test_candidates_across_schema(mapper: ValueMapper) -> None:
    found = {(m.table, m.column, m.value) for m in mapper.candidates("서울", k=10)}
    assert {("regions", "region_name", "서울"), ("customers", "region_code", "SEL"),
            ("stores", "region_code", "SEL")} <= found  # fmt: skip
    top = mapper.candidates("카카오페이", k=3)
    assert top[0].score == 1.0 and {m.value for m in top} == {"카카오페이", "KP"}
    assert all(m.score >= mapper.threshold for m in mapper.candidates("배송중", k=10))
    assert ("products", "category_id") in {(m.table, m.column) for m in mapper.candidates("가전", k=10)}


def test_validate_is_the_gate(mapper: ValueMapper) -> None:
    good = ValueMapping("서울", "customers", "region_code", "SEL", 0.99, "comment")
    wrong_code = ValueMapping("서울", "customers", "region_code", "SEOUL", 0.99, "llm")
    wrong_table = ValueMapping("서울", "no_such_table", "region_code", "SEL", 0.99, "llm")
    assert mapper.validate([good, wrong_code, wrong_table]) == [good]


def test_code_table_lookup_without_comments(tmp_path: Path) -> None:
    """No comment documents the codes: the FK to the lookup table is the only source."""
    path = tmp_path / "plain.db"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE city (code TEXT PRIMARY KEY, label TEXT NOT NULL);"
        "INSERT INTO city VALUES ('C01', '서울특별시'), ('C02', '부산광역시');"
        "CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, city_code TEXT REFERENCES city(code));"
        "INSERT INTO shop VALUES (1, 'C01'), (2, 'C02');"
    )
    con.commit()
    con.close()
    db = open_database(str(path))
    mapper = ValueMapper(db, load_schema_graph(db, data_dir=tmp_path / "data"))
    exact = mapper.map("부산광역시", "shop", "city_code")
    assert exact is not None and (exact.value, exact.source) == ("C02", "code_table")
    fuzzy = mapper.map("서울 특별시", "shop", "city_code")
    assert fuzzy is not None and (fuzzy.value, fuzzy.source) == ("C01", "fuzzy_code_table")
    assert mapper.map("C01", "shop", "city_code") == ValueMapping("C01", "shop", "city_code", "C01", 1.0, "exact")
    strict = ValueMapper(db, mapper.graph, threshold=0.99)
    assert strict.map("서울 특별시", "shop", "city_code") is None
