"""Plan analysis on real plans from both engines (tables past 10k rows, with and without an index)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphagents.agents.text2sql.explain import analyze_plan, render_plan
from graphagents.sql import Database, ExplainPlan, open_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, sqlite_path: Path) -> Iterator[Database]:
    url = str(sqlite_path) if request.param == "sqlite" else request.getfixturevalue("pg_shop_url")
    with open_database(url) as database:
        yield database


def test_full_scan_of_a_big_table_is_a_risk_naming_table_and_filter_column(db: Database) -> None:
    plan = db.explain("SELECT id, amount FROM orders WHERE status = 'shipped'")
    analysis = analyze_plan(plan)
    assert not analysis.is_efficient
    assert any("orders" in r and "20,000" in r for r in analysis.risks), analysis.risks
    assert any("CREATE INDEX ON orders (status)" in s for s in analysis.suggestions), analysis.suggestions
    assert analysis.summary.startswith("1 risk(s)")


def test_indexed_lookup_is_efficient(db: Database) -> None:
    analysis = analyze_plan(db.explain("SELECT id, amount FROM orders WHERE customer_id = 7"))
    assert analysis.is_efficient, analysis.risks
    assert analysis.risks == ()
    assert "No obvious performance risk" in analysis.summary
    assert "orders_customer_idx" in analysis.summary or "INDEX" in analysis.summary.upper()


def test_small_table_scan_is_not_a_risk(db: Database) -> None:
    analysis = analyze_plan(db.explain("SELECT * FROM products WHERE category = 'toy'"))
    assert analysis.is_efficient, analysis.risks


def test_threshold_is_a_parameter(db: Database) -> None:
    plan = db.explain("SELECT * FROM products WHERE category = 'toy'")
    assert not analyze_plan(plan, large_table_rows=10).is_efficient


def test_sqlite_temp_btree_for_order_by_becomes_a_suggestion(sqlite_path: Path) -> None:
    with open_database(str(sqlite_path)) as db:
        plan = db.explain("SELECT o.id FROM orders o WHERE o.customer_id = 3 ORDER BY o.amount DESC")
    analysis = analyze_plan(plan)
    assert analysis.is_efficient  # an indexed search plus a small sort
    assert any("ORDER BY sorts in a temporary B-tree" in s and "amount" in s for s in analysis.suggestions)


def test_sqlite_aliases_resolve_to_tables(sqlite_path: Path) -> None:
    with open_database(str(sqlite_path)) as db:
        plan = db.explain("SELECT e.kind, COUNT(*) FROM events e WHERE e.score > 50 GROUP BY e.kind")
    analysis = analyze_plan(plan)
    assert any(r.startswith("full scan of events") for r in analysis.risks), analysis.risks
    assert any("CREATE INDEX ON events (score)" in s for s in analysis.suggestions)
    assert any("GROUP BY" in s for s in analysis.suggestions)


def test_sqlite_automatic_index_is_reported(sqlite_path: Path) -> None:
    with open_database(str(sqlite_path)) as db:
        plan = db.explain("SELECT c.name FROM customers c JOIN orders o ON o.status = c.tier")
    suggestions = analyze_plan(plan).suggestions
    # Which side gets the transient index depends on SQLite's statistics; that one is built is not.
    assert any(
        "temporary index on orders(status)" in s or "temporary index on customers(tier)" in s
        for s in suggestions
    ), suggestions


@pytest.mark.postgres
def test_postgres_nested_loop_over_big_inner_side(pg_shop_url: str) -> None:
    with open_database(pg_shop_url) as db:
        plan = db.explain("SELECT o.id, e.id FROM orders o JOIN events e ON e.score > o.amount")
    analysis = analyze_plan(plan)
    assert any(r.startswith("Nested Loop repeats") for r in analysis.risks), analysis.risks
    assert any("estimated total cost" in r for r in analysis.risks)
    assert not analysis.is_efficient


@pytest.mark.postgres
def test_postgres_big_sort_is_a_risk_below_a_lower_threshold(pg_shop_url: str) -> None:
    with open_database(pg_shop_url) as db:
        plan = db.explain("SELECT * FROM orders ORDER BY amount")
        limited = db.explain("SELECT * FROM orders ORDER BY amount LIMIT 10")
    risks = analyze_plan(plan, large_table_rows=1000).risks
    assert any(r.startswith("Sort of ~20,000 rows by orders.amount") for r in risks), risks
    assert not any(r.startswith("Sort") for r in analyze_plan(limited, large_table_rows=1000).risks)


@pytest.mark.postgres
def test_postgres_plan_carries_row_estimates_for_schema_qualified_tables(pg_shop_url: str) -> None:
    with open_database(pg_shop_url) as db:
        plan = db.explain("SELECT * FROM sales.regions")
    assert plan.table_rows["sales.regions"] == 2
    assert analyze_plan(plan).is_efficient
    assert "Seq Scan on sales.regions" in render_plan(plan)


def test_render_plan_is_compact_text(db: Database) -> None:
    text = render_plan(db.explain("SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id"))
    lines = text.splitlines()
    assert lines and all(line.lstrip().startswith("->") for line in lines)
    assert any("customers" in line or " c" in line for line in lines)
    assert "{" not in text and len(text) < 2000


def test_hand_made_postgres_plans_cover_analyze_only_fields() -> None:
    raw = {
        "Plan": {
            "Node Type": "Hash Join",
            "Total Cost": 2_500_000.0,
            "Plan Rows": 10,
            "Plans": [
                {"Node Type": "Sort", "Sort Key": ["t.a"], "Sort Method": "external merge", "Plan Rows": 5},
                {"Node Type": "Hash", "Hash Batches": 8, "Plan Rows": 5},
            ],
        }
    }
    analysis = analyze_plan(ExplainPlan("postgres", "SELECT 1", raw))
    assert "Sort by t.a spills to disk" in analysis.risks
    assert "Hash spills to disk in 8 batches" in analysis.risks
    assert any("very high" in r for r in analysis.risks)
    assert len(analysis.suggestions) == 3


def test_hand_made_sqlite_plan_without_sizes_is_not_guessed_at() -> None:
    plan = ExplainPlan("sqlite", "SELECT * FROM t WHERE x = 1", ((2, 0, "SCAN t"),), {})
    assert analyze_plan(plan).is_efficient  # no row count known: no risk invented
    big = ExplainPlan("sqlite", "SELECT * FROM t WHERE x = 1", ((2, 0, "SCAN TABLE t"),), {"t": 50_000})
    analysis = analyze_plan(big)
    assert analysis.risks == ("full scan of t (~50,000 rows)",)
    assert analysis.suggestions == ("consider CREATE INDEX ON t (x) so the filter can use an index",)
