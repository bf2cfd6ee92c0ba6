"""Reads query plans for the mandatory-explain policy: risks the model should fix before submitting.

Neither plan format says how big a scanned table is (Postgres' ``Plan Rows`` counts rows *after*
the filter; SQLite's EXPLAIN QUERY PLAN has no numbers at all), so :class:`.db.ExplainPlan` carries
the row estimates from introspection and every size judgement here uses them first.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from graphagents.sql import ExplainPlan

__all__ = ["PlanAnalysis", "analyze_plan", "render_plan"]

_INDEXED_SCANS = ("Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Bitmap Index Scan")
_SQLITE_ACCESS = re.compile(r"^(SCAN|SEARCH) (?:TABLE )?(\S+)(?: AS (\S+))?\s*(.*)$")
_SQLITE_TEMP = re.compile(
    r"USE TEMP B-TREE FOR (?:RIGHT PART OF |LAST TERM OF )?(ORDER BY|GROUP BY|DISTINCT)"
)
_SQLITE_AUTO = re.compile(r"AUTOMATIC (?:PARTIAL )?COVERING INDEX \(([^)]*)\)")


@dataclass(frozen=True)
class PlanAnalysis:
    risks: tuple[str, ...]
    suggestions: tuple[str, ...]
    is_efficient: bool
    summary: str


def analyze_plan(
    plan: ExplainPlan, *, large_table_rows: int = 10_000, high_cost: float = 1_000_000.0
) -> PlanAnalysis:
    """Risks (reasons to rewrite) and suggestions (indexes, limits) found in one plan."""
    if plan.dialect == "postgres":
        risks, suggestions, overview = _analyze_postgres(plan, large_table_rows, high_cost)
    else:
        risks, suggestions, overview = _analyze_sqlite(plan, large_table_rows)
    risks, suggestions = _unique(risks), _unique(suggestions)
    if risks:
        summary = f"{len(risks)} risk(s): " + "; ".join(risks) + f". {overview}"
    else:
        summary = f"No obvious performance risk. {overview}"
    return PlanAnalysis(tuple(risks), tuple(suggestions), not risks, summary)


def render_plan(plan: ExplainPlan, *, max_lines: int = 60) -> str:
    """A compact indented plan for the model's observation (the raw JSON wastes its context)."""
    lines: list[str] = []
    if plan.dialect == "postgres":
        for node, depth, _ in _walk(_root(plan)):
            lines.append("  " * depth + "-> " + _describe(node, plan.default_schema))
    else:
        depth_of: dict[int, int] = {}
        for node_id, parent, detail in plan.raw:
            depth_of[node_id] = depth_of.get(parent, -1) + 1
            lines.append("  " * depth_of[node_id] + "-> " + str(detail))
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... ({len(lines) - max_lines} more plan lines)"]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------- Postgres


