"""Scoring against gold SQL (defog layout): gold rows, answer rows, and the tables a gold reads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from .datasets import Item

__all__ = ["answer_rows", "gold_rows", "gold_tables", "matches_rows", "plain"]


def plain(value: Any) -> Any:
    """A driver, numpy or pandas value as the plain Python value text2sql's comparison expects."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, timedelta):  # pd.Timedelta too
        return value.total_seconds()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime) and value.time() == datetime.min.time():
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _number(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return text


def answer_rows(answer: Sequence[str], answer_table: str | None) -> list[tuple[Any, ...]]:
    """The answer as rows: the answer table's rows, or one value per row."""
    if answer_table:
        from graphagents.sandbox import get_store

        frame = get_store().get(answer_table)
        return [tuple(plain(v) for v in row) for row in frame.astype(object).itertuples(index=False)]
    return [(_number(v),) for v in answer]


@cache
def _run(url: str, sql: str) -> tuple[tuple[Any, ...], ...]:
    import psycopg

    with psycopg.connect(url, connect_timeout=5) as conn:
        conn.read_only = True
        rows = conn.execute(sql).fetchall()  # type: ignore[arg-type]
    return tuple(tuple(plain(v) for v in row) for row in rows)


def gold_rows(item: Item) -> list[list[Any]] | None:
    """The rows of the first gold alternative that runs, or None."""
    from graphagents.sql import expand_gold_alternatives

    for sql in expand_gold_alternatives(item.gold_sql):
        try:
            return [list(r) for r in _run(item.db_name, sql)]
        except Exception:  # noqa: S112  a broken alternative: try the next one
            continue
    return None


def matches_rows(item: Item, rows: list[tuple[Any, ...]]) -> bool:
    from graphagents.sql import matches_gold

    try:
        return matches_gold(item.gold_sql, rows, lambda sql: list(_run(item.db_name, sql)), question=item.question)
    except Exception:  # every gold alternative failed: the gold is broken, the answer is not right
        return False


def gold_tables(item: Item) -> set[str]:
    """Lower-cased names of the tables the gold SQL reads (empty when there is no gold SQL)."""
    if not item.gold_sql:
        return set()
    import sqlglot
    from sqlglot import exp

    names: set[str] = set()
    for statement in item.gold_sql.replace("{", "").replace("}", "").split(";"):
        if not statement.strip():
            continue
        try:
            tree = sqlglot.parse_one(statement, read="postgres")
        except sqlglot.errors.ParseError:
            continue
        names.update(t.name.lower() for t in tree.find_all(exp.Table))
    return names
