"""What both engines share: errors, schema dataclasses, the abstract :class:`Database`, URLs.

Exceptions::

    DatabaseError      cannot open or reach the database, bad URL (terminal for the run)
    QueryError         the database refused a statement; the message goes back to the model
     └── QueryTimeout  the statement ran past its timeout
"""

from __future__ import annotations

import hashlib
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from sqlglot import exp

from ..errors import RunError, ServiceUnavailableError, redact_url
from ..store import POSTGRES_PREFIXES

Dialect = Literal["sqlite", "postgres"]

ROW_COUNT_CAP = 100_000  # counting stops here: "at least this many" is all the planner hints need
_TEXTISH = ("char", "text", "clob", "string", "citext", "name", "uuid")


class DatabaseError(ServiceUnavailableError):
    """The database cannot be opened or reached; retrying the same query will not help."""


class QueryError(RunError):
    """The database refused a statement; ``str(err)`` is its message, meant for the model."""

    def __init__(self, message: str, *, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


class QueryTimeout(QueryError):
    """The statement was cancelled at its timeout; narrow it (filters, LIMIT) and retry."""


@dataclass(frozen=True)
class ForeignKey:
    from_table: str
    from_column: str
    to_table: str
    to_column: str
    name: str = ""


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str
    nullable: bool
    primary_key: bool = False
    comment: str | None = None


@dataclass(frozen=True)
class TableInfo:
    """``name`` is how SQL refers to it: schema-qualified only outside the default schema."""

    name: str
    columns: tuple[ColumnInfo, ...]
    schema: str | None = None
    kind: Literal["table", "view"] = "table"
    comment: str | None = None
    row_estimate: int | None = None
    foreign_keys: tuple[ForeignKey, ...] = ()

    @property
    def relation(self) -> str:
        prefix = f"{self.schema}."
        return self.name[len(prefix) :] if self.schema and self.name.startswith(prefix) else self.name

    def column(self, name: str) -> ColumnInfo | None:
        exact = {c.name: c for c in self.columns}
        folded = {c.name.lower(): c for c in self.columns}
        return exact.get(name) or folded.get(name.lower())


@dataclass(frozen=True)
class SchemaInfo:
    dialect: Dialect
    tables: tuple[TableInfo, ...]
    default_schema: str | None = None

    def table(self, name: str) -> TableInfo | None:
        """Look a table up the way a model writes it: exact, any case, or schema-qualified."""
        wanted = name.strip().replace('"', "")
        for candidates in (wanted, wanted.lower()):
            for t in self.tables:
                if candidates in (t.name, f"{t.schema}.{t.relation}") or candidates in (
                    t.name.lower(),
                    f"{t.schema}.{t.relation}".lower(),
                ):
                    return t
        return None


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    truncated: bool


@dataclass(frozen=True)
class ExplainPlan:
    """``raw``: Postgres' JSON plan (the dict holding "Plan"); SQLite: ``(id, parent, detail)`` rows.

    ``table_rows`` maps table names (bare and schema-qualified) to row estimates, because neither
    plan format says how big a scanned table is.
    """

    dialect: Dialect
    sql: str
    raw: Any
    table_rows: Mapping[str, int] = field(default_factory=dict)
    default_schema: str | None = None


class Database(ABC):
    """Common surface of both engines; subclasses only implement the engine-specific parts."""

    dialect: Dialect
    placeholder = "?"
    """How a bound parameter is written in this engine's SQL (``?`` or ``%s``)."""

    def __init__(self, display_url: str) -> None:
        self.url = display_url  # password removed: safe for logs and messages
        self._schema: SchemaInfo | None = None
        self._schema_lock = threading.Lock()

    @abstractmethod
    def fetch(
        self,
        sql: str,
        params: Sequence[Any] | None = None,
        *,
        max_rows: int = 1000,
        timeout_s: float = 10.0,
    ) -> QueryResult:
        """Run one read-only query; at most ``max_rows`` rows, ``truncated`` if there were more."""

    @abstractmethod
    def explain(self, sql: str, *, timeout_s: float = 10.0) -> ExplainPlan:
        """Plan the query without running it (never EXPLAIN ANALYZE)."""

    @abstractmethod
    def _introspect(self) -> SchemaInfo: ...

    @abstractmethod
    def close(self) -> None: ...

    def introspect(self, *, refresh: bool = False) -> SchemaInfo:
        """Schema, cached: the agent asks for it on every turn and it rarely changes."""
        with self._schema_lock:
            if self._schema is None or refresh:
                self._schema = self._introspect()
            return self._schema

    def fingerprint(self) -> str:
        """Hash of tables, columns, types and FKs; comments and row counts are left out on purpose."""
        shape = [
            [
                t.name,
                t.kind,
                [[c.name, c.type, c.nullable, c.primary_key] for c in t.columns],
                sorted([fk.from_column, fk.to_table, fk.to_column] for fk in t.foreign_keys),
            ]
            for t in sorted(self.introspect().tables, key=lambda t: t.name)
        ]
        blob = json.dumps([self.dialect, shape], separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def sample_values(self, table: str, column: str, limit: int = 20) -> list[Any]:
        """Most frequent distinct non-null values, so the model sees real codes, not guesses."""
        tbl, col, _ = self._target(table, column)
        sql = (
            f"SELECT {col} FROM {tbl} WHERE {col} IS NOT NULL "
            f"GROUP BY {col} ORDER BY COUNT(*) DESC, {col} LIMIT {int(limit)}"
        )
        return [row[0] for row in self.fetch(sql, max_rows=limit, timeout_s=5.0).rows]

    def value_exists(self, table: str, column: str, value: Any) -> bool:
        tbl, col, info = self._target(table, column)
        if isinstance(value, str) and self.dialect == "postgres" and not _is_textish(info.type):
            col = f"CAST({col} AS TEXT)"  # a code typed as text must not fail on an integer column
        sql = f"SELECT 1 FROM {tbl} WHERE {col} = {self.placeholder} LIMIT 1"
        return bool(self.fetch(sql, [value], max_rows=1, timeout_s=5.0).rows)

    def search_values(self, table: str, column: str, keyword: str, limit: int = 20) -> list[str]:
        """Values containing ``keyword`` (case-insensitive), shortest first: the closest matches."""
        tbl, col, _ = self._target(table, column)
        like = "ILIKE" if self.dialect == "postgres" else "LIKE"
        pattern = "%" + keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = (
            f"SELECT v FROM (SELECT DISTINCT CAST({col} AS TEXT) AS v FROM {tbl} "
            f"WHERE CAST({col} AS TEXT) {like} {self.placeholder} ESCAPE '\\') AS s "
            f"ORDER BY LENGTH(v), v LIMIT {int(limit)}"
        )
        return [str(row[0]) for row in self.fetch(sql, [pattern], max_rows=limit, timeout_s=5.0).rows]

    def _target(self, table: str, column: str) -> tuple[str, str, ColumnInfo]:
        """Resolve names against the schema and quote them: no model text reaches SQL unchecked."""
        schema = self.introspect()
        info = schema.table(table)
        if info is None:
            known = ", ".join(t.name for t in schema.tables[:50])
            raise QueryError(f"unknown table {table!r}; known tables: {known}")
        col = info.column(column)
        if col is None:
            known = ", ".join(c.name for c in info.columns)
            raise QueryError(f"unknown column {column!r} in table {info.name!r}; its columns: {known}")
        parts = [info.schema, info.relation] if info.schema else [info.relation]
        quoted = ".".join(exp.to_identifier(p, quoted=True).sql(dialect=self.dialect) for p in parts)
        return quoted, exp.to_identifier(col.name, quoted=True).sql(dialect=self.dialect), col

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_database(url: str, *, schemas: Sequence[str] | None = None) -> Database:
    """Open ``sqlite:///path``, a ``.db``/``.sqlite`` path, or ``postgresql://`` / ``postgres://``.

    ``schemas`` limits Postgres introspection (default: every non-system schema).
    """
    from ._postgres import PostgresDatabase  # imported here: both engines subclass Database
    from ._sqlite import SQLiteDatabase

    if url.startswith(POSTGRES_PREFIXES):
        return PostgresDatabase(url, schemas=schemas)
    if url.startswith("sqlite:"):
        rest = urlsplit(url)
        if rest.netloc or not rest.path or rest.path in ("/", "/:memory:"):
            raise DatabaseError(
                f"unsupported SQLite URL {url!r}: use sqlite:///relative.db or sqlite:////absolute.db "
                "(in-memory databases cannot be opened read-only)"
            )
        return SQLiteDatabase(Path(unquote(rest.path[1:])))
    if "://" not in url and url.lower().endswith((".db", ".sqlite", ".sqlite3")):
        return SQLiteDatabase(Path(url))
    raise DatabaseError(
        f"unsupported database URL {redact_url(url)!r}: use sqlite:///path.db, a .db/.sqlite file "
        "or postgresql://user@host/dbname"
    )


def _is_textish(type_name: str) -> bool:
    return any(word in type_name.lower() for word in _TEXTISH)
