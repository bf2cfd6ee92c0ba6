"""Open the LangGraph checkpointer named by a URL: SQLite file, PostgreSQL, or memory.

Each URL gets a sync saver (``send``/``stream`` on graphs without async nodes, ``get_state``) and,
for async turns, an async saver on the same storage (``AsyncSqliteSaver`` / ``AsyncPostgresSaver``),
opened on the runtime's turn loop. The in-memory saver serves both.
"""

from __future__ import annotations

import sqlite3

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from .errors import ConfigError, ServiceUnavailableError, redact_url
from .store import POSTGRES_PREFIXES, sqlite_path

PG_CONNECTION_KWARGS = {"autocommit": True, "prepare_threshold": 0}


def _check_url(url: str) -> None:
    if url == "memory" or url.startswith(POSTGRES_PREFIXES) or url.startswith("sqlite:") or "://" not in url:
        return
    raise ConfigError(
        f"unsupported CHECKPOINT_URL {redact_url(url)!r}: use sqlite:///path, postgresql://... or memory"
    )


def open_checkpointer(url: str) -> BaseCheckpointSaver:
    """Sessions are threads on this checkpointer, so a session survives a process restart."""
    _check_url(url)
    if url == "memory":
        return InMemorySaver()
    if url.startswith(POSTGRES_PREFIXES):
        return _open_postgres(url)
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = sqlite_path(url)
    try:
        conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA secure_delete=ON")  # a deleted thread leaves no bytes behind
    except sqlite3.Error as exc:
        raise ServiceUnavailableError(f"cannot open checkpoint database {str(path)!r}: {exc}") from exc
    saver = SqliteSaver(conn)
    saver.setup()
    return saver


async def open_async_checkpointer(url: str) -> BaseCheckpointSaver:
    """The async twin of :func:`open_checkpointer`, bound to the running loop (call it on the turn loop)."""
    _check_url(url)
    if url.startswith(POSTGRES_PREFIXES):
        return await _open_async_postgres(url)
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = sqlite_path(url)
    try:
        conn = await aiosqlite.connect(path, timeout=30)
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA secure_delete=ON")
    except sqlite3.Error as exc:
        raise ServiceUnavailableError(f"cannot open checkpoint database {str(path)!r}: {exc}") from exc
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    return saver


def _postgres_missing(exc: ImportError) -> ConfigError:
    return ConfigError(f"the Postgres checkpointer is not installed ({exc.name}): pip install 'graphagents[postgres]'")


def _unavailable(url: str, exc: BaseException) -> ServiceUnavailableError:
    first = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    return ServiceUnavailableError(f"cannot use PostgreSQL checkpointer at {redact_url(url)}: {first}")


def _open_postgres(url: str) -> BaseCheckpointSaver:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise _postgres_missing(exc) from exc
    pool: ConnectionPool = ConnectionPool(
        url, min_size=1, max_size=8, kwargs={**PG_CONNECTION_KWARGS, "row_factory": dict_row}, open=False
    )
    try:
        pool.open(wait=True, timeout=5)
        saver = PostgresSaver(pool)  # type: ignore[arg-type]
        saver.setup()
    except Exception as exc:
        pool.close()
        raise _unavailable(url, exc) from exc
    return saver


async def _open_async_postgres(url: str) -> BaseCheckpointSaver:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise _postgres_missing(exc) from exc
    pool: AsyncConnectionPool = AsyncConnectionPool(
        url, min_size=1, max_size=8, kwargs={**PG_CONNECTION_KWARGS, "row_factory": dict_row}, open=False
    )
    try:
        await pool.open(wait=True, timeout=5)
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
    except Exception as exc:
        await pool.close()
        raise _unavailable(url, exc) from exc
    return saver


async def aclose_saver(saver: BaseCheckpointSaver) -> None:
    """Close what an async saver holds (aiosqlite connection or async pool)."""
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if close is not None:
        result = close()
        if hasattr(result, "__await__"):
            await result


def close_saver(saver: BaseCheckpointSaver) -> None:
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if callable(close):
        close()