def _analyze_postgres(plan: ExplainPlan, large: int, high_cost: float) -> tuple[list[str], list[str], str]:
    risks: list[str] = []
    suggestions: list[str] = []
    root = _root(plan)
    for node, _, parent in _walk(root):
        kind = node.get("Node Type", "")
        if kind == "Seq Scan":
            table = _pg_table(node, plan.default_schema)
            rows = _table_rows(plan, node) or int(node.get("Plan Rows", 0))
            if rows > large:
                kept = f", keeping ~{int(node.get('Plan Rows', 0)):,}" if node.get("Filter") else ""
                risks.append(f"Seq Scan on {table} reads all ~{rows:,} rows{kept}")
                # Without a Filter no WHERE condition reaches this table: an index would not help.
                columns = _expression_columns(node.get("Filter", ""), node.get("Alias"))
                suggestions.append(_index_suggestion(table, columns))
        elif kind == "Nested Loop" and len(node.get("Plans", ())) == 2:
            outer, inner = node["Plans"]
            while inner.get("Node Type") == "Materialize" and inner.get("Plans"):
                inner = inner["Plans"][0]
            outer_rows = int(outer.get("Plan Rows", 0))
            inner_rows = _table_rows(plan, inner) or int(inner.get("Plan Rows", 0))
            indexed = inner.get("Node Type") in _INDEXED_SCANS
            if not indexed and outer_rows > 1 and outer_rows * inner_rows > large * 100:
                target = (
                    _pg_table(inner, plan.default_schema)
                    if inner.get("Relation Name")
                    else inner.get("Node Type", "?")
                )
                risks.append(
                    f"Nested Loop repeats {target} (~{inner_rows:,} rows) "
                    f"for each of ~{outer_rows:,} outer rows"
                )
                alias = inner.get("Alias")
                columns = _expression_columns(node.get("Join Filter", ""), alias) or _expression_columns(
                    inner.get("Filter", ""), alias
                )
                suggestions.append(_index_suggestion(target, columns, why="so the join can use an index"))
        elif kind in ("Sort", "Incremental Sort"):
            method = str(node.get("Sort Method", "")).lower()
            rows = int(node.get("Plan Rows", 0))
            keys = ", ".join(node.get("Sort Key", ()))
            if "external" in method or node.get("Sort Space Type") == "Disk":
                risks.append(f"Sort by {keys} spills to disk")
            elif rows > large * 10 and (parent or {}).get("Node Type") != "Limit":
                risks.append(f"Sort of ~{rows:,} rows by {keys}")
            else:
                continue
            suggestions.append(f"add a LIMIT or an index on the sort key ({keys}) to avoid a full sort")
        elif kind == "Hash" and int(node.get("Hash Batches", 1) or 1) > 1:
            risks.append(f"Hash spills to disk in {node['Hash Batches']} batches")
            suggestions.append("join fewer rows (filter earlier) so the hash table fits in memory")
    cost = float(root.get("Total Cost", 0.0))
    if cost > high_cost:
        risks.append(f"estimated total cost {cost:,.0f} is very high")
        suggestions.append("filter earlier, aggregate less data, or add a LIMIT")
    access = [
        _access(n, plan.default_schema)
        for n, _, _ in _walk(root)
        if n.get("Relation Name") or n.get("Index Name")
    ]
    rows = int(root.get("Plan Rows", 0))
    overview = f"Plan: {root.get('Node Type', '?')}, estimated cost {cost:,.0f}, ~{rows:,} rows"
    overview += f"; access: {', '.join(access)}." if access else "."
    return risks, suggestions, overview


def _root(plan: ExplainPlan) -> dict[str, Any]:
    raw = plan.raw[0] if isinstance(plan.raw, list) else plan.raw
    return raw.get("Plan", raw) if isinstance(raw, dict) else {}


def _walk(
    node: dict[str, Any], depth: int = 0, parent: dict[str, Any] | None = None
) -> Iterator[tuple[dict[str, Any], int, dict[str, Any] | None]]:
    yield node, depth, parent
    for child in node.get("Plans", ()):
        yield from _walk(child, depth + 1, node)


def _pg_table(node: dict[str, Any], default_schema: str | None = None) -> str:
    relation = str(node.get("Relation Name", "?"))
    schema = node.get("Schema")
    return f"{schema}.{relation}" if schema and schema != (default_schema or "public") else relation


def _table_rows(plan: ExplainPlan, node: dict[str, Any]) -> int | None:
    relation = node.get("Relation Name")
    if not relation:
        return None
    for key in (f"{node.get('Schema')}.{relation}", relation):
        if key in plan.table_rows:
            return int(plan.table_rows[key])
    return None


def _access(node: dict[str, Any], default_schema: str | None) -> str:
    text = str(node.get("Node Type", "?"))
    if node.get("Relation Name"):
        text += f" on {_pg_table(node, default_schema)}"
    return text + (f" using {node['Index Name']}" if node.get("Index Name") else "")


def _describe(node: dict[str, Any], default_schema: str | None) -> str:
    text = str(node.get("Node Type", "?"))
    if node.get("Relation Name"):
        alias = node.get("Alias")
        text += f" on {_pg_table(node, default_schema)}" + (
            f" {alias}" if alias and alias != node["Relation Name"] else ""
        )
    if node.get("Index Name"):
        text += f" using {node['Index Name']}"
    text += f" (rows={int(node.get('Plan Rows', 0))} cost={node.get('Total Cost', 0)})"
    for key in ("Index Cond", "Hash Cond", "Merge Cond", "Join Filter", "Filter", "Sort Key", "Group Key"):
        if node.get(key):
            value = node[key]
            text += f" {key}: {', '.join(value) if isinstance(value, list) else value}"
    return text


# --------------------------------------------------------------------------------------- SQLite


