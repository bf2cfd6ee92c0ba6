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

import csv
import io
import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from graphagents.errors import InputError, MissingExtraError, ServiceUnavailableError, redact_url

__all__ = ["EXAMPLE_TABLES", "MAX_ROWS", "STORED_SOURCE", "NamedTable", "ReadLimits", "TableTooLarge", "TooManyTables",
           "decode_text", "example_path", "infer_types", "load_sources", "load_table_source", "table_name"]

MAX_ROWS = 1_000_000


class TableTooLarge(InputError):
    """A table over one of the :class:`ReadLimits` (HTTP 413): found while reading, before the rest is read."""


@dataclass(frozen=True)
class ReadLimits:
    """What one source may hold, checked while it is read (never after the whole thing is in memory).

    ``text_bytes`` bounds the expanded size: decoded CSV/JSON text, an XLSX's uncompressed parts,
    and the bytes of the cells read from SQLite. ``seconds`` bounds one SQLite query (a view can
    cross-join without end). ``tables`` is how many tables one source may give when none is named.
    """

    rows: int = MAX_ROWS
    columns: int = 1_000
    cells: int = 5_000_000
    cell_bytes: int = 1_000_000
    text_bytes: int = 256 << 20
    tables: int = 50
    seconds: float = 60.0

    def check_columns(self, n: int, source: str) -> None:
        if n > self.columns:
            raise TableTooLarge(f"{source!r} has {n:,} columns; the limit is {self.columns:,}")

    def check_size(self, rows: int, columns: int, text: int, source: str) -> None:
        if rows > self.rows:
            raise TableTooLarge(f"{source!r} has more than {self.rows:,} rows; filter it before asking")
        if rows * columns > self.cells:
            raise TableTooLarge(f"{source!r} has more than {self.cells:,} cells ({columns:,} columns); "
                                "give fewer rows or columns")
        if text > self.text_bytes:
            raise TableTooLarge(f"{source!r} expands to more than {self.text_bytes >> 20} MB of cell text")


class TooManyTables(InputError):
    """A source with more tables than the caller takes at once, and no table named: choose some."""

    def __init__(self, message: str, names: Sequence[str]) -> None:
        super().__init__(message)
        self.names = list(names)


DEFAULT_LIMITS = ReadLimits()
_CHUNK_ROWS = 20_000
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
    """Text cells to numbers per column when every non-empty cell is a number; else unchanged.

    The cells of every text column are checked in one vectorised pass (Arrow's trim and regex over
    all of them at once): pandas' string methods cost about a millisecond per call and column, which
    made a table of 1,000 columns take tens of seconds."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = len(frame)
    text = [i for i in range(frame.shape[1]) if frame.iloc[:, i].dtype == object
            or pd.api.types.is_string_dtype(frame.iloc[:, i])]
    if not rows or not text:
        return frame.copy()
    cells = pa.concat_arrays([_arrow_text(frame.iloc[:, i]) for i in text])
    trimmed = pc.utf8_trim_whitespace(cells)
    blank = pc.fill_null(pc.equal(trimmed, ""), True).to_numpy(zero_copy_only=False).reshape(len(text), rows)
    number = pc.fill_null(pc.match_substring_regex(trimmed, _NUMBER.pattern), False)
    number_np = number.to_numpy(zero_copy_only=False).reshape(len(text), rows)
    numeric = (number_np | blank).all(axis=1) & number_np.any(axis=1)
    out: dict[int, Any] = {i: frame.iloc[:, i] for i in range(frame.shape[1])}
    if numeric.any():
        plain = pc.replace_substring(pc.if_else(number, trimmed, pa.scalar(None, pa.large_string())), ",", "")
        for k in numeric.nonzero()[0]:
            values = pc.cast(plain.slice(int(k) * rows, rows), pa.float64()).to_numpy(zero_copy_only=False)
            series = pd.Series(values, index=frame.index, dtype="float64")
            whole = series.notna().all() and (series % 1 == 0).all()
            out[text[int(k)]] = series.astype("int64") if whole else series
    typed = pd.DataFrame(out, index=frame.index)
    typed.columns = frame.columns
    return typed


def _arrow_text(series: pd.Series) -> Any:
    """A column's cells as one Arrow large_string array (missing cells null, other values as text)."""
    import pyarrow as pa

    if pd.api.types.is_string_dtype(series) and series.dtype != object:
        array = pa.array(series)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        return array.cast(pa.large_string())
    cells = [None if cell is None or cell is pd.NA or (isinstance(cell, float) and cell != cell) else str(cell)
             for cell in series.tolist()]
    return pa.array(cells, type=pa.large_string())


