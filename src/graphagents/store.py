"""The application database: session records and agent records (SQLite or PostgreSQL).

A deliberately small layer: SQL is written once with ``?`` placeholders and portable types,
and the PostgreSQL backend rewrites placeholders. Checkpoints live in LangGraph's own
checkpointer; this database keeps what is ours. Agents get it as ``BuildContext.database``;
:func:`database_for` is the same process-wide handle for code outside a graph (tests, tools).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from .errors import ConfigError, ServiceUnavailableError, redact_url

__all__ = ["POSTGRES_PREFIXES", "Database", "PostgresDatabase", "SqliteDatabase", "building_sqlite",
           "Migration", "database_for", "migrate", "open_database", "schema_version", "sqlite_stamp",
           "sqlite_path"]

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def sqlite_path(url: str) -> Path:
    """``sqlite:///relative/or/abs.db`` or a bare path -> a Path (parents created)."""
    path = Path(url.removeprefix("sqlite:///").removeprefix("sqlite://"))
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class Database(Protocol):
    dialect: str

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def close(self) -> None: ...


class SqliteDatabase:
    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA secure_delete=ON")  # a user's erased data leaves no bytes behind
        except sqlite3.Error as exc:
            raise ServiceUnavailableError(f"cannot open SQLite database {str(path)!r}: {exc}") from exc

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock, self._conn:
            self._conn.execute(sql, tuple(params))

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, tuple(params)).fetchall())

    def close(self) -> None:
        self._conn.close()


class PostgresDatabase:
    dialect = "postgres"

    def __init__(self, url: str) -> None:
        try:
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ConfigError(
                "PostgreSQL support is not installed: pip install 'graphagents[postgres]'"
            ) from exc
        self._pool = ConnectionPool(url, min_size=1, max_size=4, kwargs={"autocommit": True}, open=False)
        try:
            self._pool.open(wait=True, timeout=5)
        except Exception as exc:
            self._pool.close()
            raise ServiceUnavailableError(
                f"cannot connect to PostgreSQL at {redact_url(url)}: {_first_line(exc)}"
            ) from exc

    @staticmethod
    def _pg(sql: str) -> str:
        return sql.replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._pool.connection() as conn:
            conn.execute(self._pg(sql), tuple(params))  # type: ignore[arg-type]

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._pool.connection() as conn:
            return list(conn.execute(self._pg(sql), tuple(params)).fetchall())  # type: ignore[arg-type]

    def close(self) -> None:
        self._pool.close()


def open_database(url: str) -> Database:
    if url.startswith(POSTGRES_PREFIXES):
        return PostgresDatabase(url)
    if url.startswith("sqlite:") or "://" not in url:
        return SqliteDatabase(sqlite_path(url))
    raise ConfigError(f"unsupported database URL {redact_url(url)!r}: use sqlite:///path or postgresql://...")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


_lock = threading.Lock()
_databases: dict[str, Database] = {}


def database_for(url: str) -> Database:
    """The process's one Database for ``url`` (opened on first use)."""
    with _lock:
        if url not in _databases:
            _databases[url] = open_database(url)
        return _databases[url]


def close_databases() -> None:
    """Close every shared Database (a simulated restart in tests)."""
    with _lock:
        for db in _databases.values():
            db.close()
        _databases.clear()


# --- Versioned tables ---------------------------------------------------------------------------

_VERSIONS_DDL = ("CREATE TABLE IF NOT EXISTS ga_schema_versions (component TEXT PRIMARY KEY,"
                 " version INTEGER NOT NULL, updated_at DOUBLE PRECISION NOT NULL)")
# per Database object (weakly: a closed and collected database must not vouch for a new one)
_migrated: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
_migrate_lock = threading.Lock()


def schema_version(db: Database, component: str) -> int:
    """The migration step ``component``'s tables are at in ``db`` (0: never migrated)."""
    db.execute(_VERSIONS_DDL)
    rows = db.fetchall("SELECT version FROM ga_schema_versions WHERE component = ?", (component,))
    return int(rows[0][0]) if rows else 0


Migration = Sequence[str] | Callable[["Database"], None]
"""One migration step: SQL statements, or a function of the database for a step SQL cannot say."""


def migrate(db: Database, component: str, steps: Sequence[Migration]) -> int:
    """Bring ``component``'s tables (an agent's records, the session table...) to ``len(steps)``.

    ``steps[i]`` holds the statements (or a function) that take the schema from version ``i`` to ``i + 1``; each step
    runs once per database, in order, and the version reached is recorded in ``ga_schema_versions``.
    Steps are append-only: a release adds a step, it never edits a shipped one. A first step written
    with ``IF NOT EXISTS`` adopts tables created before versioning. When another process applies the
    same step at the same moment and ours fails, the version is read again: if the other process got
    there, that is success; otherwise the error is raised. Cached per process, so calling this on every
    open costs nothing after the first time. Returns the version reached.
    """
    target = len(steps)
    with _migrate_lock:
        done = _migrated.setdefault(db, {})
        if done.get(component, -1) >= target:
            return done[component]
        version = schema_version(db, component)
        while version < target:
            try:
                step = steps[version]
                if callable(step):
                    step(db)
                else:
                    for statement in step:
                        db.execute(statement)
            except Exception:
                if schema_version(db, component) > version:
                    version = schema_version(db, component)
                    continue
                raise
            version += 1
            db.execute(
                "INSERT INTO ga_schema_versions (component, version, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (component) DO UPDATE SET version = excluded.version,"
                " updated_at = excluded.updated_at",
                (component, version, time.time()),
            )
        done[component] = version
        return version


# --- SQLite files built from data (demo databases, bundled tables) ---------------------------------


def sqlite_stamp(path: str | os.PathLike[str]) -> int | None:
    """The ``user_version`` a built SQLite file was stamped with (see :func:`building_sqlite`), or None
    when the file is missing or not a database."""
    try:
        con = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        try:
            row = con.execute("PRAGMA user_version").fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row else None


@contextmanager
def building_sqlite(target: str | os.PathLike[str], stamp: int) -> Iterator[sqlite3.Connection]:
    """A connection to a new SQLite file that replaces ``target`` when the block ends without error.

    The file is written under a temporary name, stamped (``PRAGMA user_version = stamp``, a signed
    32-bit number: the caller's hash of its inputs), committed and renamed into place, so a reader
    or a second builder in another process never sees a half-written database; on an error the
    temporary file is removed and ``target`` is left as it was.
    """
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    con = sqlite3.connect(tmp)
    try:
        yield con
        con.execute(f"PRAGMA user_version = {int(stamp)}")
        con.commit()
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, final)