def _analyze_sqlite(plan: ExplainPlan, large: int) -> tuple[list[str], list[str], str]:
    risks: list[str] = []
    suggestions: list[str] = []
    aliases = _aliases(plan.sql, "sqlite")
    where_columns = _condition_columns(plan.sql, "sqlite", on=False)
    join_columns = _condition_columns(plan.sql, "sqlite", on=True)
    clause_columns = _clause_columns(plan.sql, "sqlite")
    access: list[str] = []
    for _, _, detail in plan.raw:
        detail = str(detail)
        match = _SQLITE_ACCESS.match(detail)
        if match and match.group(2) not in ("CONSTANT", "SUBQUERY"):
            verb, name, alias, rest = match.groups()
            table = aliases.get(alias or name, aliases.get(name, name))
            access.append(detail)
            auto = _SQLITE_AUTO.search(rest)
            if auto:
                columns = [c.split("=")[0].strip() for c in auto.group(1).split(" AND ")]
                suggestions.append(
                    f"SQLite builds a temporary index on {table}({', '.join(columns)}) on every run; "
                    f"CREATE INDEX ON {table} ({', '.join(columns)}) makes it permanent"
                )
            rows = plan.table_rows.get(table)
            if verb == "SCAN" and "INDEX" not in rest and rows is not None and rows > large:
                risks.append(f"full scan of {table} (~{rows:,} rows)")
                columns, why = where_columns.get(alias or name, []), "so the filter can use an index"
                if not columns and len(access) > 1:  # an inner loop of a join: index its join columns
                    columns, why = join_columns.get(alias or name, []), "so the join can use an index"
                suggestions.append(_index_suggestion(table, columns, why))
        temp = _SQLITE_TEMP.search(detail)
        if temp:
            clause = temp.group(1)
            columns = clause_columns.get(clause, [])
            on = f" on ({', '.join(columns)})" if columns else ""
            suggestions.append(f"{clause} sorts in a temporary B-tree; an index{on} would avoid it")
    overview = "Plan: " + ("; ".join(access) if access else "no table access") + "."
    return risks, suggestions, overview


# ------------------------------------------------------------------------------ SQL inspection


def _parse(sql: str, dialect: str) -> exp.Expr | None:
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except Exception:  # noqa: BLE001 - suggestions are best effort; the plan itself is the evidence
        return None


def _aliases(sql: str, dialect: str) -> dict[str, str]:
    tree = _parse(sql, dialect)
    if tree is None:
        return {}
    return {t.alias_or_name: t.name for t in tree.find_all(exp.Table) if t.name}


def _condition_columns(sql: str, dialect: str, *, on: bool) -> dict[str, list[str]]:
    """Columns compared in WHERE (or in JOIN ... ON), by table alias; unqualified ones go to every alias."""
    tree = _parse(sql, dialect)
    if tree is None:
        return {}
    found: dict[str, list[str]] = {}
    unqualified: list[str] = []
    if on:
        conditions = [j.args["on"] for j in tree.find_all(exp.Join) if j.args.get("on")]
    else:
        conditions = list(tree.find_all(exp.Where))
    for condition in conditions:
        for column in condition.find_all(exp.Column):
            bucket = found.setdefault(column.table, []) if column.table else unqualified
            if column.name and column.name not in bucket:
                bucket.append(column.name)
    aliases = _aliases(sql, dialect)
    for alias in aliases:
        found.setdefault(alias, [])
        found[alias].extend(c for c in unqualified if c not in found[alias])
    return found


def _clause_columns(sql: str, dialect: str) -> dict[str, list[str]]:
    tree = _parse(sql, dialect)
    if tree is None:
        return {}
    out: dict[str, list[str]] = {}
    for clause, node_type in (("ORDER BY", exp.Order), ("GROUP BY", exp.Group)):
        node = tree.find(node_type)
        if node is not None:
            out[clause] = _unique([c.sql(dialect=dialect) for c in node.find_all(exp.Column)])
    if isinstance(tree, exp.Select) and tree.args.get("distinct"):
        out["DISTINCT"] = _unique(
            [c.sql(dialect=dialect) for e in tree.expressions for c in e.find_all(exp.Column)]
        )
    return out


def _expression_columns(expression: str, alias: str | None = None) -> list[str]:
    """Columns of ``alias`` named in a plan expression such as ``((o.status)::text = 'x'::text)``."""
    if not expression:
        return []
    tree = _parse(expression, "postgres")
    if tree is None:
        return _unique(re.findall(r"\(?([a-z_][a-z0-9_]*)\)?(?:::[a-z ]+)?\s*(?:=|<>|<|>|~~)", expression))
    return _unique([c.name for c in tree.find_all(exp.Column) if c.name and c.table in ("", alias)])


def _index_suggestion(table: str, columns: list[str], why: str = "so the filter can use an index") -> str:
    if columns:
        return f"consider CREATE INDEX ON {table} ({', '.join(columns)}) {why}"
    return f"{table} is read in full: add a selective WHERE condition or a LIMIT if not every row is needed"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
