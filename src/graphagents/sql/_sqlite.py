"""SQLite: a fresh ``file:...?mode=ro`` connection per call (thread-safe by construction), a
progress handler that aborts at the deadline, and an authorizer that refuses what ``mode=ro``
lets through: ATTACH (and so ``VACUUM INTO``), temp-schema writes, non-introspection PRAGMAs and
the guard's denied functions.

SQLite has no comments on tables or columns; if the database holds a table
``_comments(table_name, column_name, comment)`` its rows are used (``column_name`` NULL or '' for a
table comment), and the table itself is hidden from the schema.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
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
)
from .denylist import is_denied_function

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