def load_sources(sources: Iterable[str], limits: ReadLimits = DEFAULT_LIMITS) -> list[NamedTable]:
    """All tables of all sources, names made unique in order ("t", "t_2", ...)."""
    tables: list[NamedTable] = []
    seen: dict[str, int] = {}
    for source in sources:
        for table in load_table_source(source, limits):
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


def load_table_source(source: str, limits: ReadLimits = DEFAULT_LIMITS) -> list[NamedTable]:
    """The table(s) named by one source string (see the module docstring); ``name=source`` names
    a single table, and ``tbl_<hex>`` is a table already in the artifact store. Every file is read
    under ``limits`` (:class:`TableTooLarge` as soon as one is passed)."""
    source = source.strip()
    named = _NAMED.match(source)
    if named and "://" not in named.group(1):
        tables = load_table_source(named.group(2), limits)
        if len(tables) != 1:
            raise InputError(f"{source!r}: a name= prefix needs a source with exactly one table")
        return [NamedTable(table_name(named.group(1)), tables[0].frame, tables[0].source)]
    if _TABLE_ID.match(source):
        from graphagents.sandbox import get_store

        return [NamedTable("table", get_store().get(source), source)]
    if source.startswith(EXAMPLE_PREFIX):
        return load_table_source(str(example_path(source.removeprefix(EXAMPLE_PREFIX).strip())), limits)
    base, _, fragment = source.partition("#")
    names = [n.strip() for n in fragment.split(",") if n.strip()]
    if "://" in base:
        return _from_database(base, names, source, limits)
    path = Path(base).expanduser()
    if not path.is_file():
        raise InputError(f"table file {base!r} does not exist")
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv", ".tab", ".txt"):
            return [_checked(table_name(path.name), _read_delimited(path, suffix, limits, base), source)]
        if suffix in (".json", ".jsonl", ".ndjson"):
            return [_checked(table_name(path.name), _read_json(path, suffix, limits, base), source)]
        if suffix in (".xlsx", ".xlsm", ".xls"):
            return _from_excel(path, names, source, limits)
        if suffix in _DB_SUFFIXES:
            return _from_sqlite(path, names, source, limits)
    except InputError:
        raise
    except MemoryError:
        raise TableTooLarge(f"{base!r} needs more memory than a table may take; give a smaller table") from None
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, sqlite3.Error, zipfile.BadZipFile, KeyError,
            OSError, csv.Error) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(f"cannot read {base!r} as a table: {first}") from None
    raise InputError(f"unsupported table file {path.name!r}: use .csv, .tsv, .json, .jsonl, .xlsx or .sqlite")


# -- text: encodings --------------------------------------------------------------------------------

