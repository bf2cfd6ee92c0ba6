"""Fixtures for the text2sql safety layer: one dataset, loaded into SQLite and into real PostgreSQL.

Both engines get the same rows so that a query's behaviour can be compared across them, and the
big tables are past the 10k-row line the plan analyser cares about.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from t2s_helpers import temporary_pg_database

PG_URL = os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")

N_CUSTOMERS, N_PRODUCTS, N_ORDERS, N_EVENTS = 500, 40, 20_000, 15_000
CITIES = ("Seoul", "Busan", "Incheon", "Daegu", "서울", "a;b", "100%_sure")
STATUSES = ("new", "paid", "shipped", "cancelled")

DDL = """
CREATE TABLE customers (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, tier TEXT, joined_on DATE
);
CREATE TABLE products (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price NUMERIC(10, 2)
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    product_id INTEGER REFERENCES products (id),
    status TEXT NOT NULL,
    amount NUMERIC(10, 2),
    created_at DATE
);
CREATE INDEX orders_customer_idx ON orders (customer_id);
CREATE TABLE events (id INTEGER PRIMARY KEY, order_id INTEGER, kind TEXT, score INTEGER);
CREATE VIEW paid_orders AS SELECT id, customer_id, amount FROM orders WHERE status = 'paid';
"""


def dataset() -> dict[str, list[tuple[Any, ...]]]:
    """Deterministic rows; dates as ``date`` objects (stored as ISO text in SQLite)."""
    start = date(2024, 1, 1)
    customers = [
        (i, f"Customer {i:03d}", CITIES[i % len(CITIES)], ("gold", "silver", None)[i % 3],
         start - timedelta(days=i))
        for i in range(1, N_CUSTOMERS + 1)
    ]  # fmt: skip
    products = [
        (i, f"Product {i}", ("book", "toy", "food")[i % 3], round(1 + i * 2.5, 2)) for i in range(1, 41)
    ]
    orders = [
        (i, 1 + (i * 7) % N_CUSTOMERS, 1 + i % N_PRODUCTS, STATUSES[i % 4], round((i % 997) * 1.5, 2),
         start + timedelta(days=i % 400))
        for i in range(1, N_ORDERS + 1)
    ]  # fmt: skip
    events = [
        (i, 1 + (i * 13) % N_ORDERS, ("view", "click", "buy")[i % 3], i % 101) for i in range(1, N_EVENTS + 1)
    ]
    return {"customers": customers, "products": products, "orders": orders, "events": events}


def _insert_sql(table: str, width: int, placeholder: str) -> str:
    return f"INSERT INTO {table} VALUES ({', '.join([placeholder] * width)})"


@pytest.fixture(scope="session")
def sqlite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("text2sql") / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(DDL)
        for table, rows in dataset().items():
            rows = [tuple(v.isoformat() if isinstance(v, date) else v for v in row) for row in rows]
            conn.executemany(_insert_sql(table, len(rows[0]), "?"), rows)
        conn.executescript(
            """
            CREATE TABLE _comments (table_name TEXT, column_name TEXT, comment TEXT);
            INSERT INTO _comments VALUES ('customers', NULL, 'People who bought something'),
                                         ('orders', 'status', 'new, paid, shipped or cancelled');
            ANALYZE;
            """
        )
    conn.close()
    return path


@pytest.fixture(scope="session")
def pg_url(pg_admin_url: str) -> str:
    """The admin URL of the test server (the root conftest's skip/fail rule applies)."""
    return pg_admin_url


@pytest.fixture(scope="session")
def pg_shop_url(pg_url: str) -> Iterator[str]:
    """A uniquely named database with the shop dataset, dropped at the end of the session."""
    import psycopg

    with temporary_pg_database(pg_url, "gg_t2s") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(DDL)
            for table, rows in dataset().items():
                with conn.cursor() as cur:
                    cur.executemany(_insert_sql(table, len(rows[0]), "%s"), rows)
            conn.execute(
                """
                COMMENT ON TABLE customers IS 'People who bought something';
                COMMENT ON COLUMN orders.status IS 'new, paid, shipped or cancelled';
                CREATE SCHEMA sales;
                CREATE TABLE sales.regions (code TEXT PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO sales.regions VALUES ('KR-11', 'Seoul'), ('KR-26', 'Busan');
                CREATE SEQUENCE ticket_seq;
                -- A volatile function hides a write inside a SELECT: only the read-only
                -- transaction can stop it, which is what the tests want to see.
                CREATE FUNCTION sneaky_insert() RETURNS integer LANGUAGE sql
                    AS 'INSERT INTO sales.regions VALUES (''XX'', ''smuggled'') RETURNING 1';
                ANALYZE;
                """
            )
        yield url


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """The offline composer's context over a fresh demo database (once per module)."""
    from graphagents.agents.text2sql.demo import build_sqlite
    from graphagents.agents.text2sql.offline import ComposeContext
    from graphagents.agents.text2sql.schema import load_schema_graph
    from graphagents.sql import open_database

    root = tmp_path_factory.mktemp("offline_demo")
    db = open_database(str(build_sqlite(root / "demo.sqlite")))
    graph = load_schema_graph(db, data_dir=root / "graph")
    yield ComposeContext(graph=graph, db=db, dialect="sqlite"), db
    db.close()
