"""Read-only database access for the text2sql tools (SQLite and PostgreSQL).

Every statement runs read-only *independently of* :class:`.guard.SQLGuard`, so a guard bug alone
cannot write:

- PostgreSQL: a pooled connection whose sessions default to read-only, then per call a
  ``SET TRANSACTION READ ONLY`` + ``SET LOCAL statement_timeout`` transaction that is always rolled
  back. Queries go through a server-side cursor (``DECLARE ... CURSOR FOR``) sent with the extended
  protocol, so the server itself refuses a second stacked statement, anything that is not a query,
  and data-modifying CTEs; and only ``max_rows + 1`` rows ever leave the server.
- SQLite: a fresh ``file:...?mode=ro`` connection per call (thread-safe by construction), a
  progress handler that aborts at the deadline, and an authorizer that refuses what ``mode=ro``
  lets through: ATTACH (and so ``VACUUM INTO``), temp-schema writes, non-introspection PRAGMAs and
  the guard's denied functions.

SQLite has no comments on tables or columns; if the database holds a table
``_comments(table_name, column_name, comment)`` its rows are used (``column_name`` NULL or '' for a
table comment), and the table itself is hidden from the schema.

Exceptions::

    DatabaseError      cannot open or reach the database, bad URL (terminal for the run)
    QueryError         the database refused a statement; the message goes back to the model
     └── QueryTimeout  the statement ran past its timeout
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from sqlglot import exp

from ...errors import RunError, ServiceUnavailableError
from .guard import Dialect, is_denied_function

# fmt: off
__all__ = [
    "ColumnInfo", "Database", "DatabaseError", "ExplainPlan", "ForeignKey", "QueryError",
    "QueryResult", "QueryTimeout", "SchemaInfo", "TableInfo", "open_database",
]
# fmt: on


_log = logging.getLogger(__name__)
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
    _placeholder = "?"

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
        sql = f"SELECT 1 FROM {tbl} WHERE {col} = {self._placeholder} LIMIT 1"
        return bool(self.fetch(sql, [value], max_rows=1, timeout_s=5.0).rows)

    def search_values(self, table: str, column: str, keyword: str, limit: int = 20) -> list[str]:
        """Values containing ``keyword`` (case-insensitive), shortest first: the closest matches."""
        tbl, col, _ = self._target(table, column)
        like = "ILIKE" if self.dialect == "postgres" else "LIKE"
        pattern = "%" + keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = (
            f"SELECT v FROM (SELECT DISTINCT CAST({col} AS TEXT) AS v FROM {tbl} "
            f"WHERE CAST({col} AS TEXT) {like} {self._placeholder} ESCAPE '\\') AS s "
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
    if url.startswith(("postgresql://", "postgres://")):
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


def redact_url(url: str) -> str:
    """The URL without its password (in the authority or a ``password=`` query parameter)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = urlencode([(k, "***" if k.lower() == "password" else v) for k, v in parse_qsl(parts.query)])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _is_textish(type_name: str) -> bool:
    return any(word in type_name.lower() for word in _TEXTISH)


# --------------------------------------------------------------------------------------- SQLite

