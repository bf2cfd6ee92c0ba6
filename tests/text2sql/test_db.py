"""The database layer on real engines: read-only without the guard, timeouts, schema, value look-ups."""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from graphagents.errors import redact_url
from graphagents.sql import (
    Database,
    DatabaseError,
    QueryError,
    QueryTimeout,
    open_database,
)

N_CUSTOMERS, N_ORDERS = 500, 20_000  # as built by conftest.dataset()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, sqlite_path: Path) -> Iterator[Database]:
    url = str(sqlite_path) if request.param == "sqlite" else request.getfixturevalue("pg_shop_url")
    database = open_database(url)
    yield database
    database.close()


@pytest.fixture
def pg_db(pg_shop_url: str) -> Iterator[Database]:
    with open_database(pg_shop_url) as database:
        yield database


# ---------------------------------------------------------------------------------- read-only


def test_insert_past_the_guard_fails_read_only(db: Database) -> None:
    with pytest.raises(QueryError, match="read-?only"):
        db.fetch("INSERT INTO customers (id, name) VALUES (99999, 'intruder')")
    with pytest.raises(QueryError, match="read-?only"):
        db.fetch("/* looks harmless */ UPDATE orders SET amount = 0")
    assert db.fetch("SELECT COUNT(*) FROM customers").rows == [(N_CUSTOMERS,)]


@pytest.mark.postgres
def test_postgres_write_hidden_in_a_function_hits_the_read_only_transaction(pg_db: Database) -> None:
    with pytest.raises(QueryError, match="cannot execute INSERT in a read-only transaction") as info:
        pg_db.fetch("SELECT sneaky_insert()")
    assert info.value.sqlstate == "25006"
    with pytest.raises(QueryError, match="read-only transaction"):
        pg_db.fetch("SELECT nextval('ticket_seq')")
    assert pg_db.fetch("SELECT COUNT(*) FROM sales.regions").rows == [(2,)]


@pytest.mark.postgres
def test_postgres_session_tricks_do_not_survive_the_rollback(pg_db: Database) -> None:
    pg_db.fetch("SELECT set_config('default_transaction_read_only', 'off', false)")
    pg_db.fetch("SELECT set_config('statement_timeout', '0', false)")
    pg_db.fetch("SELECT lo_import('/etc/hostname')")
    for _ in range(8):  # every pooled connection
        state = pg_db.fetch(
            "SELECT current_setting('default_transaction_read_only'), "
            "current_setting('transaction_read_only'), (SELECT COUNT(*) FROM pg_largeobject_metadata)"
        )
        assert state.rows == [("on", "on", 0)]
    with pytest.raises(QueryTimeout):
        pg_db.fetch("SELECT pg_sleep(3)", timeout_s=0.3)


def test_stacked_statements_are_refused_by_the_executor(db: Database) -> None:
    for sql in ("SELECT 1; DELETE FROM orders", "SELECT 1; COMMIT; DROP TABLE customers"):
        with pytest.raises(QueryError):
            db.fetch(sql)
    assert db.fetch("SELECT COUNT(*) FROM orders").rows == [(N_ORDERS,)]


@pytest.mark.postgres
def test_postgres_data_modifying_cte_is_refused_by_the_server(pg_db: Database) -> None:
    with pytest.raises(QueryError, match="data-modifying"):
        pg_db.fetch("WITH d AS (DELETE FROM orders RETURNING id) SELECT COUNT(*) FROM d")


