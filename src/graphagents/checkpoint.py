"""Open the LangGraph checkpointer named by a URL: SQLite file, PostgreSQL, or memory."""

from __future__ import annotations

import sqlite3

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from .errors import ConfigError, ServiceUnavailableError, redact_url
from .store import POSTGRES_PREFIXES, sqlite_path


def open_checkpointer(url: str) -> BaseCheckpointSaver:
    """Sessions are threads on this checkpointer, so a session survives a process restart."""
    if url == "memory":
        return InMemorySaver()
    if url.startswith(POSTGRES_PREFIXES):
        return _open_postgres(url)
    if url.startswith("sqlite:") or "://" not in url:
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = sqlite_path(url)
        try:
            conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as exc:
            raise ServiceUnavailableError(f"cannot open checkpoint database {str(path)!r}: {exc}") from exc
        saver = SqliteSaver(conn)
        saver.setup()
        return saver
    raise ConfigError(
        f"unsupported CHECKPOINT_URL {redact_url(url)!r}: use sqlite:///path, postgresql://... or memory"
    )


def _open_postgres(url: str) -> BaseCheckpointSaver:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ConfigError(
            "the Postgres checkpointer is not installed: pip install 'graphagents[postgres]'"
        ) from exc
    pool: ConnectionPool = ConnectionPool(
        url,
        min_size=1,
        max_size=8,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    try:
        pool.open(wait=True, timeout=5)
        saver = PostgresSaver(pool)  # type: ignore[arg-type]
        saver.setup()
    except Exception as exc:
        pool.close()
        first = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        raise ServiceUnavailableError(f"cannot use PostgreSQL checkpointer at {redact_url(url)}: {first}") from exc
    return saver
