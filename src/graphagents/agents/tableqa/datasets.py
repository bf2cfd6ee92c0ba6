"""Evaluation sets for tableqa: WTQ (bundled dev), defog dev (multi-table), and MMQA's layout.

Each loader yields :class:`Item`: a question, a way to load its tables, the gold and how to
score it. Tables load lazily (180 WTQ CSVs are read one question at a time).

- WTQ ``.jsonl`` (``evaldata/wtq_dev/wtq.jsonl``, CC BY-SA 4.0): ``question``, ``table_csv`` relative to
  the file, ``answers``; scored with WTQ's denotation accuracy.
- defog ``.csv`` (``graphagents.packagedata.defog_dev_questions``): ``question, query, db_name,
  query_category``; every table of the database ``db_name`` (from ``--db`` with ``{db_name}``) is a
  DataFrame, and the gold is the result of the gold SQL on that database (scored like ``eval
  text2sql``).
- MMQA ``.json``/``.jsonl``: ``Question``, ``table_names``, ``tables`` (``table_columns``,
  ``table_content``), ``answer``; scored with MACT's EM / PM. Not shipped (no licence grant).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from graphagents.errors import InputError
from graphagents.packagedata import defog_dev_questions, package_path

from .tables import NamedTable, infer_types, load_table_source, table_name

__all__ = ["Item", "load_dataset", "load_defog", "load_mmqa", "load_wtq", "question_type"]

Scoring = Literal["wtq", "mmqa", "defog"]


@dataclass(frozen=True)
class Item:
    id: str
    question: str
    load_tables: Callable[[], list[NamedTable]] = field(repr=False, compare=False)
    answers: tuple[str, ...] = ()
    scoring: Scoring = "wtq"
    qtype: str = ""
    gold_sql: str = ""
    db_name: str = ""
    rows: tuple[tuple[str, ...], ...] | None = None
    """The gold table of a question whose answer is a table (one list per row); None otherwise."""
    lang: str = ""


def question_type(question: str) -> str:
    """A coarse type for per-type figures (WTQ and MMQA carry no labels)."""
    q = question.lower()
    if re.search(r"\bhow many\b|\bnumber of\b|\bcount\b|몇\s*(개|명|번)", q):
        return "count"
    if re.search(r"\b(total|sum|average|mean)\b|합계|평균|총", q):
        return "aggregate"
    if re.search(r"\b(difference|more than|less than|fewer than|compared)\b|\bhow (much|many) (more|less)\b", q):
        return "comparison"
    if re.search(r"\b(most|least|highest|lowest|largest|smallest|biggest|best|worst|top|first|last|longest|"
                 r"shortest|tallest|oldest|youngest|earliest|latest|maximum|minimum)\b|가장|최대|최소", q):
        return "superlative"
    return "lookup"


def wtq_dev_path() -> Path:
    """The bundled WTQ development questions (180, one per table; CC BY-SA 4.0)."""
    return package_path(__package__ or "graphagents.agents.tableqa", "evaldata", "wtq_dev", "wtq.jsonl")


def load_dataset(name_or_path: str, *, db: str | None = None) -> list[Item]:
    """``wtq``, ``defog-dev`` or a file in one of the three layouts (by extension and content)."""
    if name_or_path == "wtq":
        return load_wtq(wtq_dev_path())
    if name_or_path == "defog-dev":
        return load_defog(defog_dev_questions(), db)
    path = Path(name_or_path)
    if not path.is_file():
        raise InputError(f"dataset {name_or_path!r} is neither wtq, defog-dev nor an existing file")
    if path.suffix.lower() == ".csv":
        return load_defog(path, db)
    first = _first_record(path)
    if "table_csv" in first:
        return load_wtq(path)
    if "tables" in first and ("Question" in first or "question" in first):
        return load_mmqa(path)
    raise InputError(f"{path.name!r}: records need table_csv (WTQ layout) or tables + Question (MMQA layout)")


def _records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        records = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise InputError(f"{path.name!r} is neither JSON nor JSON lines: {exc}") from None
    if not all(isinstance(r, dict) for r in records):
        raise InputError(f"{path.name!r}: every record must be a JSON object")
    return records


def _first_record(path: Path) -> dict[str, Any]:
    records = _records(path)
    if not records:
        raise InputError(f"{path.name!r} holds no records")
    return records[0]


def load_wtq(path: str | Path) -> list[Item]:
    """WTQ's layout; ``table_csv`` may be a list when a question needs several tables, ``rows``
    gives a table answer, ``kind`` and ``lang`` label the question (a held-out set of one's own)."""
    path = Path(path)
    items = []
    for n, record in enumerate(_records(path)):
        try:
            csvs = [record["table_csv"]] if isinstance(record["table_csv"], str) else list(record["table_csv"])
            question = str(record["question"])
            answers = tuple(str(a) for a in record["answers"])
            rows = tuple(tuple(str(v) for v in row) for row in record["rows"]) if record.get("rows") else None
        except (KeyError, TypeError) as exc:
            raise InputError(f"{path.name!r} record {n + 1}: missing {exc}") from None
        title = str(record.get("table_title") or "") if len(csvs) == 1 else ""
        items.append(
            Item(
                id=str(record.get("id", n + 1)),
                question=question,
                load_tables=_csv_loader([str(path.parent / c) for c in csvs], title),
                answers=answers,
                scoring="wtq",
                qtype=str(record.get("kind") or question_type(question)),
                rows=rows,
                lang=str(record.get("lang") or ""),
            )
        )
    return items


def _csv_loader(csv_paths: Sequence[str], title: str) -> Callable[[], list[NamedTable]]:
    def load() -> list[NamedTable]:
        tables = [t for csv_path in csv_paths for t in load_table_source(csv_path)]
        return [NamedTable(table_name(title) if title else t.name, t.frame, t.source) for t in tables]

    return load


def load_mmqa(path: str | Path) -> list[Item]:
    path = Path(path)
    items = []
    for n, record in enumerate(_records(path)):
        question = str(record.get("Question") or record.get("question") or "")
        raw_tables = record.get("tables")
        if not question or not isinstance(raw_tables, list) or not raw_tables:
            raise InputError(f"{path.name!r} record {n + 1}: needs Question and a non-empty tables list")
        names = list(record.get("table_names") or [])
        answer = record.get("answer", "")
        answers = tuple(str(a) for a in answer) if isinstance(answer, list) else (str(answer),)
        items.append(
            Item(
                id=str(record.get("id_", record.get("id", n + 1))),
                question=question,
                load_tables=_inline_loader(raw_tables, names, f"{path.name}#{n + 1}"),
                answers=answers,
                scoring="mmqa",
                qtype=question_type(question),
                gold_sql=str(record.get("SQL", "")),
            )
        )
    return items


def _inline_loader(raw: Sequence[Any], names: Sequence[str], where: str) -> Callable[[], list[NamedTable]]:
    def load() -> list[NamedTable]:
        tables = []
        for i, table in enumerate(raw):
            try:
                columns = [str(c) for c in table["table_columns"]]
                rows = [["" if v is None else str(v) for v in row] for row in table["table_content"]]
            except (KeyError, TypeError) as exc:
                raise InputError(f"{where}: table {i + 1} needs table_columns and table_content ({exc})") from None
            name = names[i] if i < len(names) else table.get("table_name", f"table_{i + 1}")
            frame = infer_types(pd.DataFrame(rows, columns=columns, dtype=object))
            tables.append(NamedTable(table_name(str(name)), frame, f"{where}:{name}"))
        return tables

    return load


def load_defog(path: str | Path, db: str | None) -> list[Item]:
    """defog questions; ``db`` is a URL template with ``{db_name}`` (Postgres holding defog-data)."""
    from graphagents.sql import load_questions

    if not db:
        raise InputError("defog questions need --db with a {db_name} template, e.g. postgresql://postgres@127.0.0.1/{db_name}")
    items = []
    for n, q in enumerate(load_questions(path)):
        url = db.replace("{db_name}", q.db_name)
        items.append(
            Item(
                id=f"defog-{n + 1}",
                question=" ".join((q.question + (f" ({q.instructions})" if q.instructions else "")).split()),
                load_tables=_database_loader(url),
                scoring="defog",
                qtype=q.query_category,
                gold_sql=q.query,
                db_name=url,
            )
        )
    return items


def _database_loader(url: str) -> Callable[[], list[NamedTable]]:
    return lambda: list(_database_tables(url))


@cache
def _database_tables(url: str) -> tuple[NamedTable, ...]:
    """Every table of the database's public schema, read once per process."""
    try:
        import psycopg
    except ImportError as exc:
        raise InputError("defog tables need psycopg: pip install 'graphagents[postgres]'") from exc
    with psycopg.connect(url, connect_timeout=5) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )]
    fragment = ",".join(names)
    return tuple(load_table_source(f"{url}#{fragment}"))
