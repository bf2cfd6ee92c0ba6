from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from t2s_helpers import CountingEmbedder

from graphagents.agents.text2sql.demo import demo_sqlite_path
from graphagents.agents.text2sql.schema import (
    IMPORTANCE_FLOOR,
    SchemaGraph,
    SchemaLookupError,
    build_schema_graph,
    importance_from_degrees,
    load_schema_graph,
    parse_codes,
)
from graphagents.agents.text2sql.schema.lexical import LexicalIndex, lexical_features
from graphagents.agents.text2sql.schema.model import segment_texts
from graphagents.retrieval import load_embedder
from graphagents.sql import ColumnInfo, Database, ForeignKey, SchemaInfo, TableInfo, open_database


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Database:
    path = demo_sqlite_path(tmp_path_factory.getbasetemp() / "t2s-demo")
    return open_database(str(path))


@pytest.fixture(scope="module")
def demo(demo_db: Database, tmp_path_factory: pytest.TempPathFactory) -> SchemaGraph:
    return load_schema_graph(demo_db, data_dir=tmp_path_factory.mktemp("graph-data"))


def _tables(graph: SchemaGraph, query: str, k: int = 5) -> list[str]:
    return [h.table for h in graph.search_tables(query, k)]


def _columns(graph: SchemaGraph, query: str, k: int = 5) -> list[str]:
    return [f"{h.table}.{h.column}" for h in graph.search_columns(query, k=k)]


# --- demo database ------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["고객", "customer", "고객 정보"])
def test_customer_query_ranks_customers_first(demo: SchemaGraph, query: str) -> None:
    assert _tables(demo, query)[0] == "customers"


@pytest.mark.parametrize("query", ["매출", "revenue"])
def test_revenue_finds_amount_columns(demo: SchemaGraph, query: str) -> None:
    top = _columns(demo, query, k=5)
    assert {"payments.amount", "order_items.unit_price", "order_items.quantity"} & set(top), top
    assert {"order_items", "payments"} & set(_tables(demo, query, k=3))


def test_sales_table_comment_wins_for_korean(demo: SchemaGraph) -> None:
    assert _tables(demo, "매출")[0] == "order_items"  # its comment defines 매출


@pytest.mark.parametrize("query", ["주문 상태", "order status"])
def test_order_status(demo: SchemaGraph, query: str) -> None:
    assert "orders.status_code" in _columns(demo, query, k=3)
    assert {"orders", "status_codes"} == set(_tables(demo, query, k=2))


def test_search_columns_within_table(demo: SchemaGraph) -> None:
    hits = demo.search_columns("지역", table="customers", k=3)
    assert hits[0].column == "region_code" and all(h.table == "customers" for h in hits)
    assert "SEL" in hits[0].samples  # code-ish columns carry their frequent values
    assert len(demo.search_columns("아무거나", table="regions", k=10)) == 2


def test_table_hit_fields(demo: SchemaGraph) -> None:
    hit = demo.search_tables("주문", k=1)[0]
    assert hit.table == "orders" and hit.importance == 1.0  # the most referenced table
    assert hit.score == pytest.approx(2 * hit.similarity * hit.importance / (hit.similarity + hit.importance), abs=1e-3)
    assert "status_code" in hit.columns and hit.comment.startswith("주문")


def test_table_node(demo: SchemaGraph) -> None:
    orders = demo.table("ORDERS")
    assert orders.primary_key == ("order_id",)
    assert {fk.to_table for fk in orders.fks_out} == {"customers", "stores", "employees", "status_codes"}
    assert {fk.from_table for fk in orders.fks_in} == {"order_items", "payments", "reviews"}
    assert orders.row_estimate == 45_000
    assert dict(orders.column("status_code").codes)["D"] == "배송완료"
    assert "서울" in demo.table("regions").column("region_name").samples


def test_join_paths(demo: SchemaGraph) -> None:
    direct = demo.join_path(["customers", "products"])
    assert {e.from_table for e in direct} == {"reviews"}  # shortest: customers <- reviews -> products
    bought = demo.join_path(["customers", "products"], avoid=["reviews"])
    assert [e.on for e in bought] == [
        "orders.customer_id = customers.customer_id",
        "order_items.order_id = orders.order_id",
        "order_items.product_id = products.product_id",
    ]
    assert demo.join_path(["customers", "order_items", "products"]) == bought
    three = demo.join_path(["payments", "regions", "customers"])
    tables = {t for e in three for t in (e.from_table, e.to_table)}
    assert {"payments", "orders", "customers", "regions"} <= tables
    assert demo.join_path(["orders"]) == []


def test_unknown_names(demo: SchemaGraph) -> None:
    with pytest.raises(SchemaLookupError, match="did you mean customers"):
        demo.table("customer")
    with pytest.raises(SchemaLookupError, match="its columns"):
        demo.table("orders").column("status")


