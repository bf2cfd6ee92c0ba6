"""Query plan -> SQL through a sqlglot tree, so one plan renders correctly for SQLite and PostgreSQL.

Columns are always qualified by their table name and joins come only from the schema graph's
foreign-key paths: a composed query never joins on a guessed condition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from sqlglot import exp

from .catalog import Catalog, ColumnWords
from .lexicon import TimeBucket

__all__ = ["QueryPlan", "bucket_expr", "col", "compare", "compare_expr", "date_range", "literal", "render"]

Op = Literal[">=", "<=", ">", "<", "=", "<>"]
_OPS: dict[str, type[exp.Binary]] = {
    ">=": exp.GTE, "<=": exp.LTE, ">": exp.GT, "<": exp.LT, "=": exp.EQ, "<>": exp.NEQ,
}  # fmt: skip
_BUCKET_LEN = {"year": 4, "month": 7, "day": 10}


@dataclass
class QueryPlan:
    fact: str
    tables: list[str] = field(default_factory=list)  # every other table the query touches
    select: list[tuple[exp.Expr, str | None]] = field(default_factory=list)
    where: list[exp.Expr] = field(default_factory=list)
    group: list[exp.Expr] = field(default_factory=list)
    having: list[exp.Expr] = field(default_factory=list)
    order: list[tuple[exp.Expr, bool]] = field(default_factory=list)  # (expression, descending)
    limit: int | None = None
    distinct: bool = False
    # explicit (table, column, to_table, to_column) joins, used instead of the graph's shortest path
    fk_joins: list[tuple[str, str, str, str]] = field(default_factory=list)
    avoid: list[str] = field(default_factory=list)  # bridge tables the join path must not go through

    def need(self, table: str) -> None:
        if table != self.fact and table not in self.tables:
            self.tables.append(table)

    def add_select(self, expression: exp.Expr, alias: str | None = None) -> None:
        if all(expression != e for e, _ in self.select):
            self.select.append((expression, alias))


def col(table: str, column: str) -> exp.Column:
    return exp.column(column, table)


def literal(value: object) -> exp.Expr:
    if isinstance(value, bool):
        return exp.Literal.number(int(value))
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def compare(table: str, column: str, op: str, value: object) -> exp.Expr:
    return _OPS[op](this=col(table, column), expression=literal(value))


def compare_expr(expression: exp.Expr, op: str, value: object) -> exp.Expr:
    return _OPS[op](this=expression.copy(), expression=literal(value))


def date_range(c: ColumnWords, start: date | None, end: date | None) -> list[exp.Expr]:
    """Half-open ISO bounds: correct for DATE columns and for ISO text dates alike."""
    out: list[exp.Expr] = []
    if start is not None:
        out.append(compare(c.table, c.name, ">=", start.isoformat()))
    if end is not None:
        out.append(compare(c.table, c.name, "<", end.isoformat()))
    return out


def bucket_expr(c: ColumnWords, bucket: TimeBucket) -> exp.Expr:
    """Year/month/day as ISO text prefixes; quarter as 'YYYY-Qn'. Cast first so DATE columns work too."""
    text = exp.Cast(this=col(c.table, c.name), to=exp.DataType.build("TEXT"))
    if bucket == "quarter":
        month = exp.Cast(this=_substr(text, 6, 2), to=exp.DataType.build("INT"))
        quarter = exp.Div(this=exp.Paren(this=exp.Add(this=month, expression=exp.Literal.number(2))),
                          expression=exp.Literal.number(3), typed=True)
        return exp.DPipe(this=exp.DPipe(this=_substr(text, 1, 4), expression=exp.Literal.string("-Q")),
                         expression=exp.Cast(this=quarter, to=exp.DataType.build("TEXT")), safe=True)
    return _substr(text, 1, _BUCKET_LEN[bucket])


def _substr(text: exp.Expr, start: int, length: int) -> exp.Expr:
    return exp.Substring(this=text.copy(), start=exp.Literal.number(start), length=exp.Literal.number(length))


def render(plan: QueryPlan, catalog: Catalog, dialect: str) -> str:
    select = exp.select(*[exp.alias_(e, a) if a else e for e, a in plan.select]).from_(plan.fact)
    if plan.distinct:
        select = select.distinct()
    joined = {plan.fact}
    for frm, frm_col, to, to_col in plan.fk_joins:
        select = select.join(to, on=exp.EQ(this=col(frm, frm_col), expression=col(to, to_col)))
        joined.add(to)
    if plan.tables and not plan.fk_joins:
        for edge in catalog.graph.join_path([plan.fact, *plan.tables], avoid=plan.avoid):
            new = edge.to_table if edge.from_table in joined else edge.from_table
            if new in joined:
                continue
            on = exp.EQ(this=col(edge.from_table, edge.from_column), expression=col(edge.to_table, edge.to_column))
            select = select.join(new, on=on)
            joined.add(new)
    if plan.where:
        select = select.where(exp.and_(*plan.where))
    if plan.group:
        select = select.group_by(*plan.group)
    if plan.having:
        select = select.having(exp.and_(*plan.having))
    for expression, desc in plan.order:
        select = select.order_by(exp.Ordered(this=expression, desc=desc, nulls_first=False))
    if plan.limit is not None:
        select = select.limit(plan.limit)
    return select.sql(dialect="postgres" if dialect.startswith("postgres") else dialect)