_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def decode_text(data: bytes, source: str) -> str:
    """Text of a file whatever its encoding: a BOM says it (UTF-8, UTF-16, UTF-32), else UTF-8, else
    what charset-normalizer finds (Korean Excel writes cp949/EUC-KR CSVs), else cp949."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise InputError(f"cannot read {source!r}: it starts as {encoding} but is not ({exc.reason})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:  # Korean Excel's "CSV": cp949 (a superset of EUC-KR) that reads as Hangul is taken as it is
        text = data.decode("cp949")
        if _HANGUL.search(text):
            return text
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data[: 1 << 20]).best()  # a sample: detection is the slow part
    tried = [best.encoding] if best is not None else []
    for encoding in [*tried, "cp949", "utf-16"]:
        try:
            return data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    raise InputError(f"cannot read {source!r}: its text encoding is not UTF-8, UTF-16 or cp949/EUC-KR; "
                     "save it as CSV UTF-8")


def _text(path: Path, limits: ReadLimits, source: str) -> str:
    data = path.read_bytes()
    text = decode_text(data, source)
    if len(text) > limits.text_bytes:
        raise TableTooLarge(f"{source!r} expands to more than {limits.text_bytes >> 20} MB of text")
    return text


# -- CSV / TSV ------------------------------------------------------------------------------------

def _read_delimited(path: Path, suffix: str, limits: ReadLimits, source: str) -> pd.DataFrame:
    """Columns counted from the header before anything else is parsed, then rows in chunks, each
    chunk checked against the limits before the next one is read."""
    text = _text(path, limits, source)
    sep = "," if suffix == ".csv" else "\t"
    first_line = text.split("\n", 1)[0]
    if sep == "," and "\t" in first_line and "," not in first_line:  # Excel's "Unicode text" is tab-separated
        sep = "\t"
    header = next(csv.reader(io.StringIO(first_line), delimiter=sep), [])
    limits.check_columns(len(header), source)
    if not header:
        raise InputError(f"table {source!r} has no columns")
    chunk_rows = max(1, min(_CHUNK_ROWS, limits.cells // max(1, len(header))))
    chunks: list[pd.DataFrame] = []
    rows = 0
    with pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, chunksize=chunk_rows) as reader:
        for chunk in reader:  # the cells' text is at most the file's, checked by _text already
            rows += len(chunk)
            limits.check_size(rows, chunk.shape[1], 0, source)
            chunks.append(chunk)
    if not chunks:
        return pd.DataFrame(columns=header)
    frame = chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)
    return infer_types(frame)


# -- JSON / JSONL ---------------------------------------------------------------------------------

def _read_json(path: Path, suffix: str, limits: ReadLimits, source: str) -> pd.DataFrame:
    text = _text(path, limits, source)
    lines = suffix != ".json"
    if lines:
        records: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        records = json.loads(text)
    _check_json_shape(records, limits, source)  # before pandas builds a frame (one column per distinct key)
    frame = pd.read_json(io.StringIO(text), lines=lines, dtype=False)
    limits.check_columns(frame.shape[1], source)
    limits.check_size(len(frame), frame.shape[1], len(text), source)
    return infer_types(frame.astype(object))


def _check_json_shape(data: Any, limits: ReadLimits, source: str) -> None:
    """Rows and distinct keys of records (a list, or pandas' ``{column: {index: value}}``)."""
    if isinstance(data, list):
        keys: set[str] = set()
        for record in data:
            if isinstance(record, dict):
                keys.update(record)
                if len(keys) > limits.columns:
                    limits.check_columns(len(keys), source)
        limits.check_size(len(data), max(1, len(keys)), 0, source)
    elif isinstance(data, dict):
        limits.check_columns(len(data), source)
        rows = max((len(v) for v in data.values() if isinstance(v, dict | list)), default=1)
        limits.check_size(rows, max(1, len(data)), 0, source)


def _checked(name: str, frame: pd.DataFrame, source: str) -> NamedTable:
    if frame.shape[1] == 0:
        raise InputError(f"table {source!r} has no columns")
    if len(frame) > MAX_ROWS:
        raise TableTooLarge(f"table {source!r} has more than {MAX_ROWS:,} rows; filter it before asking")
    frame.columns = [str(c).strip() or f"column_{i + 1}" for i, c in enumerate(frame.columns)]
    return NamedTable(name, frame.reset_index(drop=True), source)


# -- Excel ----------------------------------------------------------------------------------------

def _from_excel(path: Path, names: Sequence[str], source: str, limits: ReadLimits) -> list[NamedTable]:
    """Streamed with openpyxl's read-only mode: the zip's expanded size and each sheet's declared
    size are checked before a row is read, and rows and cells are counted while they stream."""
    try:
        import openpyxl
    except ImportError as exc:
        raise MissingExtraError("Excel tables need openpyxl: pip install openpyxl") from exc
    if path.suffix.lower() == ".xls":
        raise InputError(f"{path.name!r} is an old .xls workbook: save it as .xlsx or CSV")
    with zipfile.ZipFile(path) as archive:
        expanded = sum(info.file_size for info in archive.infolist())
        if expanded > limits.text_bytes:
            raise TableTooLarge(f"{path.name!r} expands to {expanded >> 20} MB; the limit is "
                                f"{limits.text_bytes >> 20} MB")
        for part in archive.namelist():  # openpyxl scans a sheet without <dimension> whole when it opens the book
            if part.startswith("xl/worksheets/") and part.endswith(".xml"):
                with archive.open(part) as stream:
                    declared = _DIMENSION.search(stream.read(1 << 14))
                    if declared is not None:  # what the sheet says of itself, before its rows are inflated
                        columns = _column_number(declared.group(1).decode())
                        limits.check_columns(columns, f"{path.name}#{part.rsplit('/', 1)[-1]}")
                        limits.check_size(int(declared.group(2)) - 1, columns, 0, path.name)
                with archive.open(part) as stream:
                    rows_found, cells_found = _count_tags(stream)
                if rows_found > limits.rows + 1 or cells_found > limits.cells:
                    raise TableTooLarge(f"{path.name!r} has a sheet of {rows_found:,} rows and {cells_found:,} "
                                        f"cells; the limits are {limits.rows:,} rows and {limits.cells:,} cells")
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        available = list(book.sheetnames)
        wanted = _pick(names, available, source, limits)
        out = []
        for sheet in wanted:
            frame = _sheet_frame(book[sheet], limits, f"{path.name}#{sheet}")
            label = table_name(path.name) if len(wanted) == 1 else table_name(str(sheet))
            out.append(_checked(label, infer_types(frame), f"{path}#{sheet}"))
        return out
    finally:
        book.close()


_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\s+ref="[A-Z]{1,3}\d+:([A-Z]{1,3})(\d{1,9})"')


def _column_number(letters: str) -> int:
    n = 0
    for letter in letters:
        n = n * 26 + ord(letter) - 64
    return n


def _count_tags(stream: Any) -> tuple[int, int]:
    """Rows and cells of a worksheet part, counted on the inflated XML without parsing it (a tenth
    of what openpyxl takes, so a sheet of millions of cells is refused before it is parsed)."""
    rows = cells = 0
    tail = b""
    while chunk := stream.read(1 << 20):
        data = tail + chunk
        rows += data.count(b"<row ") + data.count(b"<row>")
        cells += data.count(b"<c ") + data.count(b"<c>")
        tail = data[-4:]
        rows -= tail.count(b"<row ") + tail.count(b"<row>")  # counted again with the next chunk
        cells -= tail.count(b"<c ") + tail.count(b"<c>")
    return rows + tail.count(b"<row ") + tail.count(b"<row>"), cells + tail.count(b"<c ") + tail.count(b"<c>")


def _sheet_frame(sheet: Any, limits: ReadLimits, source: str) -> pd.DataFrame:
    declared_rows, declared_columns = sheet.max_row, sheet.max_column  # the sheet's <dimension>, when it has one
    if declared_columns:
        limits.check_columns(int(declared_columns), source)
    if declared_rows and declared_columns:
        limits.check_size(int(declared_rows) - 1, int(declared_columns), 0, source)
    rows: list[tuple[Any, ...]] = []
    header: tuple[Any, ...] | None = None
    cells = text_size = 0
    for values in sheet.iter_rows(values_only=True):
        width = len(values)
        limits.check_columns(width, source)
        cells += width
        text_size += sum(len(v) for v in values if isinstance(v, str))
        if cells > limits.cells or text_size > limits.text_bytes or len(rows) >= limits.rows:
            limits.check_size(len(rows) + 1, max(width, 1), text_size, source)
            raise TableTooLarge(f"{source!r} has more than {limits.cells:,} cells; give fewer rows or columns")
        if header is None:
            header = values
            continue
        rows.append(values)
    if header is None:
        return pd.DataFrame()
    width = max([len(header), *(len(r) for r in rows)])
    names = [("" if v is None else str(v).strip()) for v in header] + [""] * (width - len(header))
    text_rows = [[_cell_text(v) for v in r] + [""] * (width - len(r)) for r in rows]
    while width and names[width - 1] == "" and all(r[width - 1] == "" for r in text_rows):  # trailing blank columns
        width -= 1
    return pd.DataFrame([r[:width] for r in text_rows], columns=_unique_names(names[:width]), dtype=object)


def _unique_names(names: Sequence[str]) -> list[str]:
    """Header cells as column names, the way pandas' CSV reader makes them: blanks numbered, repeats
    ``name.1``, ``name.2`` (a frame with two columns of one name cannot be typed or queried)."""
    out: list[str] = []
    seen: set[str] = set()
    for i, name in enumerate(names):
        base = name or f"column_{i + 1}"
        candidate, n = base, 0
        while candidate in seen:
            n += 1
            candidate = f"{base}.{n}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _cell_text(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    return value if isinstance(value, str) else str(value)


# -- SQLite ---------------------------------------------------------------------------------------

def _from_sqlite(path: Path, names: Sequence[str], source: str, limits: ReadLimits) -> list[NamedTable]:
    """Tables are counted (and picked) before any is read; every query runs with SQLite's own
    length limit (a view of ``randomblob(400000000)`` fails at once) and a deadline (a view that
    cross-joins is stopped), and rows are fetched in chunks against the limits."""
    if not path.is_file():
        raise InputError(f"SQLite file {path.name!r} does not exist")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(1000, limits.cell_bytes))
        deadline = [time.monotonic() + limits.seconds]
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline[0]), 10_000)
        kinds = dict(conn.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'"
            " ORDER BY rowid LIMIT ?", (max(limits.tables + 1, 21),)).fetchall())
        available = list(kinds)
        wanted = _pick(names, available, source, limits)
        out = []
        for n in wanted:
            deadline[0] = time.monotonic() + limits.seconds
            if kinds.get(n) == "view":
                _check_view(conn, n, limits, f"{path.name}#{n}")
            out.append(_checked(table_name(n), _sql_frame(conn, n, limits=limits, label=f"{path.name}#{n}"),
                                f"{path}#{n}"))
        return out
    except sqlite3.OperationalError as exc:
        if "interrupt" in str(exc).lower():
            raise TableTooLarge(f"reading {path.name!r} took longer than {limits.seconds:g} s (a view that "
                                "computes too much?); give a plain table") from None
        raise
    except sqlite3.DataError as exc:  # SQLITE_TOOBIG: a value over the length limit
        raise TableTooLarge(f"{path.name!r} holds a value over {limits.cell_bytes:,} bytes "
                            f"({str(exc).splitlines()[0][:80]}); give a plain table") from None
    finally:
        conn.close()


