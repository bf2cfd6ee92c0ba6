"""The tool registry of the text2sql agent (design note, section 2.2).

Every tool is ``fn(parameters, ctx) -> ToolResult``. :func:`execute_tool` is the only way the
loop runs one: a missing parameter, an unknown tool or an unexpected failure becomes an error
observation telling the model what to fix, never an exception out of the graph (the generic
:class:`graphagents.toolloop.ToolRegistry` does that).
"""

from __future__ import annotations

from graphagents.toolloop import Tool, ToolRegistry, XmlTurnProtocol

from .context import ToolContext, ToolResult, failure
from .memory_tools import find_similar_query
from .schema_tools import extract_hint_columns, search_column_values, search_columns, search_tables
from .sql_tools import execute_sql_preview, explain, submit_sql

TOOL_REGISTRY: ToolRegistry[ToolContext] = ToolRegistry(
    [
        Tool("search_tables", search_tables, ("query",)),
        Tool("search_columns", search_columns, ("query",)),
        Tool("search_column_values", search_column_values, ("keyword",)),
        Tool("find_similar_query", find_similar_query, ()),
        Tool("explain", explain, ("sql",)),
        Tool("execute_sql_preview", execute_sql_preview, ("sql",)),
        Tool("submit_sql", submit_sql, ("sql",)),
    ],
    result_type=ToolResult,
    parameter_hint=XmlTurnProtocol().parameter_hint,
)


def execute_tool(name: str, parameters: dict[str, str], ctx: ToolContext) -> ToolResult:
    result = TOOL_REGISTRY.execute(name, parameters, ctx)
    assert isinstance(result, ToolResult)  # result_type above: every result, failures included
    return result


__all__ = ["TOOL_REGISTRY", "Tool", "ToolContext", "ToolResult", "execute_tool", "extract_hint_columns", "failure"]
