"""PostgreSQL: a pooled connection whose sessions default to read-only, then per call a
``SET TRANSACTION READ ONLY`` + ``SET LOCAL statement_timeout`` transaction that is always rolled
back. Queries go through a server-side cursor (``DECLARE ... CURSOR FOR``) sent with the extended
protocol, so the server itself refuses a second stacked statement, anything that is not a query,
and data-modifying CTEs; and only ``max_rows + 1`` rows ever leave the server.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from sqlglot import exp

from ._base import (
    ROW_COUNT_CAP,
    ColumnInfo,
    Database,
    DatabaseError,
    Dialect,
    ExplainPlan,
    ForeignKey,
    QueryError,
    QueryResult,
    QueryTimeout,
    SchemaInfo,
    TableInfo,
    redact_url,
)
from ._connect import connection_error

_log = logging.getLogger(__name__)
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
    placeholder = "%s"

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
        kwargs: dict[str, Any] = {"options": options, "application_name": "graphagents-reader"}
        kwargs["connect_timeout"] = given.get("connect_timeout") or 5
        try:  # a direct probe reports the real cause; the pool would only say "timed out"
            with psycopg.connect(url, **kwargs) as probe:
                row = probe.execute(
                    "SELECT current_schema(), rolsuper FROM pg_roles WHERE rolname = current_user"
                ).fetchone()
                self.default_schema: str = row[0] if row and row[0] else "public"
                self.superuser = bool(row and row[1])
        except psycopg.OperationalError as err:  # down, missing database, refused login: each says what to do
            raise DatabaseError(str(connection_error(url, err))) from None
        except psycopg.Error as err:
            raise DatabaseError(f"cannot connect to {self.url}: {_first_line(err)}") from None
        if self.superuser:
            _log.warning(
                "the read-only reader connects to %s as a superuser: read-only transactions stop writes but not "
                "server-file reads such as pg_read_file(); create a role with only SELECT grants with "
                "`graphagents text2sql create-role --db %s` and use the URL it prints",
                self.url, self.url,
            )
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max_connections, kwargs={**kwargs, "autocommit": False},
            open=True, name="graphagents-reader",
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
