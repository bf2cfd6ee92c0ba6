"""SQL tools: every statement goes through SQLGuard, then the read-only executor (note, section 6).

The guard hands back SQL regenerated from its parse tree; that text, never the model's, is what
runs. Previews get a LIMIT from the guard; EXPLAIN is analysed and its risks shown to the model.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from graphagents.sql import QueryError, QueryTimeout

from ..explain import analyze_plan
from .context import ToolContext, ToolResult, failure
from .schema_tools import extract_hint_columns

PREVIEW_CELL_CHARS = 60


def cell(value: Any) -> Any:
    """A JSON-safe value that still compares as the database value (numbers stay numbers)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, dt.datetime):  # same text as evaluation.compare.normalize_value
        if value.tzinfo is None and value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def as_table(columns: Any, rows: Any) -> dict[str, Any]:
    return {"columns": [str(c) for c in columns], "rows": [[cell(v) for v in row] for row in rows]}


def render_rows(table: dict[str, Any], limit: int) -> str:
    def short(v: Any) -> str:
        s = "NULL" if v is None else str(v)
        return s if len(s) <= PREVIEW_CELL_CHARS else s[: PREVIEW_CELL_CHARS - 1] + "…"

    lines = [" | ".join(table["columns"])]
    lines += [" | ".join(short(v) for v in row) for row in table["rows"][:limit]]
    return "\n".join(lines)


def _guarded(sql: str, ctx: ToolContext, preview_limit: int | None = None) -> tuple[str, list[str], ToolResult | None]:
    result = ctx.guard.validate(sql, preview_limit=preview_limit)
    if not result.ok:
        errors = "; ".join(result.errors)
        return "", [], failure(f"SQL refused by the guard: {errors}",
                               fix="write one read-only SELECT statement", data={"errors": list(result.errors)})
    return result.sql, list(result.warnings), None


def _db_failure(exc: QueryError, ctx: ToolContext, sql: str) -> ToolResult:
    message = str(exc).strip()
    ctx.last_error = message
    if isinstance(exc, QueryTimeout):
        fix = "make the query cheaper: filter earlier, aggregate, or avoid a cross join"
    else:
        hints = extract_hint_columns(message)
        fix = "check table and column names with search_tables / search_columns"
        if hints:
            fix += f"; columns named by the error: {', '.join(hints)} (search_column_values can look them up)"
    return failure(f"the database refused the SQL: {message}", fix=fix, sql=sql, data={"error": message})


def explain(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    sql, warnings, refused = _guarded(params["sql"], ctx)
    if refused:
        return refused
    try:
        plan = ctx.db.explain(sql, timeout_s=ctx.options["statement_timeout_s"])
    except QueryError as exc:
        return _db_failure(exc, ctx, sql)
    analysis = analyze_plan(plan)
    data = {
        "risks": list(analysis.risks),
        "suggestions": list(analysis.suggestions),
        "is_efficient": analysis.is_efficient,
        "summary": analysis.summary,
        "warnings": warnings,
    }
    lines = ["The SQL is valid and read-only.", f"Plan: {analysis.summary}"]
    lines += [f"Risk: {r}" for r in analysis.risks]
    lines += [f"Suggestion: {s}" for s in analysis.suggestions]
    lines += [f"Guard warning: {w}" for w in warnings]
    lines.append("Next: execute_sql_preview to check the rows, or submit_sql.")
    verdict = "efficient" if analysis.is_efficient else f"{len(analysis.risks)} risk(s)"
    return ToolResult(True, "\n".join(lines), f"explain ok: {verdict}", data, sql)


def execute_sql_preview(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    limit = ctx.options["preview_limit"]
    sql, warnings, refused = _guarded(params["sql"], ctx, preview_limit=limit)
    if refused:
        return refused
    try:
        result = ctx.db.fetch(sql, max_rows=limit, timeout_s=ctx.options["statement_timeout_s"])
    except QueryError as exc:
        return _db_failure(exc, ctx, sql)
    table = as_table(result.columns, result.rows)
    n = len(table["rows"])
    head = f"Preview ({n} row{'s' if n != 1 else ''}{', more exist' if result.truncated else ''}):"
    body = render_rows(table, limit) if n else "(no rows: check the filter values with search_column_values)"
    extra = "".join(f"\nGuard warning: {w}" for w in warnings)
    return ToolResult(True, f"{head}\n{body}{extra}", f"preview: {n} rows", {"rows": n}, sql, table)


def _count_rows(sql: str, ctx: ToolContext) -> int | None:
    """The full row count of a result that was cut at ``max_rows``; None when counting fails."""
    inner = sql.strip().rstrip(";")
    try:
        counted = ctx.db.fetch(f"SELECT COUNT(*) FROM ({inner}) AS ga_counted", max_rows=1,
                               timeout_s=ctx.options["statement_timeout_s"])
        return int(counted.rows[0][0]) if counted.rows else None
    except (QueryError, TypeError, ValueError, IndexError):
        return None


def submit_sql(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    sql, _warnings, refused = _guarded(params["sql"], ctx)
    if refused:
        return refused
    max_rows = ctx.options["max_rows"]
    try:
        result = ctx.db.fetch(sql, max_rows=max_rows, timeout_s=ctx.options["statement_timeout_s"])
    except QueryError as exc:
        return _db_failure(exc, ctx, sql)
    table = as_table(result.columns, result.rows)
    table["truncated"] = bool(result.truncated)
    if result.truncated:  # the page and the reply say the true size, not the kept prefix
        table["total_rows"] = _count_rows(sql, ctx)
    n = len(table["rows"])
    more = f" (first {max_rows} kept)" if result.truncated else ""
    content = f"Submitted. {n} rows{more}.\n{render_rows(table, 5)}"
    return ToolResult(True, content, f"submitted: {n} rows{more}", {"rows": n, "truncated": result.truncated},
                      sql, table)