def test_describe(demo: SchemaGraph) -> None:
    text = demo.describe(["orders", "regions"])
    assert "CREATE TABLE orders (" in text and "CREATE TABLE regions (" in text
    assert "customer_id INTEGER NOT NULL REFERENCES customers(customer_id),  -- 주문 고객 ID" in text
    assert "status_code TEXT NOT NULL REFERENCES status_codes(status_code)  -- 주문 상태 코드" in text
    assert "-- orders (~45,000 rows): 주문 헤더" in text
    assert "'서울'" in text  # sample values of a lookup column
    assert text.count(");") == 2


# --- ranking rules ----------------------------------------------------------------------------------


def test_importance_floor_keeps_fkless_tables() -> None:
    imp = importance_from_degrees([(3, 1), (0, 0), (0, 2)])
    assert imp[0] == pytest.approx(1.0) and imp[1] == pytest.approx(IMPORTANCE_FLOOR)
    assert IMPORTANCE_FLOOR < imp[2] < 1.0
    assert list(importance_from_degrees([(0, 0), (0, 0)])) == [1.0, 1.0]


def _table(name: str, comment: str, cols: list[tuple[str, str, str]], fks: tuple[ForeignKey, ...] = (),
           rows: int = 1000) -> TableInfo:
    columns = tuple(ColumnInfo(n, t, True, i == 0, c) for i, (n, t, c) in enumerate(cols))
    return TableInfo(name, columns, comment=comment, row_estimate=rows, foreign_keys=fks)


def test_matching_table_without_fks_still_ranks() -> None:
    hub = _table("accounts", "계정", [("account_id", "INTEGER", "계정 ID")])
    refs = tuple(
        _table(f"t{i}", f"기타 {i}", [("id", "INTEGER", ""), ("account_id", "INTEGER", "계정")],
               (ForeignKey(f"t{i}", "account_id", "accounts", "account_id"),))
        for i in range(4)
    )
    audit = _table("audit_log", "감사 로그: 누가 언제 무엇을 바꿨는지 기록", [("log_id", "INTEGER", "로그 ID")])
    graph, *_ = build_schema_graph(SchemaInfo("sqlite", (hub, *refs, audit)), fingerprint="x")
    assert _tables(graph, "감사 로그", k=1) == ["audit_log"]
    assert _tables(graph, "audit log", k=1) == ["audit_log"]


def test_parse_codes_and_lexical() -> None:
    assert parse_codes("주문 상태 (P=결제완료, S=배송중, C=취소; status_codes 참조)") == (
        ("P", "결제완료"), ("S", "배송중"), ("C", "취소"))
    assert parse_codes("매출 = quantity * unit_price, status_code='C'") == ()
    assert {"w:order", "w:item"} <= lexical_features("order_items")
    assert "k:고객" in lexical_features("고객의")
    index = LexicalIndex([["customers", "회원 고객"], ["orders", "주문 헤더"]])
    scores = index.scores("고객")
    assert scores[0] == pytest.approx(1.0) and scores[1] == 0.0


# --- persistence and incremental embedding -------------------------------------------------------

_DDL = [
    "CREATE TABLE _comments (table_name TEXT, column_name TEXT, comment TEXT)",
    "CREATE TABLE regions (region_code TEXT PRIMARY KEY, region_name TEXT NOT NULL)",
    "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT,"
    " region_code TEXT REFERENCES regions(region_code))",
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),"
    " amount INTEGER)",
    "INSERT INTO _comments VALUES ('customers', NULL, '회원 고객'), ('orders', NULL, '주문'),"
    " ('orders', 'amount', '주문 금액'), ('regions', NULL, '지역 코드표')",
    "INSERT INTO regions VALUES ('SEL', '서울'), ('BSN', '부산')",
]


def _make_db(path: Path, extra: list[str] = ()) -> Database:
    con = sqlite3.connect(path)
    for sql in [*_DDL, *extra]:
        con.execute(sql)
    con.commit()
    con.close()
    return open_database(str(path))


