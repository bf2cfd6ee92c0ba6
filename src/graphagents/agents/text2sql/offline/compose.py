"""compose(question, ctx): the offline brain's natural-language -> SQL step.

It answers only from evidence: cue words it knows, schema names and comments, values that exist
in the database. A word it cannot place that looks like a value (a proper noun, a quoted string)
or a construct it has no rule for makes it return ``sql=None`` with the reason, because a wrong
query that runs is worse for the user than an honest "I could not".
"""

from __future__ import annotations

import threading
from datetime import date
from typing import Any

from .assemble import assemble
from .build import render
from .catalog import Catalog, ColumnWords
from .link import ColumnRef, Linker, Piece, TableRef, Unknown, ValueRef, link_terms
from .parse import parse_question
from .plan import CannotAnswer, Planner
from .result import ComposeContext, ComposeResult, ValueLink
from .roles import assign_roles
from .values import ValueIndex

__all__ = ["compose"]

_cache: dict[tuple[int, str, str, int], tuple[Catalog, ValueIndex]] = {}
_cache_lock = threading.Lock()
_SHAPES = ("ratio", "top_n", "group_by", "date_range", "join", "code_value", "aggregate", "filter", "lookup")


def _indexes(ctx: ComposeContext) -> tuple[Catalog, ValueIndex]:
    """Catalog and value index cost a few queries; keep them per schema version and database."""
    key = (id(ctx.graph), str(getattr(ctx.graph, "fingerprint", "")), str(getattr(ctx.db, "url", id(ctx.db))),
           id(ctx.mapper))
    with _cache_lock:
        if key not in _cache:
            catalog = Catalog(ctx.graph)
            _cache[key] = (catalog, ValueIndex(catalog, ctx.db, ctx.mapper))
            if len(_cache) > 16:
                _cache.pop(next(iter(_cache)))
        return _cache[key]


def compose(question: str, ctx: ComposeContext) -> ComposeResult:
    if not question or not question.strip():
        return ComposeResult(None, "질문이 비어 있습니다 (empty question).")
    catalog, values = _indexes(ctx)
    frame = parse_question(question)
    linker = Linker(catalog, values)
    pieces = link_terms(frame.terms, linker, frame.text)
    groups: list[tuple[Piece | None, str, str | None]] = []
    for g in frame.groups:
        piece = None if g.bucket else (
            linker.resolve(g.word + "별", g.start, False) if frame.lang == "ko" else None
        ) or linker.resolve(g.word, g.start, False)
        if piece is None and not g.bucket and " " in g.word:  # "by quantity sold" -> "quantity"
            piece = linker.resolve(g.word.split()[0], g.start, False)
        groups.append((piece, g.word, g.bucket))
    unknown_proper = [p for p in pieces if isinstance(p, Unknown) and p.proper]
    if unknown_proper:
        words = ", ".join(repr(p.text) for p in unknown_proper)
        return ComposeResult(None, f"{words} 에 해당하는 테이블, 컬럼 또는 저장된 값을 찾지 못했습니다 "
                             f"(no table, column or stored value matches {words}).", shape="unknown")
    roles = assign_roles(frame, pieces, catalog)
    planner = Planner(frame, roles, catalog, groups, lambda c: _anchor(ctx, c))
    try:
        plan = assemble(planner)
        sql = render(plan, catalog, ctx.dialect)
    except CannotAnswer as exc:
        return ComposeResult(None, str(exc), shape="unknown")
    except LookupError as exc:  # no foreign-key path between the tables the words point at
        return ComposeResult(None, f"테이블을 잇는 외래키 경로가 없습니다 ({exc}).", shape="unknown")
    links = tuple(ValueLink(n, t, c, v) for n, t, c, v in planner.links)
    unknown = [p.text for p in pieces if isinstance(p, Unknown)]
    unused = [p.text for p in pieces if isinstance(p, TableRef | ColumnRef | ValueRef) and roles.free(p)
              and p not in roles.tables and p not in roles.columns]
    confidence = max(0.2, 0.9 - 0.1 * len(unknown) - 0.1 * len(unused))
    shape = next((s for s in _SHAPES if s in planner.features), "lookup")
    columns = _columns_of(sql, ctx.dialect)
    tables = tuple(dict.fromkeys([plan.fact, *plan.tables]))
    reason = _explain(frame.text, tables, links, planner.notes, unknown, shape)
    return ComposeResult(sql, reason, tables, columns, links, shape, round(confidence, 2))


def _anchor(ctx: ComposeContext, c: ColumnWords) -> date | None:
    try:
        rows = ctx.db.fetch(f'SELECT MAX("{c.name}") FROM "{c.table}"', max_rows=1).rows
    except Exception:
        return None
    value: Any = rows[0][0] if rows else None
    if value is None:
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _columns_of(sql: str, dialect: str) -> tuple[str, ...]:
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read="postgres" if dialect.startswith("postgres") else dialect)
    return tuple(dict.fromkeys(f"{c.table}.{c.name}" for c in tree.find_all(exp.Column) if c.table))


def _explain(question: str, tables: tuple[str, ...], links: tuple[ValueLink, ...], notes: list[str],
             unknown: list[str], shape: str) -> str:
    lines = [f"유형(shape): {shape}; 테이블(tables): {', '.join(tables)}"]
    lines += [f"값 연결(value): {link}" for link in links]
    lines += notes
    if unknown:
        lines.append("해석하지 못한 단어(ignored words): " + ", ".join(repr(u) for u in unknown))
    return "\n".join(lines)
