"""Tables in: CSV, TSV, JSON/JSONL, Excel, a SQLite file, or a database URL and table names.

Every source becomes one or more :class:`NamedTable` (a name the coder sees as ``df_orig_i``'s
label, and a DataFrame). Cells are read as text and then typed per column: a column whose
non-empty cells are all numbers (thousands separators allowed) becomes numeric, so that
``df['budget'] > 100`` works; anything else stays text, exactly as written.

Sources are strings so that the CLI, the HTTP API and session options share one syntax::

    department.csv                 scores.tsv            items.json / items.jsonl
    book.xlsx (every sheet)        book.xlsx#Sheet1      shop.sqlite (every table)
    shop.sqlite#orders,customers   postgresql://host/db#orders   sqlite:///shop.db#orders
    dept=department.csv (a name)   tbl_<32 hex> (a table in the artifact store)
    example:department             (a bundled example table: department, management, head)
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from graphagents.errors import InputError, MissingExtraError, ServiceUnavailableError, redact_url

__all__ = ["EXAMPLE_TABLES", "MAX_ROWS", "STORED_SOURCE", "NamedTable", "example_path", "infer_types", "load_sources",
           "load_table_source", "table_name"]

MAX_ROWS = 1_000_000
_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?\.\d+$")
_SQL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$")
_DB_SUFFIXES = (".sqlite", ".sqlite3", ".db")


EXAMPLE_PREFIX = "example:"
EXAMPLE_TABLES = ("department", "management", "head")
"""The bundled example tables (``data/examples/``, after Spider's department_management)."""


def example_path(name: str) -> Path:
    """The bundled example table ``name`` (``example:<name>`` as a source)."""
    from graphagents.packagedata import package_path

    if name not in EXAMPLE_TABLES:
        raise InputError(f"no example table {name!r}; the examples are {', '.join(EXAMPLE_TABLES)}")
    return package_path(__package__ or "graphagents.agents.tableqa", "data", "examples", f"{name}.csv")


@dataclass(frozen=True)
class NamedTable:
    name: str
    frame: pd.DataFrame
    source: str


def table_name(text: str) -> str:
    """A short identifier-like label from a file stem or table name ("Sales 2020.csv" -> sales_2020)."""
    name = re.sub(r"\W+", "_", Path(text).stem if "/" in text or "." in text else text).strip("_").lower()
    return name or "table"


def infer_types(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells to numbers per column when every non-empty cell is a number; else unchanged."""
    out = {}
    for col in frame.columns:
        series = frame[col]
        if series.dtype != object and not pd.api.types.is_string_dtype(series):
            out[col] = series
            continue
        text = series.astype("string").str.strip()
        filled = text[text.notna() & (text != "")]
        if len(filled) and filled.str.match(_NUMBER).all():
            numbers = pd.to_numeric(text.str.replace(",", "", regex=False).mask(text == ""), errors="coerce")
            if (numbers.dropna() % 1 == 0).all() and numbers.notna().all():
                out[col] = numbers.astype("int64")
            else:
                out[col] = numbers.astype("float64")
        else:
            out[col] = series
    typed = pd.DataFrame(out, index=frame.index)
    typed.columns = frame.columns
    return typed


def load_sources(sources: Iterable[str]) -> list[NamedTable]:
    """All tables of all sources, names made unique in order ("t", "t_2", ...)."""
    tables: list[NamedTable] = []
    seen: dict[str, int] = {}
    for source in sources:
        for table in load_table_source(source):
            n = seen.get(table.name, 0) + 1
            seen[table.name] = n
            name = table.name if n == 1 else f"{table.name}_{n}"
            tables.append(NamedTable(name, table.frame, table.source))
    if not tables:
        raise InputError("no tables given: pass at least one CSV/TSV/JSON/Excel/SQLite file or a database URL")
    return tables


_NAMED = re.compile(r"^(\w+)=(.+)$")
STORED_SOURCE = re.compile(r"^(?:\w+=)?tbl_[0-9a-f]{32}$")
"""A source that names a table already in the artifact store (the only kind a session may pass)."""
_TABLE_ID = re.compile(r"^tbl_[0-9a-f]{32}$")


def load_table_source(source: str) -> list[NamedTable]:
    """The table(s) named by one source string (see the module docstring); ``name=source`` names
    a single table, and ``tbl_<hex>`` is a table already in the artifact store."""
    source = source.strip()
    named = _NAMED.match(source)
    if named and "://" not in named.group(1):
        tables = load_table_source(named.group(2))
        if len(tables) != 1:
            raise InputError(f"{source!r}: a name= prefix needs a source with exactly one table")
        return [NamedTable(table_name(named.group(1)), tables[0].frame, tables[0].source)]
    if _TABLE_ID.match(source):
        from graphagents.sandbox import get_store

        return [NamedTable("table", get_store().get(source), source)]
    if source.startswith(EXAMPLE_PREFIX):
        return load_table_source(str(example_path(source.removeprefix(EXAMPLE_PREFIX).strip())))
    base, _, fragment = source.partition("#")
    names = [n.strip() for n in fragment.split(",") if n.strip()]
    if "://" in base:
        return _from_database(base, names, source)
    path = Path(base).expanduser()
    if not path.is_file():
        raise InputError(f"table file {base!r} does not exist")
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv", ".tab", ".txt"):
            sep = "," if suffix == ".csv" else "\t"
            frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, nrows=MAX_ROWS + 1)
            return [_checked(table_name(path.name), infer_types(frame), source)]
        if suffix in (".json", ".jsonl", ".ndjson"):
            frame = pd.read_json(path, lines=suffix != ".json", dtype=False)
            return [_checked(table_name(path.name), infer_types(frame.astype(object)), source)]
        if suffix in (".xlsx", ".xlsm", ".xls"):
            return _from_excel(path, names, source)
        if suffix in _DB_SUFFIXES:
            return _from_sqlite(path, names, source)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, sqlite3.Error) as exc:
        raise InputError(f"cannot read {base!r} as a table: {str(exc).splitlines()[0][:200]}") from None
    raise InputError(f"unsupported table file {path.name!r}: use .csv, .tsv, .json, .jsonl, .xlsx or .sqlite")


def _checked(name: str, frame: pd.DataFrame, source: str) -> NamedTable:
    if frame.shape[1] == 0:
        raise InputError(f"table {source!r} has no columns")
    if len(frame) > MAX_ROWS:
        raise InputError(f"table {source!r} has more than {MAX_ROWS:,} rows; filter it before asking")
    frame.columns = [str(c).strip() or f"column_{i + 1}" for i, c in enumerate(frame.columns)]
    return NamedTable(name, frame.reset_index(drop=True), source)


def _from_excel(path: Path, names: Sequence[str], source: str) -> list[NamedTable]:
    try:
        import openpyxl  # noqa: F401  (pandas' reader for .xlsx)
    except ImportError as exc:
        raise MissingExtraError("Excel tables need openpyxl: pip install openpyxl") from exc
    sheets = pd.read_excel(path, sheet_name=list(names) or None, dtype=str, keep_default_na=False)
    out = []
    for sheet, frame in sheets.items():
        label = table_name(path.name) if len(sheets) == 1 else table_name(str(sheet))
        out.append(_checked(label, infer_types(frame), f"{path}#{sheet}"))
    return out


def _from_sqlite(path: Path, names: Sequence[str], source: str) -> list[NamedTable]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        available = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        wanted = _pick(names, available, source)
        return [_checked(table_name(n), _sql_frame(conn, n), f"{path}#{n}") for n in wanted]
    finally:
        conn.close()


def _pick(names: Sequence[str], available: Sequence[str], source: str) -> list[str]:
    if not names:
        if not available:
            raise InputError(f"{source!r} holds no tables")
        return list(available)
    lower = {a.lower(): a for a in available}
    missing = [n for n in names if n.lower() not in lower]
    if missing:
        raise InputError(f"{source!r} has no table {missing[0]!r}; it has: {', '.join(available[:20])}")
    return [lower[n.lower()] for n in names]


def _sql_frame(conn: Any, name: str, quote: str = '"') -> pd.DataFrame:
    if not _SQL_NAME.match(name):
        raise InputError(f"table name {name!r} is not a plain SQL identifier")
    ident = ".".join(f"{quote}{part}{quote}" for part in name.split("."))
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM {ident} LIMIT {MAX_ROWS + 1}")
    columns = [d[0] for d in cur.description]
    rows = cur.fetchall()
    frame = pd.DataFrame.from_records(rows, columns=columns)
    if len(frame) > MAX_ROWS:
        raise InputError(f"table {name!r} has more than {MAX_ROWS:,} rows; give a smaller table or a view")
    return frame


def _from_database(url: str, names: Sequence[str], source: str) -> list[NamedTable]:
    if url.startswith("sqlite:///"):
        return _from_sqlite(Path(url[len("sqlite:///") :]), names, source)
    if not url.startswith(("postgresql://", "postgres://")):
        raise InputError(f"unsupported database URL {redact_url(url)!r}: use sqlite:///file.db or postgresql://...")
    if not names:
        raise InputError("name the tables after the URL: postgresql://host/db#table1,table2")
    try:
        import psycopg
    except ImportError as exc:
        raise MissingExtraError("PostgreSQL tables need psycopg: pip install 'graphagents[postgres]'") from exc
    try:
        conn = psycopg.connect(url, connect_timeout=5)
    except psycopg.Error as exc:
        raise ServiceUnavailableError(f"cannot reach {redact_url(url)}: {str(exc).splitlines()[0]}") from exc
    try:
        conn.read_only = True
        out = []
        for name in names:
            try:
                frame = _sql_frame(conn, name)
            except psycopg.Error as exc:
                raise InputError(f"cannot read table {name!r}: {str(exc).splitlines()[0]}") from exc
            out.append(_checked(table_name(name.split(".")[-1]), frame, f"{redact_url(url)}#{name}"))
        return out
    finally:
        conn.close()