_SCAN = re.compile(r"^SCAN (\w+)")


def _check_view(conn: Any, name: str, limits: ReadLimits, label: str) -> None:
    """Refuse a view whose plan multiplies full scans past what a table may hold (a cross join):
    the rows it would visit are estimated from SQLite's own plan and the tables' sizes, before it runs."""
    if not _SQL_NAME.match(name):
        raise InputError(f"table name {name!r} is not a plain SQL identifier")
    plan = [str(r[-1]) for r in conn.execute(f'EXPLAIN QUERY PLAN SELECT * FROM "{name}"')]
    aliases = _view_aliases(conn, name)
    visits = 1
    for detail in plan:
        scan = _SCAN.match(detail)
        if scan is None or scan.group(1).upper() in {"CONSTANT", "SUBQUERY"}:
            continue
        table = aliases.get(scan.group(1).lower(), scan.group(1))
        if not _SQL_NAME.match(table):
            continue
        try:
            rows = int(conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
        except sqlite3.Error:
            continue  # a CTE or a subquery's alias: no table of that name
        visits *= max(rows, 1)
        if visits > 10 * limits.cells:
            raise TableTooLarge(f"view {label!r} would visit more than {10 * limits.cells:,} rows "
                                "(a cross join?); give a plain table or a narrower view")


def _view_aliases(conn: Any, name: str) -> dict[str, str]:
    """``{alias: table}`` of a view's FROM clauses (SQLite's plan names a scan by its alias)."""
    import sqlglot
    from sqlglot import exp

    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", (name,)).fetchone()
    try:
        tree = sqlglot.parse_one(str(row[0]), read="sqlite") if row and row[0] else None
    except sqlglot.errors.SqlglotError:
        return {}
    if tree is None:
        return {}
    return {t.alias_or_name.lower(): t.name for t in tree.find_all(exp.Table) if t.name}


def _pick(names: Sequence[str], available: Sequence[str], source: str,
          limits: ReadLimits = DEFAULT_LIMITS) -> list[str]:
    if not names:
        if not available:
            raise InputError(f"{source!r} holds no tables")
        if len(available) > limits.tables:
            more = ", ..." if len(available) > 10 else ""
            raise TooManyTables(f"{source!r} holds more than {limits.tables} tables ({', '.join(available[:10])}"
                                f"{more}); name the ones to read (file#table1,table2)", available)
        return list(available)
    lower = {a.lower(): a for a in available}
    missing = [n for n in names if n.lower() not in lower]
    if missing:
        raise InputError(f"{source!r} has no table {missing[0]!r}; it has: {', '.join(available[:20])}")
    return [lower[n.lower()] for n in names]


def _sql_frame(conn: Any, name: str, quote: str = '"', *, limits: ReadLimits = DEFAULT_LIMITS,
               label: str | None = None) -> pd.DataFrame:
    if not _SQL_NAME.match(name):
        raise InputError(f"table name {name!r} is not a plain SQL identifier")
    label = label or name
    ident = ".".join(f"{quote}{part}{quote}" for part in name.split("."))
    cur = conn.cursor()
    cur.execute(f"SELECT * FROM {ident} LIMIT {limits.rows + 1}")
    columns = [d[0] for d in cur.description]
    limits.check_columns(len(columns), label)
    batch = max(1, min(_CHUNK_ROWS, limits.cells // max(1, len(columns))))
    rows: list[Any] = []
    size = 0
    for chunk in iter(lambda: cur.fetchmany(batch), []):
        rows.extend(chunk)
        size += sum(len(v) for row in chunk for v in row if isinstance(v, str | bytes))
        limits.check_size(len(rows), len(columns), size, label)
    return pd.DataFrame.from_records(rows, columns=columns)


def _from_database(url: str, names: Sequence[str], source: str, limits: ReadLimits) -> list[NamedTable]:
    if url.startswith("sqlite:///"):
        return _from_sqlite(Path(url[len("sqlite:///") :]), names, source, limits)
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
                frame = _sql_frame(conn, name, limits=limits)
            except psycopg.Error as exc:
                raise InputError(f"cannot read table {name!r}: {str(exc).splitlines()[0]}") from exc
            out.append(_checked(table_name(name.split(".")[-1]), frame, f"{redact_url(url)}#{name}"))
        return out
    finally:
        conn.close()
