"""Shapes of SQL that are wrong whatever the question said; the composer declines on each.

* two different values required of one column at once (``name = 'A' AND name = 'B'``): always
  empty, the question meant "either" or "both rows";
* a sum or an average of a key (``AVG(course_id)``): a number that only looks like a measure;
* a table the question names that the SQL never reads ("rivers ... in countries with a lake"
  without the lake table): a condition was dropped;
* (English) a word nothing explained right before a schema word ("silver customers"): a modifier,
  most likely a condition, that the SQL would silently drop.
"""

from __future__ import annotations

from sqlglot import exp

from .link import ColumnRef, TableRef, Unknown, ValueRef
from .meaning import Problem
from .plan import Planner

__all__ = ["contradictions"]


def contradictions(p: Planner, tree: exp.Expr) -> list[Problem]:
    out: list[Problem] = []
    for select in tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is not None:
            out += _exclusive_equalities(where.this)
    out += _key_arithmetic(p, tree)
    out += _dropped_tables(p, tree)
    out += _dropped_columns(p, tree)
    out += _unplaced_modifiers(p)
    return out


def _unplaced_modifiers(p: Planner) -> list[Problem]:
    if p.korean:
        return []  # Korean chunks also hold light nouns ("신규 가입 고객"); they only lower the confidence
    pieces = p.roles.pieces
    text = p.frame.text.lower()
    for i, q in enumerate(pieces[1:], start=1):
        before = pieces[i - 1]
        between = text[before.start + len(before.text):q.start].split()
        if isinstance(q, Unknown) and isinstance(before, TableRef | ColumnRef) and between in (["of"], ["of", "the"]):
            return [Problem(f"'{before.text} of {q.text}' 에서 '{q.text}' 를 해석하지 못했습니다.",
                            f"I could not tell what {q.text!r} in '{before.text} of {q.text}' refers to.")]
    for i, q in enumerate(pieces[:-1]):
        head = pieces[i + 1]
        if isinstance(q, Unknown) and head.chunk == q.chunk and isinstance(head, TableRef | ColumnRef):
            return [Problem(f"'{q.text}' 가 '{head.text}' 를 어떻게 제한하는지 해석하지 못했습니다.",
                            f"I could not tell how {q.text!r} restricts {head.text!r}; it may be a value "
                            "I do not know.")]
    return []


def _dropped_tables(p: Planner, tree: exp.Expr) -> list[Problem]:
    read = {t.name for t in tree.find_all(exp.Table)}
    pieces = p.roles.pieces
    for ref in p.roles.tables:
        i = pieces.index(ref)
        beside = [pieces[j] for j in (i - 1, i + 1) if 0 <= j < len(pieces)]
        if any(isinstance(q, ValueRef) for q in beside):
            continue  # "the program Mathematics": the word says what kind of value follows
        if ref.table not in read and p.roles.free(ref):
            return [Problem(f"'{ref.text}' ({ref.table} 테이블)를 질문에서 말했지만 SQL에 반영하지 못했습니다.",
                            f"the question names {ref.text!r} (table {ref.table}), but the SQL I could build "
                            "does not use it.")]
    return []


def _dropped_columns(p: Planner, tree: exp.Expr) -> list[Problem]:
    read = {(c.table, c.name) for c in tree.find_all(exp.Column)} | {("", c.name) for c in tree.find_all(exp.Column)}
    pieces = p.roles.pieces
    for ref in p.roles.columns:
        if not p.roles.free(ref):
            continue
        i = pieces.index(ref)
        beside = [pieces[j] for j in (i - 1, i + 1) if 0 <= j < len(pieces)]
        if any(isinstance(q, ValueRef) for q in beside):
            continue
        if any((t, n) in read or ("", n) in read for t, n, _ in ref.candidates):
            continue
        t, n, _ = ref.candidates[0]
        return [Problem(f"'{ref.text}' ({t}.{n} 컬럼)를 질문에서 말했지만 SQL에 반영하지 못했습니다.",
                        f"the question names {ref.text!r} (column {t}.{n}), but the SQL I could build "
                        "does not use it.")]
    return []


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    return [node]


def _exclusive_equalities(where: exp.Expr) -> list[Problem]:
    seen: dict[str, str] = {}
    for cond in _conjuncts(where):
        if not isinstance(cond, exp.EQ) or not isinstance(cond.this, exp.Column):
            continue
        if not isinstance(cond.expression, exp.Literal):
            continue
        key, value = cond.this.sql(), cond.expression.sql()
        if key in seen and seen[key] != value:
            return [Problem(f"{key} 가 {seen[key]} 이면서 {value} 일 수는 없습니다; "
                            "'또는'인지 '둘 다'인지 알려 주세요.",
                            f"{key} cannot be both {seen[key]} and {value}; say whether you mean either one "
                            "or rows of both.")]
        seen[key] = value
    return []


def _key_arithmetic(p: Planner, tree: exp.Expr) -> list[Problem]:
    for agg in tree.find_all(exp.Sum, exp.Avg):
        column = agg.this
        if not isinstance(column, exp.Column):
            continue
        table = p.catalog.tables.get(column.table)
        info = table.column(column.name) if table is not None else None
        name = column.name.lower()
        keyed = info is not None and table is not None and (info.primary_key or column.name in table.fks)
        if keyed or name == "id" or name.endswith(("_id", "_code", "_no")):
            return [Problem(f"{column.table}.{column.name} 는 식별자라서 합계나 평균이 의미가 없습니다.",
                            f"{column.table}.{column.name} is an identifier; its sum or average means nothing.")]
    return []
