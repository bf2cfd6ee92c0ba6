"""A result cut at max_rows still tells its true size (the page shows "전체 N행", not the kept prefix)."""

from __future__ import annotations

from graphagents.agents.text2sql.agent_context import AgentContext
from graphagents.agents.text2sql.spec import artifacts
from graphagents.agents.text2sql.tools import ToolContext, execute_tool
from graphagents.settings import get_settings


def test_a_cut_result_counts_every_row() -> None:
    agent = AgentContext.open(get_settings(), {"cache": False, "max_rows": 50})
    ctx = ToolContext(agent, "고객 목록")
    total = execute_tool("submit_sql", {"sql": "SELECT COUNT(*) AS n FROM customers"}, ctx).table["rows"][0][0]
    assert total > 50
    sql = "SELECT customer_id, region_code FROM customers ORDER BY customer_id;"
    result = execute_tool("submit_sql", {"sql": sql}, ctx)
    assert result.ok and result.table is not None
    assert len(result.table["rows"]) == 50 and result.table["truncated"] is True
    assert result.table["total_rows"] == total
    table = next(a for a in artifacts({"sql": result.sql, "table": result.table}) if a.kind == "table")
    assert table.total_rows == total  # type: ignore[attr-defined]
    # a whole result has nothing to count
    small = execute_tool("submit_sql", {"sql": "SELECT region_code FROM customers GROUP BY region_code"}, ctx)
    assert small.table is not None and small.table["truncated"] is False and "total_rows" not in small.table
