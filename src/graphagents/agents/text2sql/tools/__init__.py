"""The tool registry of the text2sql agent (design note, section 2.2).

Every tool is ``fn(parameters, ctx) -> ToolResult``. :func:`execute_tool` is the only way the
loop runs one: a missing parameter, an unknown tool or an unexpected failure becomes an error
observation telling the model what to fix, never an exception out of the graph.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from .context import ToolContext, ToolResult, failure
from .memory_tools import find_similar_query
from .schema_tools import extract_hint_columns, search_column_values, search_columns, search_tables
from .sql_tools import execute_sql_preview, explain, submit_sql

log = logging.getLogger("graphagents.text2sql")

ToolFn = Callable[[dict[str, str], ToolContext], ToolResult]


@dataclass(frozen=True)
class Tool:
    name: str
    fn: ToolFn
    required: tuple[str, ...]


TOOL_REGISTRY: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool("search_tables", search_tables, ("query",)),
        Tool("search_columns", search_columns, ("query",)),
        Tool("search_column_values", search_column_values, ("keyword",)),
        Tool("find_similar_query", find_similar_query, ()),
        Tool("explain", explain, ("sql",)),
        Tool("execute_sql_preview", execute_sql_preview, ("sql",)),
        Tool("submit_sql", submit_sql, ("sql",)),
    )
}


def execute_tool(name: str, parameters: dict[str, str], ctx: ToolContext) -> ToolResult:
    tool = TOOL_REGISTRY.get(name)
    if tool is None:
        return failure(f"unknown tool {name!r}", fix=f"call one of: {', '.join(TOOL_REGISTRY)}")
    missing = [p for p in tool.required if not (parameters.get(p) or "").strip()]
    if missing:
        return failure(f"{name} needs the parameter {missing[0]!r}",
                       fix=f"put <{missing[0]}>...</{missing[0]}> inside <parameters>")
    try:
        return tool.fn(parameters, ctx)
    except Exception as exc:  # a tool bug must reach the model as an error, not end the session
        log.exception("text2sql tool %s failed", name)
        return failure(f"{name} failed: {type(exc).__name__}: {exc}", fix="try a different call")


__all__ = ["TOOL_REGISTRY", "Tool", "ToolContext", "ToolResult", "execute_tool", "extract_hint_columns"]
