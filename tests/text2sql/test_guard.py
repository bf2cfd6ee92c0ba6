"""SQLGuard: the attack corpus never gets through, legitimate queries do and still run after rewriting."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from graphagents.agents.text2sql.guard import SQLGuard, add_limit, normalise_sql
from graphagents.sql import QueryError, QueryTimeout, is_denied_function, open_database

CORPUS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "attack_corpus.yaml").read_text("utf-8")
)
DIALECTS = ("sqlite", "postgres")
ATTACKS = [
    pytest.param(entry["sql"], dialect, id=f"{dialect}-{i:03d}-{entry['why'][:40]}")
    for i, entry in enumerate(CORPUS)
    for dialect in entry.get("dialects", DIALECTS)
]
HUGE = {
    "long arithmetic": "SELECT " + "1 + " * 30_000 + "1",
    "deep parentheses": "SELECT " + "(" * 5_000 + "1" + ")" * 5_000,
    "many statements": "SELECT 1;" * 5_000 + " DROP TABLE customers",
    "long comment hiding a statement": "SELECT 1 /*" + "x" * 50_000 + "*/; DROP TABLE customers",
    "deep subqueries within the size limit": "SELECT * FROM " + "(SELECT * FROM " * 300 + "customers"
    + ") s" * 300 + "; DELETE FROM orders",
}  # fmt: skip

# (sql, dialects): every one must pass the guard and, once rewritten, run on the real engines.
BOTH, PG, LITE = DIALECTS, ("postgres",), ("sqlite",)
LEGIT: list[tuple[str, tuple[str, ...]]] = [
    ("SELECT id, name FROM customers WHERE city = 'Seoul'", BOTH),
    ("SELECT name FROM customers WHERE city = 'a;b'", BOTH),
    ("SELECT name FROM customers WHERE name LIKE 'Customer 00%' ORDER BY name", BOTH),
    ("SELECT /* top spenders */ customer_id, SUM(amount) AS total FROM orders -- per customer\n"
     "GROUP BY customer_id ORDER BY total DESC LIMIT 5", BOTH),
    ("-- cities we sell to\nSELECT DISTINCT city FROM customers", BOTH),
    ("SELECT COUNT(*) FROM orders;", BOTH),
    ("SELECT c.name, COUNT(o.id) AS n FROM customers c JOIN orders o ON o.customer_id = c.id "
     "GROUP BY c.name ORDER BY n DESC, c.name LIMIT 10", BOTH),
    ("SELECT c.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL", BOTH),
    ("SELECT p.category, c.city, SUM(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id "
     "JOIN products p ON p.id = o.product_id GROUP BY p.category, c.city", BOTH),
    ("WITH big AS (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) "
     "SELECT * FROM big WHERE total > 1000 ORDER BY total DESC", BOTH),
    ("WITH a AS (SELECT id FROM customers WHERE tier = 'gold'), b AS (SELECT customer_id FROM orders "
     "WHERE status = 'paid') SELECT COUNT(*) FROM a JOIN b ON b.customer_id = a.id", BOTH),
    ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) "
     "SELECT SUM(i) FROM n", BOTH),
    ("SELECT id, customer_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn "
     "FROM orders", BOTH),
    ("SELECT id, SUM(amount) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders", BOTH),
    ("SELECT customer_id, RANK() OVER (ORDER BY SUM(amount) DESC) FROM orders GROUP BY customer_id", BOTH),
    ("SELECT id, CASE WHEN amount > 100 THEN 'big' WHEN amount > 10 THEN 'mid' ELSE 'small' END FROM orders",
     BOTH),
    ("SELECT name, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS n FROM customers c", BOTH),
    ("SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE amount > 1000)", BOTH),
    ("SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id "
     "AND o.status = 'cancelled')", BOTH),
    ("SELECT name FROM customers c WHERE NOT EXISTS "
     "(SELECT 1 FROM orders o WHERE o.customer_id = c.id)", BOTH),
    ("SELECT city FROM customers UNION SELECT category FROM products", BOTH),
    ("SELECT id FROM customers UNION ALL SELECT id FROM products ORDER BY 1 LIMIT 20", BOTH),
    ("SELECT customer_id FROM orders INTERSECT SELECT id FROM customers", BOTH),
    ("SELECT id FROM customers EXCEPT SELECT customer_id FROM orders", BOTH),
    ("SELECT status, COUNT(*) FROM orders GROUP BY status HAVING COUNT(*) > 100", BOTH),
    ("SELECT id FROM orders WHERE amount BETWEEN 10 AND 20 AND status <> 'new'", BOTH),
    ("SELECT COALESCE(tier, 'none'), NULLIF(city, 'Seoul') FROM customers", BOTH),
    ("SELECT CAST(amount AS INTEGER), UPPER(status), LENGTH(status) FROM orders", BOTH),
    ("SELECT COUNT(*) FILTER (WHERE status = 'paid') AS paid FROM orders", BOTH),
    ("SELECT s.customer_id, s.n FROM (SELECT customer_id, COUNT(*) AS n FROM orders "
     "GROUP BY customer_id) AS s WHERE s.n > 30", BOTH),
    ("SELECT name || ' (' || city || ')' FROM customers ORDER BY tier NULLS LAST", BOTH),
    ('SELECT "name" FROM "customers" WHERE "id" = 1', BOTH),
    ("SELECT * FROM paid_orders LIMIT 3", BOTH),
    ("SELECT id FROM orders ORDER BY id LIMIT 10 OFFSET 20", BOTH),
    ("SELECT 1", BOTH),
    ("SELECT strftime('%Y-%m', created_at) AS month, COUNT(*) FROM orders GROUP BY month ORDER BY month",
     LITE),
    ("SELECT CAST(strftime('%Y', created_at) AS INTEGER) AS y FROM orders WHERE created_at >= date('now', "
     "'-30 days')", LITE),
    ("SELECT date_trunc('month', created_at) AS m, COUNT(*) FROM orders GROUP BY 1 ORDER BY 1", PG),
    ("SELECT EXTRACT(YEAR FROM created_at) AS y, COUNT(*) FROM orders GROUP BY 1", PG),
    ("SELECT id FROM orders WHERE created_at >= CURRENT_DATE - INTERVAL '30 days'", PG),
    ("SELECT DISTINCT ON (customer_id) customer_id, amount FROM orders ORDER BY customer_id, amount DESC",
     PG),
    ("SELECT name FROM customers WHERE name ILIKE 'customer 1%' AND id::text LIKE '1%'", PG),
    ("SELECT $$a;b$$ AS s, current_setting('TimeZone') IS NOT NULL", PG),
    ("SELECT g FROM generate_series(1, 5) AS g", PG),
    ("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(n, s)", PG),
    ("SELECT code, name FROM sales.regions", PG),
    # the schema of the data is not the server: allowed
    ("SELECT name FROM sqlite_master WHERE type = 'table'", LITE),
    ("SELECT name, type FROM pragma_table_info('orders')", LITE),
    ("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'", PG),
    ("SELECT relname FROM pg_catalog.pg_class WHERE relkind = 'r'", PG),
    ("SELECT current_setting('DateStyle'), current_database()", PG),
    ('SELECT "user" FROM (SELECT 1 AS "user") AS t', PG),
]  # fmt: skip


@pytest.mark.parametrize(("sql", "dialect"), ATTACKS)
def test_attack_is_refused(sql: str, dialect: str) -> None:
    result = SQLGuard(dialect).validate(sql, preview_limit=100)  # type: ignore[arg-type]
    assert not result.ok, f"{sql!r} got through as {result.sql!r}"
    assert result.errors and all(isinstance(e, str) and e for e in result.errors)
    assert result.sql == sql, "a refused query is handed back unchanged"


def test_corpus_is_big_enough() -> None:
    assert len(CORPUS) >= 70
    assert len(LEGIT) >= 30


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(HUGE))
def test_huge_or_deep_input_is_refused(name: str, dialect: str) -> None:
    result = SQLGuard(dialect).validate(HUGE[name])  # type: ignore[arg-type]
    assert not result.ok


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [pytest.param(sql, d, id=f"{d}-{i:02d}") for i, (sql, ds) in enumerate(LEGIT) for d in ds],
)
def test_legitimate_select_passes(sql: str, dialect: str) -> None:
    result = SQLGuard(dialect).validate(sql)  # type: ignore[arg-type]
    assert result.ok, result.errors
    assert not result.errors


def _run_legit_on(url: str, dialect: str) -> None:
    guard = SQLGuard(dialect)  # type: ignore[arg-type]
    with open_database(url) as db:
        for sql, dialects in LEGIT:
            if dialect in dialects:
                checked = guard.validate(sql, preview_limit=50)
                assert checked.ok, (sql, checked.errors)
                try:
                    result = db.fetch(checked.sql, max_rows=50)
                except QueryError as err:  # pragma: no cover - the message is the point
                    pytest.fail(f"{sql!r} rewritten as {checked.sql!r} fails on {dialect}: {err}")
                assert len(result.rows) <= 50 and not result.truncated


def test_rewritten_legitimate_queries_run_on_sqlite(sqlite_path: Path) -> None:
    _run_legit_on(str(sqlite_path), "sqlite")


@pytest.mark.postgres
def test_rewritten_legitimate_queries_run_on_postgres(pg_shop_url: str) -> None:
    _run_legit_on(pg_shop_url, "postgres")


def _assert_executor_holds(url: str, dialect: str) -> None:
    """The second lock on its own: every attack sent straight to the executor changes nothing."""
    outputs = [Path(f"/tmp/gg_t2s_attack_{n}") for n in ("copy.csv", "program", "lo", "write", "vacuum.db")]
    outputs.append(Path("/tmp/gg_t2s_attack_attach.db"))
    assert not any(p.exists() for p in outputs), "leftover attack output from an earlier run"
    with open_database(url) as db:
        before = (db.fingerprint(), db.fetch("SELECT COUNT(*), SUM(amount) FROM orders").rows)
        for entry in CORPUS:
            if dialect not in entry.get("dialects", DIALECTS) or entry.get("db") is False:
                continue
            sql = entry["sql"]
            if not sql.strip() or "\x00" in sql:
                continue
            with contextlib.suppress(QueryError, QueryTimeout):
                db.fetch(sql, timeout_s=0.5)
        db.introspect(refresh=True)
        after = (db.fingerprint(), db.fetch("SELECT COUNT(*), SUM(amount) FROM orders").rows)
    assert before == after
    assert not [p for p in outputs if p.exists()]


def test_sqlite_executor_alone_survives_the_corpus(sqlite_path: Path) -> None:
    _assert_executor_holds(str(sqlite_path), "sqlite")


@pytest.mark.postgres
def test_postgres_executor_alone_survives_the_corpus(pg_shop_url: str) -> None:
    _assert_executor_holds(pg_shop_url, "postgres")
    with open_database(pg_shop_url) as db:
        assert db.fetch("SELECT COUNT(*) FROM sales.regions WHERE code = 'XX'").rows == [(0,)]


@pytest.mark.parametrize(
    ("sql", "limit", "expected"),
    [
        ("SELECT * FROM t", 100, "SELECT * FROM t LIMIT 100"),
        ("SELECT * FROM t LIMIT 5", 100, "SELECT * FROM t LIMIT 5"),
        ("SELECT * FROM t LIMIT 500", 100, "SELECT * FROM t LIMIT 100"),
        ("SELECT * FROM t LIMIT 500 OFFSET 10", 100, "SELECT * FROM t LIMIT 100 OFFSET 10"),
        ("SELECT 'LIMIT 5' AS x FROM t", 7, "SELECT 'LIMIT 5' AS x FROM t LIMIT 7"),
        ("SELECT a FROM t -- LIMIT 1", 7, "SELECT a FROM t LIMIT 7"),
        ("SELECT 1 UNION SELECT 2", 3, "SELECT 1 UNION SELECT 2 LIMIT 3"),
        ("SELECT 1 UNION SELECT 2 LIMIT 50", 3, "SELECT 1 UNION SELECT 2 LIMIT 3"),
        ("WITH x AS (SELECT * FROM t LIMIT 1000) SELECT * FROM x", 10,
         "WITH x AS (SELECT * FROM t LIMIT 1000) SELECT * FROM x LIMIT 10"),
        ("SELECT * FROM t LIMIT ALL", 9, "SELECT * FROM (SELECT * FROM t LIMIT ALL) AS _preview LIMIT 9"),
        ("SELECT * FROM t FETCH FIRST 5 ROWS ONLY", 9, "SELECT * FROM t FETCH FIRST 5 ROWS ONLY"),
    ],
)  # fmt: skip
def test_add_limit_works_on_the_tree(sql: str, limit: int, expected: str) -> None:
    assert add_limit(sql, limit, dialect="postgres") == expected
    result = SQLGuard("postgres").validate(sql, preview_limit=limit)
    assert result.ok and result.sql == expected


def test_add_limit_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        add_limit("SELECT 1; SELECT 2", 10)
    with pytest.raises(ValueError):
        add_limit("SELECT 1", 0)


def test_without_preview_limit_the_query_is_not_capped() -> None:
    assert SQLGuard("sqlite").validate("select a from t").sql == "SELECT a FROM t"


def test_normalise_sql_ignores_layout_case_comments_and_semicolon() -> None:
    a = "SELECT name FROM customers WHERE id = 1"
    for b in (
        "select  name\n from Customers where ID=1;",
        "/* x */ SELECT name FROM customers -- y\nWHERE id = 1",
    ):
        assert normalise_sql(a) == normalise_sql(b)
        assert normalise_sql(a, "postgres") == normalise_sql(b, "postgres")
    assert normalise_sql(a) != normalise_sql("SELECT name FROM customers WHERE id = 2")
    assert normalise_sql("SELECT 'A'") != normalise_sql("SELECT 'a'")
    assert normalise_sql("not sql at all (((") == "not sql at all ((("


def test_warnings_flag_expensive_shapes_without_refusing() -> None:
    guard = SQLGuard("postgres")
    joins = guard.validate(
        "SELECT a.x FROM a JOIN b ON a.id = b.id JOIN c ON c.id = b.id "
        "JOIN d ON d.id = c.id JOIN e ON e.id = d.id"
    )
    assert joins.ok and any("4 JOINs" in w for w in joins.warnings)
    deep = guard.validate("SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT 1 AS x) a) b) c")
    assert deep.ok and any("nested 3 deep" in w for w in deep.warnings)
    star = guard.validate("SELECT * FROM a JOIN b ON a.id = b.id")
    assert star.ok and any("SELECT *" in w for w in star.warnings)
    cartesian = guard.validate("SELECT a.x FROM a, b WHERE a.y > 1")
    assert cartesian.ok and any("cartesian" in w for w in cartesian.warnings)
    joined = guard.validate("SELECT a.x FROM a, b WHERE a.id = b.a_id")
    assert joined.ok and not joined.warnings


def test_messages_tell_the_model_what_to_fix() -> None:
    guard = SQLGuard("postgres")
    assert "found 2" in guard.validate("SELECT 1; DROP TABLE t").errors[0]
    assert (
        "DELETE inside a WITH clause"
        in guard.validate("WITH x AS (DELETE FROM t RETURNING *) SELECT 1").errors[0]
    )
    assert "could not parse the SQL as postgres" in guard.validate("SELEC 1").errors[0]
    assert "pg_sleep()" in guard.validate("SELECT pg_sleep(1)").errors[0]
    assert "EXPLAIN is run by the agent" in guard.validate("EXPLAIN SELECT 1").errors[0]


@pytest.mark.parametrize(("sql", "kind"), [
    ("SELECT current_setting('data_directory')", "server configuration"),
    ("SELECT query FROM pg_stat_activity", "other sessions"),
    ("SELECT inet_server_addr()", "network addresses"),
    ("SELECT rolname FROM pg_roles", "roles and credentials"),
])  # fmt: skip
def test_server_disclosure_is_refused_with_its_class(sql: str, kind: str) -> None:
    result = SQLGuard("postgres").validate(sql)
    assert not result.ok and kind in result.errors[0] and "not data" in result.errors[0]


def test_sqlite_executor_refuses_server_functions_on_its_own(sqlite_path: Path) -> None:
    """The second lock: the SQLite authorizer refuses what the guard calls server disclosure."""
    with open_database(str(sqlite_path)) as db, pytest.raises(QueryError):
        db.fetch("SELECT sqlite_version()")


def test_extra_denied_functions_and_shared_deny_list() -> None:
    guard = SQLGuard("postgres", denied_functions=["expensive_udf"])
    assert not guard.validate("SELECT Expensive_UDF(1)").ok
    assert SQLGuard("postgres").validate("SELECT expensive_udf(1)").ok
    assert is_denied_function("PG_SLEEP_FOR") and is_denied_function("lo_put")
    assert not is_denied_function("current_setting")
    with pytest.raises(ValueError):
        SQLGuard("mysql")  # type: ignore[arg-type]