def test_restart_reuses_snapshot_and_changes_are_incremental(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = CountingEmbedder()
    g1 = load_schema_graph(_make_db(tmp_path / "v1.db"), data_dir=data, embedder=first)
    assert sorted(first.encoded) == sorted(segment_texts([g1.table(t) for t in g1.table_names()]))
    assert (data / "text2sql" / "schema" / f"{g1.fingerprint}.npz").is_file()
    assert (data / "text2sql" / "schema" / f"{g1.fingerprint}.json").is_file()

    restart = CountingEmbedder()  # fresh process-like state: empty LRU cache
    g2 = load_schema_graph(_make_db(tmp_path / "v1b.db"), data_dir=data, embedder=restart)
    assert restart.encoded == [] and g2.embedded_count == 0 and g2.fingerprint == g1.fingerprint
    assert g2.search_tables("고객") == g1.search_tables("고객")
    assert g2.table("regions").column("region_name").samples == ("부산", "서울")

    changed = CountingEmbedder()
    db3 = _make_db(tmp_path / "v2.db", [
        "ALTER TABLE orders ADD COLUMN status_code TEXT",
        "INSERT INTO _comments VALUES ('orders', 'status_code', '주문 상태 (P=결제완료, C=취소)')",
    ])  # fmt: skip
    g3 = load_schema_graph(db3, data_dir=data, embedder=changed)
    assert g3.fingerprint != g1.fingerprint
    old_texts = set(segment_texts([g1.table(t) for t in g1.table_names()]))
    new_texts = set(segment_texts([g3.table(t) for t in g3.table_names()]))
    assert sorted(changed.encoded) == sorted(new_texts - old_texts)
    assert 0 < len(changed.encoded) < len(new_texts) / 2
    assert any("status" in t for t in changed.encoded) and not any("회원 고객" in t for t in changed.encoded)
    assert "orders.status_code" in _columns(g3, "주문 상태", k=2)


def test_comment_change_reembeds_that_table_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    load_schema_graph(_make_db(tmp_path / "a.db"), data_dir=data, embedder=CountingEmbedder())
    emb = CountingEmbedder()
    g = load_schema_graph(_make_db(tmp_path / "b.db", ["UPDATE _comments SET comment = '구매 주문 헤더'"
                                                       " WHERE table_name = 'orders' AND column_name IS NULL"]),
                          data_dir=data, embedder=emb)
    assert emb.encoded and all("주문" in t or "order" in t for t in emb.encoded)
    assert g.table("orders").comment == "구매 주문 헤더"


# --- scale ------------------------------------------------------------------------------------------


def test_synthetic_schema_search_is_consistent() -> None:
    words = ["invoice", "shipment", "warehouse", "supplier", "campaign", "ticket", "contract", "asset"]
    tables = []
    for i in range(200):
        word = words[i % len(words)]
        fks = (ForeignKey(f"{word}_{i}", "parent_id", f"{words[(i - 1) % 8]}_{i - 1}", "id"),) if i else ()
        tables.append(_table(f"{word}_{i}", f"{word} records batch {i}",
                             [("id", "INTEGER", ""), ("parent_id", "INTEGER", ""), ("note", "TEXT", word)], fks))
    graph, *_ = build_schema_graph(SchemaInfo("sqlite", tuple(tables)), fingerprint="synthetic",
                                   embedder=load_embedder())
    hits = graph.search_tables("warehouse", k=10)
    assert len(hits) == 10 and all(h.table.startswith("warehouse_") for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    full = graph.search_tables("warehouse", k=len(tables))
    assert [h.table for h in full[:10]] == [h.table for h in hits]  # argpartition == full sort
    assert len(graph.join_path(["invoice_0", "invoice_8"])) == 8


def test_bounded_search_returns_what_the_full_scan_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large schemas are searched through a principal-direction bound first; it must never change a hit."""
    import graphagents.agents.text2sql.schema.graph as graph_module

    monkeypatch.setattr(graph_module, "PRUNE_MIN_ROWS", 100)
    words = ["invoice", "shipment", "warehouse", "supplier", "campaign", "ticket", "contract", "asset"]
    korean = ["청구서", "배송", "창고", "공급사", "캠페인", "문의", "계약", "자산"]
    tables = [_table(f"{words[i % 8]}_{i}", f"{korean[(i * 3) % 8]} 기록 {i}",
                     [("id", "INTEGER", ""), ("amount", "INTEGER", f"{korean[i % 8]} 금액"),
                      ("note", "TEXT", words[(i + 1) % 8])]) for i in range(240)]
    graph, *_ = build_schema_graph(SchemaInfo("sqlite", tuple(tables)), fingerprint="bounded",
                                   embedder=load_embedder())
    segs = graph._table_segs
    assert segs.prune and segs.basis.shape == (segs.matrix.shape[1], graph_module.PRUNE_DIMS)
    queries = ["warehouse", "창고 금액", "supplier contract", "캠페인 문의 기록", "invoice 17", "배송", "asset note"]
    for k in (1, 5, 12):
        bounded = [graph.search_tables(q, k=k) for q in queries]
        segs.prune = False
        full = [graph.search_tables(q, k=k) for q in queries]
        segs.prune = True
        assert bounded == full and all(len(hits) == k for hits in full)
    vector = graph.embedder.embed_one("창고 금액")
    assert np.all(segs.bounds(vector) >= segs.best_cosine(vector) - 1e-6)  # a bound, never below the truth
    items = np.array([3, 17, 200])
    assert np.allclose(segs.best_cosine_of(vector, items), segs.best_cosine(vector)[items], atol=1e-6)


def test_public_surface() -> None:
    import graphagents.agents.text2sql.schema as schema

    assert set(schema.__all__) == {
        "IMPORTANCE_FLOOR", "ColumnHit", "ColumnNode", "JoinEdge", "SchemaGraph", "SchemaLookupError", "TableHit",
        "TableNode", "build_schema_graph", "importance_from_degrees", "load_schema_graph", "parse_codes",
    }  # fmt: skip
    assert all(hasattr(schema, name) for name in schema.__all__)
