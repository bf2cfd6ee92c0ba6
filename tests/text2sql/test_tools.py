"""The tools on the demo SQLite database: guard first, read-only execution, errors as observations."""

from __future__ import annotations

import pytest

from graphagents.agents.text2sql.agent_context import AgentContext
from graphagents.agents.text2sql.tools import TOOL_REGISTRY, ToolContext, execute_tool, extract_hint_columns
from graphagents.settings import get_settings


@pytest.fixture(scope="module")
def agent_ctx() -> AgentContext:
    return AgentContext.open(get_settings(), {"cache": False})


@pytest.fixture
def ctx(agent_ctx: AgentContext) -> ToolContext:
    return ToolContext(agent_ctx, "서울 고객 수")


def test_registry_has_the_notes_tools() -> None:
    assert set(TOOL_REGISTRY) == {"search_tables", "search_columns", "search_column_values", "find_similar_query",
                                  "explain", "execute_sql_preview", "submit_sql"}


@pytest.mark.parametrize(
    ("error", "hints"),
    [
        ('column "regionn" does not exist', ["regionn"]),
        ('column c.regionn does not exist\nHINT:  Perhaps you meant to reference the column "c"."region_code".',
         ["c.region_code", "c.regionn"]),
        ("no such column: regionn", ["regionn"]),
        ("no such column: c.regionn", ["c.regionn"]),
        ("syntax error at or near FROM", []),
    ],
)
def test_hint_columns_from_database_errors(error: str, hints: list[str]) -> None:
    assert extract_hint_columns(error) == hints


def test_search_tables_ranks_the_customer_table(ctx: ToolContext) -> None:
    result = execute_tool("search_tables", {"query": "고객 회원 이름 가입일"}, ctx)
    assert result.ok and result.data["tables"][0]["table"] == "customers"
    assert "columns:" in result.content


def test_search_columns_in_a_table(ctx: ToolContext) -> None:
    result = execute_tool("search_columns", {"query": "가격", "table": "products"}, ctx)
    assert result.ok and "products.price" in result.data["columns"]


def test_search_column_values_shortens_the_keyword(ctx: ToolContext) -> None:
    result = execute_tool("search_column_values", {"column": "regions.region_name", "keyword": "서울특별시"}, ctx)
    assert result.ok
    assert result.data["values"]["regions.region_name"] == ["서울"]
    assert "'서울특별시' -> '서울'" in result.content


def test_search_column_values_maps_words_to_codes(ctx: ToolContext) -> None:
    result = execute_tool("search_column_values", {"column": "customers.region_code", "keyword": "부산"}, ctx)
    assert "value mapping: '부산' -> 'BSN'" in result.content


def test_search_column_values_takes_columns_from_the_last_error(ctx: ToolContext) -> None:
    ctx.last_error = "no such column: region_name"
    result = execute_tool("search_column_values", {"keyword": "부산"}, ctx)
    assert result.ok and "regions.region_name" in result.data["values"]


def test_search_column_values_unknown_column_is_an_error_observation(ctx: ToolContext) -> None:
    result = execute_tool("search_column_values", {"column": "customers.nope", "keyword": "x"}, ctx)
    assert not result.ok and "unknown column" in result.content and "How to fix" in result.content


def test_explain_refuses_writes_through_the_guard(ctx: ToolContext) -> None:
    for sql in ("DELETE FROM customers", "SELECT 1; DROP TABLE customers",
                "WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x"):
        result = execute_tool("explain", {"sql": sql}, ctx)
        assert not result.ok and "refused by the guard" in result.content, sql


def test_explain_reports_plan_risks(ctx: ToolContext) -> None:
    result = execute_tool("explain", {"sql": "SELECT * FROM order_items WHERE product_id = 3"}, ctx)
    assert result.ok and result.sql.startswith("SELECT")
    assert set(result.data) >= {"risks", "suggestions", "is_efficient", "summary"}
    assert result.data["risks"] and "Risk:" in result.content


def test_preview_is_limited(ctx: ToolContext) -> None:
    result = execute_tool("execute_sql_preview", {"sql": "SELECT customer_id FROM customers"}, ctx)
    assert result.ok and len(result.table["rows"]) == ctx.options["preview_limit"]  # type: ignore[index]
    assert "LIMIT" in result.sql.upper()


def test_submit_returns_the_whole_result_as_json_values(ctx: ToolContext) -> None:
    sql = "SELECT region_code, COUNT(*) AS n FROM customers GROUP BY region_code ORDER BY n DESC"
    result = execute_tool("submit_sql", {"sql": sql}, ctx)
    assert result.ok and result.table is not None
    assert result.table["columns"] == ["region_code", "n"] and len(result.table["rows"]) == 10
    assert all(isinstance(r[1], int) for r in result.table["rows"])


def test_database_error_becomes_an_observation_with_hints(ctx: ToolContext) -> None:
    result = execute_tool("submit_sql", {"sql": "SELECT regionn FROM customers"}, ctx)
    assert not result.ok and "regionn" in result.content and "search_column_values" in result.content
    assert ctx.last_error


def test_unknown_tool_and_missing_parameter(ctx: ToolContext) -> None:
    unknown = execute_tool("drop_table", {}, ctx)
    assert not unknown.ok and "submit_sql" in unknown.content
    missing = execute_tool("explain", {}, ctx)
    assert not missing.ok and "'sql'" in missing.content


def test_find_similar_query_offers_remembered_sql(agent_ctx: AgentContext, ctx: ToolContext) -> None:
    sql = "SELECT COUNT(*) FROM customers WHERE region_code = 'SEL'"
    agent_ctx.memory.record(agent_ctx.fingerprint, "서울 고객 수는?", sql, success=True,
                            scope=agent_ctx.memory_scope(ctx.user_id))
    result = execute_tool("find_similar_query", {"question": "서울 고객 수는?"}, ctx)
    assert result.ok and result.data["best_sql"] == sql
    assert result.data["action"] in {"IMMEDIATE_TEMPLATE_REUSE", "ADAPT_TEMPLATE"}
