"""The application database: session records and agent records (SQLite or PostgreSQL).

A deliberately small layer: SQL is written once with ``?`` placeholders and portable types,
and the PostgreSQL backend rewrites placeholders. Checkpoints live in LangGraph's own
checkpointer (see :mod:`graphagents.checkpoint`); this store keeps what is ours.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .errors import ConfigError, ServiceUnavailableError, redact_url

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


@dataclass(frozen=True)
class SessionRecord:
    agent: str
    session_id: str
    options: dict[str, Any]
    created_at: float


class SessionStore:
    """Which sessions exist, for which agent, with which options: survives restarts."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ga_sessions ("
            " agent TEXT NOT NULL, session_id TEXT NOT NULL, options TEXT NOT NULL,"
            " created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (agent, session_id))"
        )

    def create(self, agent: str, session_id: str, options: dict[str, Any]) -> SessionRecord:
        record = SessionRecord(agent, session_id, dict(options), time.time())
        self.db.execute(
            "INSERT INTO ga_sessions (agent, session_id, options, created_at) VALUES (?, ?, ?, ?)",
            (agent, session_id, json.dumps(options, ensure_ascii=False), record.created_at),
        )
        return record

    def get(self, agent: str, session_id: str) -> SessionRecord | None:
        rows = self.db.fetchall(
            "SELECT options, created_at FROM ga_sessions WHERE agent = ? AND session_id = ?",
            (agent, session_id),
        )
        if not rows:
            return None
        options, created_at = rows[0]
        return SessionRecord(agent, session_id, json.loads(options), float(created_at))