_SQLITE_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE}
# Left to the read-only file to refuse, so that a smuggled write fails with SQLite's own
# "attempt to write a readonly database" (and pragma virtual tables, which touch sqlite_master).
_SQLITE_ROW_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_SQLITE_PRAGMAS = {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
_SQLITE_ACTIONS = {  # action code -> readable name, for the "refused" message
    getattr(sqlite3, name): name[7:].replace("_", " ")
    for name in dir(sqlite3)
    if name.startswith("SQLITE_")
    and name[7:].startswith(("ATTACH", "DETACH", "TRANSACTION", "SAVEPOINT", "PRAGMA", "CREATE_", "DROP_",
                             "ALTER_", "REINDEX", "ANALYZE", "INSERT", "UPDATE", "DELETE"))
}  # fmt: skip


class SQLiteDatabase(Database):
    dialect: Dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path.expanduser().resolve()
        if not self.path.is_file():
            raise DatabaseError(f"cannot open SQLite database {str(path)!r}: no such file")
        self._uri = self.path.as_uri() + "?mode=ro"
        self._closed = False
        try:
            with self._connect(5.0) as conn:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except (sqlite3.Error, QueryError) as err:
            raise DatabaseError(f"cannot open SQLite database {str(path)!r}: {err}") from err

    @contextmanager
    def _connect(self, timeout_s: float) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise DatabaseError(f"database {self.url!r} is closed")
        conn = sqlite3.connect(self._uri, uri=True, timeout=min(timeout_s, 5.0), isolation_level=None)
        refused: list[str] = []
        deadline = time.monotonic() + timeout_s
        conn.set_authorizer(_sqlite_authorizer(refused))
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
        try:
            with closing(conn):
                yield conn
        except (sqlite3.Error, sqlite3.Warning) as err:
            message = str(err)
            if message == "interrupted" and time.monotonic() > deadline:
                raise QueryTimeout(f"query cancelled after {timeout_s:g}s timeout") from None
            if refused and "authoriz" in message:
                message = f"not authorized: the connection is read-only and refuses {refused[0]}"
            raise QueryError(message) from None

    def fetch(
        self,
        sql: str,
        params: Sequence[Any] | None = None,
        *,
        max_rows: int = 1000,
        timeout_s: float = 10.0,
    ) -> QueryResult:
        with self._connect(timeout_s) as conn:
            cursor = conn.execute(sql, tuple(params or ()))
            columns = tuple(d[0] for d in cursor.description or ())
            rows = cursor.fetchmany(max_rows + 1) if cursor.description else []
        return QueryResult(columns, rows[:max_rows], len(rows) > max_rows)

    def explain(self, sql: str, *, timeout_s: float = 10.0) -> ExplainPlan:
        with self._connect(timeout_s) as conn:
            rows = conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
        table_rows = {t.name: t.row_estimate for t in self.introspect().tables if t.row_estimate is not None}
        return ExplainPlan("sqlite", sql, tuple((r[0], r[1], r[3]) for r in rows), table_rows)

    def _introspect(self) -> SchemaInfo:
        with self._connect(60.0) as conn:
            listed = conn.execute(
                "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '_comments' ORDER BY name"
            ).fetchall()
            comments: dict[tuple[str, str], str] = {}
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = '_comments'").fetchone():
                rows = conn.execute("SELECT table_name, column_name, comment FROM _comments")
                comments = {(str(t), str(c or "")): str(text) for t, c, text in rows.fetchall()}
            tables = []
            for name, kind in listed:
                info = conn.execute('SELECT name, type, "notnull", pk FROM pragma_table_info(?)', (name,))
                cols = [
                    ColumnInfo(c, t or "", not nn and not pk, bool(pk), comments.get((name, c)))
                    for c, t, nn, pk in info.fetchall()
                ]
                fks = tuple(self._foreign_keys(conn, name))
                count = None
                if kind == "table":
                    quoted = exp.to_identifier(name, quoted=True).sql(dialect="sqlite")
                    count = conn.execute(
                        f"SELECT count(*) FROM (SELECT 1 FROM {quoted} LIMIT {ROW_COUNT_CAP})"
                    ).fetchone()[0]
                tables.append(
                    TableInfo(name, tuple(cols), None, "view" if kind == "view" else "table",
                              comments.get((name, "")), count, fks)
                )  # fmt: skip
        return SchemaInfo("sqlite", tuple(tables))

    @staticmethod
    def _foreign_keys(conn: sqlite3.Connection, table: str) -> Iterator[ForeignKey]:
        rows = conn.execute('SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?)', (table,))
        for fk_id, parent, src, dst in rows.fetchall():
            if dst is None:  # REFERENCES parent without columns: the parent's primary key
                pks = conn.execute("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [parent])
                dst = next(iter(pks.fetchall()), ("rowid",))[0]
            yield ForeignKey(table, src, parent, dst, f"fk_{table}_{fk_id}")

    def close(self) -> None:
        self._closed = True


def _sqlite_authorizer(refused: list[str]) -> Callable[..., int]:
    def authorize(action: int, arg1: str | None, arg2: str | None, db: str | None, _src: str | None) -> int:
        if action in _SQLITE_READ_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            name = (arg2 or "").lower()
            if not is_denied_function(name):
                return sqlite3.SQLITE_OK
            refused.append(f"function {name}()")
        elif (action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in _SQLITE_PRAGMAS) or (
            action in _SQLITE_ROW_WRITES and db == "main"
        ):
            return sqlite3.SQLITE_OK
        else:
            target = f" {arg1 or arg2!r}" if (arg1 or arg2) else ""
            refused.append(f"{_SQLITE_ACTIONS.get(action, f'action {action}')}{target}")
        return sqlite3.SQLITE_DENY

    return authorize


# ----------------------------------------------------------------------------------- PostgreSQL

_CURSOR = "graphagents_query"
_DECLARE = f'DECLARE "{_CURSOR}" CURSOR FOR '
_EXPLAIN = "EXPLAIN (FORMAT JSON, VERBOSE) "  # VERBOSE names each scan's schema
_LEADING_NOISE = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)
_QUERY_STARTS = ("SELECT", "WITH", "VALUES", "TABLE", "(")
_PG_SESSION_OPTIONS = "-c default_transaction_read_only=on -c standard_conforming_strings=on"
_PG_SCHEMA_FILTER = (
    "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)' "
    "AND (%(schemas)s::text[] IS NULL OR n.nspname = ANY(%(schemas)s::text[]))"
)
_PG_TABLES = f"""
SELECT n.nspname, c.relname, c.relkind, c.reltuples::bigint, obj_description(c.oid, 'pg_class')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition AND {_PG_SCHEMA_FILTER}
ORDER BY 1, 2"""
_PG_COLUMNS = f"""
SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       col_description(c.oid, a.attnum)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT c.relispartition AND {_PG_SCHEMA_FILTER}
ORDER BY 1, 2, a.attnum"""
_PG_CONSTRAINTS = f"""
SELECT con.contype, n.nspname, c.relname, con.conname, a.attname, fn.nspname, fc.relname, fa.attname
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, fattnum, ord)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
LEFT JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fattnum
WHERE con.contype IN ('p', 'f') AND {_PG_SCHEMA_FILTER}
ORDER BY con.conname, k.ord"""


class PostgresDatabase(Database):
    dialect: Dialect = "postgres"
    _placeholder = "%s"

    def __init__(self, url: str, *, schemas: Sequence[str] | None = None, max_connections: int = 4) -> None:
        super().__init__(redact_url(url))
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
            from psycopg_pool import ConnectionPool
        except ImportError as err:
            raise DatabaseError(
                f"PostgreSQL support needs psycopg: pip install 'graphagents[postgres]' ({err})"
            ) from None
        self._psycopg = psycopg
        self._schemas = list(schemas) if schemas else None
        try:
            given = conninfo_to_dict(url)
        except psycopg.Error as err:
            raise DatabaseError(f"invalid PostgreSQL URL {self.url!r}: {err}") from None
        options = f"{given.get('options') or ''} {_PG_SESSION_OPTIONS}".strip()
        kwargs: dict[str, Any] = {"options": options, "application_name": "graphagents-text2sql"}
        kwargs["connect_timeout"] = given.get("connect_timeout") or 5
        try:  # a direct probe reports the real cause; the pool would only say "timed out"
            with psycopg.connect(url, **kwargs) as probe:
                row = probe.execute(
                    "SELECT current_schema(), rolsuper FROM pg_roles WHERE rolname = current_user"
                ).fetchone()
                self.default_schema: str = row[0] if row and row[0] else "public"
                self.superuser = bool(row and row[1])
        except psycopg.Error as err:
            raise DatabaseError(f"cannot connect to {self.url}: {_first_line(err)}") from None
        if self.superuser:
            _log.warning(
                "text2sql connects to %s as a superuser: read-only transactions stop writes but not "
                "server-file reads such as pg_read_file(); give it a role with only SELECT grants",
                self.url,
            )
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max_connections, kwargs={**kwargs, "autocommit": False},
            open=True, name="graphagents-text2sql",
        )  # fmt: skip

    @contextmanager
    def _transaction(self, timeout_s: float, sql: str = "", offset: int = 0) -> Iterator[Any]:
        """A pooled connection inside a read-only, time-limited transaction that is always rolled back.

        ``sql`` sent after an ``offset``-character wrapper lets error positions point into it.
        """
        errors = self._psycopg.errors
        from psycopg_pool import PoolClosed, PoolTimeout

        try:
            conn = self._pool.getconn(timeout=max(timeout_s, 5.0))
        except (PoolTimeout, PoolClosed) as err:
            raise DatabaseError(f"no connection to {self.url}: {_first_line(err)}") from None
        try:
            timeout_ms = max(1, int(timeout_s * 1000))
            conn.execute(f"SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = {timeout_ms}")
            yield conn
        except errors.QueryCanceled:
            raise QueryTimeout(f"query cancelled after {timeout_s:g}s timeout (statement_timeout)") from None
        except (self._psycopg.OperationalError, self._psycopg.InterfaceError) as err:
            if conn.closed or conn.broken:
                raise DatabaseError(f"lost connection to {self.url}: {_first_line(err)}") from None
            raise _query_error(err, sql, offset) from None
        except self._psycopg.Error as err:
            raise _query_error(err, sql, offset) from None
        finally:
            with suppress(self._psycopg.Error):  # a broken connection: the pool discards it
                conn.rollback()
            self._pool.putconn(conn)

    def fetch(
        self,
        sql: str,
        params: Sequence[Any] | None = None,
        *,
        max_rows: int = 1000,
        timeout_s: float = 10.0,
    ) -> QueryResult:
        with self._transaction(timeout_s, sql, len(_DECLARE)) as conn, conn.cursor(name=_CURSOR) as cursor:
            cursor.execute(sql, params)
            columns = tuple(d.name for d in cursor.description or ())
            rows = [tuple(r) for r in cursor.fetchmany(max_rows + 1)]
        return QueryResult(columns, rows[:max_rows], len(rows) > max_rows)

    def explain(self, sql: str, *, timeout_s: float = 10.0) -> ExplainPlan:
        with self._transaction(timeout_s, sql, len(_EXPLAIN)) as conn:
            # stream() forces the extended protocol, so a stacked second statement is refused.
            rows = list(conn.cursor().stream(_EXPLAIN + sql))
        document = rows[0][0]
        raw = document[0] if isinstance(document, list) else document
        table_rows: dict[str, int] = {}
        for t in self.introspect().tables:
            if t.row_estimate is not None:
                table_rows[t.name] = table_rows[f"{t.schema}.{t.relation}"] = t.row_estimate
        return ExplainPlan("postgres", sql, raw, table_rows, self.default_schema)

    def _introspect(self) -> SchemaInfo:
        args = {"schemas": self._schemas}
        with self._transaction(60.0) as conn:
            tables = conn.execute(_PG_TABLES, args).fetchall()
            columns = conn.execute(_PG_COLUMNS, args).fetchall()
            constraints = conn.execute(_PG_CONSTRAINTS, args).fetchall()
            estimates: dict[tuple[str, str], int | None] = {}
            for schema, name, kind, reltuples, _ in tables:
                estimates[(schema, name)] = None if kind == "v" else int(reltuples)
                if kind in ("r", "p", "m") and reltuples < 0:  # never analysed: count, capped
                    quoted = f"{_pg_ident(schema)}.{_pg_ident(name)}"
                    count = f"SELECT count(*) FROM (SELECT 1 FROM {quoted} LIMIT {ROW_COUNT_CAP}) s"
                    estimates[(schema, name)] = int(conn.execute(count).fetchone()[0])
        ref = self._reference
        pks = {(s, t, col) for kind, s, t, _, col, *_ in constraints if kind == "p"}
        fks: dict[tuple[str, str], list[ForeignKey]] = {}
        for kind, s, t, name, col, fs, ft, fcol in constraints:
            if kind == "f" and fs is not None:
                fks.setdefault((s, t), []).append(ForeignKey(ref(s, t), col, ref(fs, ft), fcol, name))
        cols: dict[tuple[str, str], list[ColumnInfo]] = {}
        for s, t, col, type_, nullable, comment in columns:
            cols.setdefault((s, t), []).append(ColumnInfo(col, type_, nullable, (s, t, col) in pks, comment))
        infos = tuple(
            TableInfo(ref(s, t), tuple(cols.get((s, t), ())), s, "view" if kind == "v" else "table",
                      comment, estimates[(s, t)], tuple(fks.get((s, t), ())))
            for s, t, kind, _, comment in tables
        )  # fmt: skip
        return SchemaInfo("postgres", infos, self.default_schema)

    def _reference(self, schema: str, table: str) -> str:
        return table if schema == self.default_schema else f"{schema}.{table}"

    def close(self) -> None:
        self._pool.close()


