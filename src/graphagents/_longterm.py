"""Open the LangGraph ``BaseStore`` (long-term memory across sessions) named by a URL.

SQLite (``langgraph.store.sqlite``) by default, PostgreSQL (``langgraph.store.postgres``) when the
application database is Postgres, ``memory`` for an in-process store. LangGraph's SqliteStore has no
async path; the subclass here runs its batches in a worker thread so that async nodes can use
``await store.aput(...)`` as they would on Postgres.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from .errors import ConfigError, ServiceUnavailableError, redact_url
from .store import POSTGRES_PREFIXES, sqlite_path


class ThreadedSqliteStore(SqliteStore):
    """LangGraph's SqliteStore with ``abatch`` run in the loop's executor (its own lock serialises)."""

    async def abatch(self, ops: Iterable[Any]) -> list[Any]:
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, list(ops))


def open_store(url: str) -> BaseStore:
    if url == "memory":
        return InMemoryStore()
    if url.startswith(POSTGRES_PREFIXES):
        return _open_postgres(url)
    if url.startswith("sqlite:") or "://" not in url:
        path = sqlite_path(url)
        try:
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA secure_delete=ON")  # an erased user's memory leaves no bytes behind
            store = ThreadedSqliteStore(conn)
            store.setup()
        except sqlite3.Error as exc:
            raise ServiceUnavailableError(f"cannot open the memory store {str(path)!r}: {exc}") from exc
        return store
    raise ConfigError(f"unsupported STORE_URL {redact_url(url)!r}: use sqlite:///path, postgresql://... or memory")


def _open_postgres(url: str) -> BaseStore:
    try:
        from langgraph.store.postgres import PostgresStore
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ConfigError(
            f"the Postgres store is not installed ({exc.name}): pip install 'graphagents[postgres]'"
        ) from exc
    pool: ConnectionPool = ConnectionPool(
        url, min_size=1, max_size=4, open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        pool.open(wait=True, timeout=5)
        store = PostgresStore(pool)  # type: ignore[arg-type]
        store.setup()
    except Exception as exc:
        pool.close()
        first = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        raise ServiceUnavailableError(f"cannot use PostgreSQL memory store at {redact_url(url)}: {first}") from exc
    return store


def close_store(store: BaseStore) -> None:
    conn = getattr(store, "conn", None)
    close = getattr(conn, "close", None)
    if callable(close):
        close()
