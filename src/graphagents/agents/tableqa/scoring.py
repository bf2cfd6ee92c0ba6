"""Scoring against gold rows: gold SQL (defog layout) run on its database, gold tables written as
text (a held-out question whose answer is a table), answer rows, and the tables a gold reads."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from .datasets import Item

__all__ = ["answer_rows", "gold_alternatives", "gold_rows", "gold_tables", "matches_rows", "plain", "table_matches"]


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


def _gold_comparison() -> Any:
    """The core's SQL gold comparison (``graphagents.sql``), imported when first needed."""
    import graphagents.sql

    return graphagents.sql


@cache
def _run(url: str, sql: str) -> tuple[tuple[Any, ...], ...]:
    import psycopg

    with psycopg.connect(url, connect_timeout=5) as conn:
        conn.read_only = True
        rows = conn.execute(sql).fetchall()  # type: ignore[arg-type]
    return tuple(tuple(plain(v) for v in row) for row in rows)


def gold_alternatives(item: Item) -> dict[str, list[tuple[Any, ...]] | Exception]:
    """The rows of every alternative of the item's gold SQL on its database (an error in place of
    the rows of one that fails): what :func:`matches_rows` compares an answer with."""
    out: dict[str, list[tuple[Any, ...]] | Exception] = {}
    for sql in _gold_comparison().expand_gold_alternatives(item.gold_sql):
        try:
            out[sql] = list(_run(item.db_name, sql))
        except Exception as exc:  # a broken alternative: the comparison skips it
            out[sql] = exc
    return out


def gold_rows(item: Item) -> list[list[Any]] | None:
    """The rows of the first gold alternative that runs, or None."""
    for rows in gold_alternatives(item).values():
        if not isinstance(rows, Exception):
            return [list(r) for r in rows]
    return None


def matches_rows(gold_sql: str, question: str, rows: list[tuple[Any, ...]],
                 golds: Mapping[str, Sequence[tuple[Any, ...]] | Exception]) -> bool:
    """Execution match of ``rows`` against the gold alternatives' rows (as ``eval text2sql``)."""
    def run_gold(sql: str) -> Sequence[tuple[Any, ...]]:
        found = golds.get(sql, KeyError(f"gold alternative not run: {sql[:80]}"))
        if isinstance(found, Exception):
            raise found
        return found

    try:
        return bool(_gold_comparison().matches_gold(gold_sql, rows, run_gold, question=question))
    except Exception:  # every gold alternative failed: the gold is broken, the answer is not right
        return False


def table_matches(gold: Sequence[Sequence[str]], rows: Sequence[Sequence[Any]]) -> bool:
    """A table answer against a gold table written as text: the same rows as a multiset, columns
    in any order (extra answer columns allowed), numbers compared numerically."""
    typed = [tuple(_number(str(v)) for v in row) for row in gold]
    return bool(_gold_comparison().results_match(typed, [tuple(plain(v) for v in r) for r in rows], ordered=False))


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