def _query_error(err: Any, sql: str, offset: int) -> QueryError:
    """The server's message with positions relative to the model's SQL, not to our wrapper."""
    diag = err.diag
    sqlstate = getattr(err, "sqlstate", None)
    primary = diag.message_primary or _first_line(err)
    lines = [primary]
    position = int(diag.statement_position) - 1 - offset if diag.statement_position else -1
    if sql and 0 <= position <= len(sql):
        start = _LEADING_NOISE.match(sql)
        first = start.end() if start else 0
        if (
            position == first
            and primary.startswith("syntax error")
            and not sql[first:].upper().startswith(_QUERY_STARTS)
        ):
            word = (sql[first:].split() or ["?"])[0].upper()
            return QueryError(
                f"cannot execute {word}: the connection is read-only and runs only queries "
                "(SELECT, WITH ... SELECT, VALUES)",
                sqlstate=sqlstate,
            )
        line_start = sql.rfind("\n", 0, position) + 1
        line_end = len(sql) if sql.find("\n", position) < 0 else sql.find("\n", position)
        line, column = sql[line_start:line_end], position - line_start
        if len(line) > 100:  # keep the neighbourhood of the error, as psql does
            cut = max(0, column - 50)
            line, column = "..." + line[cut : cut + 100] + "...", column - cut + 3
        label = f"LINE {sql.count(chr(10), 0, position) + 1}: "
        lines += [label + line, " " * (len(label) + column) + "^"]
    for name, value in (
        ("DETAIL", diag.message_detail),
        ("HINT", diag.message_hint),
        ("CONTEXT", diag.context),
    ):
        if value:
            lines.append(f"{name}:  {value}")
    return QueryError("\n".join(lines), sqlstate=sqlstate)


def _pg_ident(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="postgres")


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
