"""Neo4j backend against a real server; needs NEO4J_URI (and NEO4J_PASSWORD if auth is on)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from t2s_helpers import CountingEmbedder

from graphagents.agents.text2sql.schema import load_schema_graph
from graphagents.sql import open_database

NEO4J_URI = os.environ.get("NEO4J_URI")
pytestmark = pytest.mark.skipif(not NEO4J_URI, reason="NEO4J_URI is not set: no Neo4j server to test against")


def _db(path: Path, extra: str = ""):
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE _comments (table_name TEXT, column_name TEXT, comment TEXT);"
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TABLE products (product_id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id));"
        "CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id),"
        " product_id INTEGER REFERENCES products(product_id), amount INTEGER);"
        "INSERT INTO _comments VALUES ('customers', NULL, '회원 고객'), ('orders', NULL, '주문 헤더'),"
        " ('order_items', 'amount', '매출 금액');" + extra
    )
    con.commit()
    con.close()
    return open_database(str(path))


def test_neo4j_backend_matches_embedded_and_is_incremental(tmp_path: Path) -> None:
    from graphagents.agents.text2sql.schema.neo4j_backend import Neo4jSchemaStore, _driver

    db = _db(tmp_path / "a.db")
    embedded = load_schema_graph(db, data_dir=tmp_path / "data")
    first = CountingEmbedder()
    graph = load_schema_graph(db, data_dir=tmp_path / "unused", backend="neo4j", neo4j_uri=NEO4J_URI,
                              embedder=first)
    driver = _driver(NEO4J_URI)
    store = Neo4jSchemaStore(driver)
    fingerprints = [graph.fingerprint]
    try:
        assert store.fk_counts(graph.fingerprint)["orders"] == (1, 1)  # Cypher FK counts
        assert list(graph.importance) == pytest.approx(list(embedded.importance))
        assert [h.table for h in graph.search_tables("고객", 3)] == [h.table for h in embedded.search_tables("고객", 3)]
        assert [e.on for e in graph.join_path(["customers", "products"])] == [
            e.on for e in embedded.join_path(["customers", "products"])]
        again = CountingEmbedder()
        load_schema_graph(db, data_dir=tmp_path / "unused", backend="neo4j", neo4j_uri=NEO4J_URI, embedder=again)
        assert first.encoded and again.encoded == []  # restart: everything read back from Neo4j
        changed = CountingEmbedder()
        g2 = load_schema_graph(_db(tmp_path / "b.db", "ALTER TABLE products ADD COLUMN price INTEGER;"),
                               data_dir=tmp_path / "unused", backend="neo4j", neo4j_uri=NEO4J_URI,
                               embedder=changed)
        fingerprints.append(g2.fingerprint)
        assert changed.encoded and all("price" in t for t in changed.encoded)
    finally:
        for fp in fingerprints:
            store.drop(fp)
        driver.close()
