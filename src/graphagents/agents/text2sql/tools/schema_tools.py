"""Exploration tools: tables, columns and stored values (design note, sections 5.1-5.3)."""

from __future__ import annotations

import re
from typing import Any

from graphagents.sql import QueryError

from .context import ToolContext, ToolResult, failure

_HINT_PATTERNS = (
    re.compile(r'Perhaps you meant to reference the column "(\w+)"\."(\w+)"'),
    re.compile(r'column "?(\w+)"?\."?(\w+)"? does not exist'),
    re.compile(r'column "(\w+)" does not exist'),
    re.compile(r"no such column: (?:(\w+)\.)?(\w+)"),
)
MIN_KEYWORD_CHARS = 2


def extract_hint_columns(error: str) -> list[str]:
    """Columns named by a database error ("column region does not exist"): where to look next."""
    hints: list[str] = []
    for pattern in _HINT_PATTERNS:
        for match in pattern.finditer(error or ""):
            parts = [g for g in match.groups() if g]
            hint = ".".join(parts)
            if hint not in hints:
                hints.append(hint)
    return hints


def _k(params: dict[str, str], default: int) -> int:
    try:
        return max(1, min(int(params.get("k") or default), 20))
    except ValueError:
        return default


def search_tables(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    hits = ctx.agent.schema.search_tables(params["query"], k=_k(params, 5))
    if not hits:
        return failure("no table matches that query", fix="search with other words, or search_columns")
    lines, rows = [], []
    for h in hits:
        cols = ", ".join(str(c) for c in list(h.columns)[:15])
        lines.append(f"- {h.table} (score {h.score:.2f}): {h.comment or ''}\n  columns: {cols}")
        rows.append({"table": h.table, "score": round(float(h.score), 3)})
    names = [h.table for h in hits]
    joins = _join_lines(ctx, names[:3])
    content = "Tables ranked by similarity and foreign-key importance:\n" + "\n".join(lines) + joins
    return ToolResult(True, content, f"{len(hits)} tables: {', '.join(names)}", {"tables": rows})


def _join_lines(ctx: ToolContext, tables: list[str]) -> str:
    if len(tables) < 2:
        return ""
    try:
        edges = ctx.agent.schema.join_path(tables)
    except Exception:  # no path between them is normal, not an error
        return ""
    if not edges:
        return ""
    return "\nJoin path: " + "; ".join(e.on for e in edges)


def search_columns(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    table = (params.get("table") or "").strip() or None
    hits = ctx.agent.schema.search_columns(params["query"], table=table, k=_k(params, 8))
    if not hits:
        return failure("no column matches that query", fix="search with other words or another table")
    lines = []
    for h in hits:
        samples = ", ".join(repr(s) for s in list(h.samples or [])[:5])
        lines.append(f"- {h.table}.{h.column} {h.type}: {h.comment or ''}" + (f" e.g. {samples}" if samples else ""))
    found = [f"{h.table}.{h.column}" for h in hits]
    return ToolResult(True, "Columns:\n" + "\n".join(lines), f"{len(hits)} columns: {', '.join(found[:5])}",
                      {"columns": found})


def _targets(column: str, ctx: ToolContext) -> list[tuple[str, str]]:
    """``table.column``, a bare column (every table that has it), or hints from the last error."""
    names = [column] if column else extract_hint_columns(ctx.last_error)
    schema = ctx.db.introspect()
    out: list[tuple[str, str]] = []
    for name in names:
        table, _, col = name.rpartition(".")
        if table:
            out.append((table, col))
        else:
            out.extend((t.name, col) for t in schema.tables if t.column(col) is not None)
    return out


def progressive_search(ctx: ToolContext, table: str, column: str, keyword: str) -> tuple[str, list[str]]:
    """Search the keyword, then shorter and shorter prefixes: "서울특별시" -> ... -> "서울"."""
    kw = keyword.strip()
    values = ctx.db.search_values(table, column, kw, limit=20)
    while not values and len(kw) > MIN_KEYWORD_CHARS:
        kw = kw[:-1].rstrip()
        values = ctx.db.search_values(table, column, kw, limit=20)
    return kw, values


def _mapping(ctx: ToolContext, keyword: str, table: str, column: str) -> Any:
    try:
        return ctx.agent.values.map(keyword, table, column)
    except Exception:  # value mapping is a bonus on top of the search
        return None


def search_column_values(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    keyword = params["keyword"].strip()
    column = (params.get("column") or "").strip()
    targets = _targets(column, ctx)
    if not targets:
        return failure("no column to search", fix="give column as table.column (search_columns finds it)")
    lines: list[str] = []
    found: dict[str, list[str]] = {}
    for table, col in targets[:4]:
        try:
            used, values = progressive_search(ctx, table, col, keyword)
        except QueryError as exc:
            lines.append(f"- {table}.{col}: {exc}")
            continue
        mapped = _mapping(ctx, keyword, table, col)
        note = f" (keyword shortened {keyword!r} -> {used!r})" if used != keyword and values else ""
        shown = ", ".join(repr(v) for v in values[:10]) or "no match"
        lines.append(f"- {table}.{col}{note}: {shown}")
        if mapped is not None:
            lines.append(f"  value mapping: {keyword!r} -> {_mapped_value(mapped)!r}")
        found[f"{table}.{col}"] = values[:10]
    ok = any(found.values()) or any("value mapping" in ln for ln in lines)
    content = f"Stored values for {keyword!r}:\n" + "\n".join(lines)
    if not ok:
        return failure(content, fix="try another column, or a shorter or different keyword", data={"values": found})
    return ToolResult(True, content, f"values for {keyword!r} in {', '.join(found) or 'mapping'}", {"values": found})


def _mapped_value(mapped: Any) -> Any:
    return getattr(mapped, "value", mapped)