def test_sqlite_refuses_what_mode_ro_alone_allows(sqlite_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    with open_database(f"sqlite:///{sqlite_path}") as db:
        for sql in (
            f"VACUUM INTO '{target}'",
            f"ATTACH DATABASE 'file:{tmp_path / 'new.db'}?mode=rwc' AS x",
            "CREATE TEMP TABLE scratch AS SELECT 1",
            "PRAGMA writable_schema = 1",
            "SELECT load_extension('x')",
        ):
            with pytest.raises(QueryError, match="not authorized"):
                db.fetch(sql)
        assert db.fetch("PRAGMA table_info(customers)").rows  # introspection pragmas stay usable
    assert not list(tmp_path.iterdir())


# ----------------------------------------------------------------------------------- timeouts


@pytest.mark.postgres
def test_postgres_statement_timeout(pg_db: Database) -> None:
    started = time.monotonic()
    with pytest.raises(QueryTimeout, match="timeout"):
        pg_db.fetch("SELECT pg_sleep(5)", timeout_s=0.5)
    assert time.monotonic() - started < 4
    assert pg_db.fetch("SELECT 1").rows == [(1,)]  # the connection is reusable afterwards


def test_runaway_recursive_cte_is_aborted(db: Database) -> None:
    sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r"
    started = time.monotonic()
    with pytest.raises(QueryTimeout):
        db.fetch(sql, timeout_s=0.5)
    assert time.monotonic() - started < 4


# -------------------------------------------------------------------------------------- fetch


def test_fetch_rows_columns_truncation_and_params(db: Database) -> None:
    result = db.fetch("SELECT id, name FROM customers ORDER BY id", max_rows=3)
    assert result.columns == ("id", "name")
    assert result.rows == [(1, "Customer 001"), (2, "Customer 002"), (3, "Customer 003")]
    assert result.truncated
    assert not db.fetch("SELECT id FROM customers WHERE id < 3", max_rows=2).truncated
    empty = db.fetch("SELECT id, city FROM customers WHERE 1 = 0")
    assert empty.columns == ("id", "city") and empty.rows == [] and not empty.truncated
    placeholder = "%s" if db.dialect == "postgres" else "?"
    rows = db.fetch(f"SELECT name FROM customers WHERE city = {placeholder} AND id < 20", ["a;b"]).rows
    assert rows and all(isinstance(r[0], str) for r in rows)
    assert db.fetch("SELECT name FROM customers WHERE name LIKE 'Customer 00%'").rows


def test_bad_query_error_carries_the_database_message(db: Database) -> None:
    with pytest.raises(QueryError) as info:
        db.fetch("SELECT nme FROM customers")
    assert "nme" in str(info.value)
    if db.dialect == "postgres":
        assert 'column "nme" does not exist' in str(info.value)
        assert "DECLARE" not in str(info.value)  # the cursor wrapper stays hidden from the model
        assert 'Perhaps you meant to reference the column "customers.name"' in str(info.value)
        assert info.value.sqlstate == "42703"


def test_concurrent_use_from_worker_threads(db: Database) -> None:
    def work(i: int) -> int:
        return int(db.fetch("SELECT COUNT(*) FROM orders WHERE customer_id = " + str(1 + i % 50)).rows[0][0])

    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = list(pool.map(work, range(64)))
    assert counts[:50] == [work(i) for i in range(50)]


def test_closed_database_refuses_work(sqlite_path: Path) -> None:
    db = open_database(str(sqlite_path))
    db.close()
    with pytest.raises(DatabaseError, match="closed"):
        db.fetch("SELECT 1")


# --------------------------------------------------------------------------------- introspect


def test_introspect_tables_columns_keys_and_comments(db: Database) -> None:
    schema = db.introspect()
    names = {t.name for t in schema.tables}
    assert {"customers", "products", "orders", "events", "paid_orders"} <= names
    assert "_comments" not in names
    orders = schema.table("orders")
    assert orders is not None and orders.kind == "table"
    assert [c.name for c in orders.columns] == [
        "id",
        "customer_id",
        "product_id",
        "status",
        "amount",
        "created_at",
    ]
    id_col, customer_col = orders.column("id"), orders.column("CUSTOMER_ID")
    assert id_col and id_col.primary_key and not id_col.nullable
    assert customer_col and not customer_col.nullable and not customer_col.primary_key
    assert "int" in customer_col.type.lower()
    product_col = orders.column("product_id")
    assert product_col and product_col.nullable
    status = orders.column("status")
    assert status and status.comment == "new, paid, shipped or cancelled"
    fks = {(fk.from_column, fk.to_table, fk.to_column) for fk in orders.foreign_keys}
    assert fks == {("customer_id", "customers", "id"), ("product_id", "products", "id")}
    assert all(fk.from_table == "orders" for fk in orders.foreign_keys)
    customers = schema.table("customers")
    assert customers and customers.comment == "People who bought something"
    assert orders.row_estimate is not None and orders.row_estimate >= 10_000
    view = schema.table("paid_orders")
    assert view and view.kind == "view" and view.row_estimate is None


@pytest.mark.postgres
def test_postgres_qualifies_only_outside_the_default_schema(pg_db: Database) -> None:
    schema = pg_db.introspect()
    assert schema.default_schema == "public"
    regions = schema.table("sales.regions")
    assert regions and regions.name == "sales.regions" and regions.schema == "sales"
    assert regions.relation == "regions"
    assert schema.table("customers") and schema.table("public.customers") == schema.table("customers")
    assert pg_db.sample_values("sales.regions", "name") == ["Busan", "Seoul"]
    with open_database(pg_db.url, schemas=["sales"]) as only_sales:
        assert [t.name for t in only_sales.introspect().tables] == ["sales.regions"]


def test_fingerprint_is_stable_and_follows_the_schema(sqlite_path: Path, tmp_path: Path) -> None:
    with open_database(str(sqlite_path)) as a, open_database(f"sqlite:///{sqlite_path}") as b:
        assert a.fingerprint() == b.fingerprint() == a.fingerprint()
        original = a.fingerprint()
    changed = tmp_path / "changed.db"
    shutil.copy(sqlite_path, changed)
    with sqlite3.connect(changed) as conn:
        conn.execute("UPDATE _comments SET comment = 'other words'")
        conn.execute("INSERT INTO orders (id, customer_id, status) VALUES (999999, 1, 'new')")
    conn.close()
    with open_database(str(changed)) as db:
        assert db.fingerprint() == original  # comments and row counts do not key caches
    with sqlite3.connect(changed) as conn:
        conn.execute("ALTER TABLE orders ADD COLUMN note TEXT")
    conn.close()
    with open_database(str(changed)) as db:
        assert db.fingerprint() != original


# ------------------------------------------------------------------------------------- values


def test_sample_exists_and_search_values(db: Database) -> None:
    sample = db.sample_values("orders", "status")
    assert sorted(sample) == ["cancelled", "new", "paid", "shipped"]
    assert len(db.sample_values("customers", "name", limit=5)) == 5
    assert db.value_exists("customers", "city", "서울")
    assert not db.value_exists("customers", "city", "대구")
    assert db.value_exists("orders", "customer_id", "7") and db.value_exists("orders", "customer_id", 7)
    assert not db.value_exists("orders", "customer_id", "seven")
    assert db.search_values("customers", "city", "seo") == ["Seoul"]
    assert db.search_values("customers", "city", "서") == ["서울"]
    assert db.search_values("customers", "city", "%") == ["100%_sure"]  # wildcards are literal
    assert db.search_values("customers", "city", "_") == ["100%_sure"]
    assert db.search_values("customers", "city", "' OR '1'='1") == []
    assert db.search_values("orders", "customer_id", "49", limit=3) == ["49", "149", "249"]


def test_value_lookups_accept_only_known_names(db: Database) -> None:
    with pytest.raises(QueryError, match="unknown table 'customers; DROP TABLE orders'.*known tables"):
        db.sample_values("customers; DROP TABLE orders", "name")
    with pytest.raises(QueryError, match="unknown column 'name\" FROM orders --'.*its columns: id, name"):
        db.value_exists("customers", 'name" FROM orders --', "x")
    assert db.sample_values("CUSTOMERS", "City")  # model-written case is fine


# -------------------------------------------------------------------------------- open errors


def test_open_database_errors_name_the_url_without_password(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="no such file"):
        open_database(str(tmp_path / "missing.db"))
    with pytest.raises(DatabaseError, match="unsupported database URL 'mysql://u:\\*\\*\\*@h/db'"):
        open_database("mysql://u:secret@h/db")
    with pytest.raises(DatabaseError, match="in-memory"):
        open_database("sqlite:///:memory:")
    not_a_db = tmp_path / "text.db"
    not_a_db.write_text("hello")
    with pytest.raises(DatabaseError, match="not a database"):
        open_database(str(not_a_db))
    with pytest.raises(DatabaseError) as info:
        open_database("postgresql://someone:hunter2@127.0.0.1:1/nowhere?connect_timeout=2")
    message = str(info.value)
    assert "hunter2" not in message and "someone:***@127.0.0.1:1" in message and "refused" in message.lower()
    assert (
        redact_url("postgres://u@h/db?password=x&sslmode=require")
        == "postgres://u@h/db?password=%2A%2A%2A&sslmode=require"
    )


def test_sqlite_url_forms(sqlite_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(sqlite_path.parent)
    for url in (f"sqlite:///{sqlite_path.name}", f"sqlite:///{sqlite_path}", sqlite_path.name):
        with open_database(url) as db:
            assert db.dialect == "sqlite" and db.fetch("SELECT COUNT(*) FROM products").rows == [(40,)]
    odd = tmp_path / "a dir?#%" / "shop.sqlite"
    odd.parent.mkdir()
    shutil.copy(sqlite_path, odd)
    with open_database(str(odd)) as db:  # URI-special characters in the path are escaped
        assert db.fetch("SELECT COUNT(*) FROM products").rows == [(40,)]
