"""Open the LangGraph checkpointer named by a URL: SQLite file, PostgreSQL, or memory.

Each URL gets a sync saver (``send``/``stream`` on graphs without async nodes, ``get_state``) and,
for async turns, an async one. PostgreSQL has a real async saver (LangGraph's
``AsyncPostgresSaver`` made cheaper per call, :mod:`graphagents._pg_checkpoint`), opened on the
runtime's turn loop. A SQLite file and memory have one saver for both: :class:`SqliteCheckpointer`
answers the async calls inline, because a local SQLite read or write takes well under a
millisecond, and handing each one to aiosqlite's thread cost more than the query itself (about a
third of a turn's CPU, see bench/server_load.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from .errors import ConfigError, ServiceUnavailableError, redact_url
from .store import POSTGRES_PREFIXES, sqlite_path

PG_CONNECTION_KWARGS = {"autocommit": True, "prepare_threshold": 0}


class TurnReads:
    """What a saver may keep of the thread a turn runs on, for that turn only: the head checkpoint
    of each of its namespaces (in the saver's own form), a count of the writes to it (so that a
    read that started before a write does not store an older head over the one that write left),
    the checkpoints and writes the saver has not stored yet, and the connection the turn holds (its
    session lock's), if any.

    A saver that holds them back registers a flush (:meth:`hold_back`): it runs when the turn ends
    (:func:`turn_reads`), when the runtime or a read asks (:meth:`flush`), and, for what waited
    longer than ``linger`` seconds (a long step), in the background."""

    def __init__(self, thread_id: str, conn: Any = None, linger: float = 1.0) -> None:
        self.thread_id = thread_id  # the one thread the turn's lock keeps other writers off
        self.conn = conn  # an async connection to the checkpoint database held for the turn, or None
        self.linger = linger  # seconds a saver may hold writes back (0: it sends each at once)
        self.heads: dict[tuple[str, str], Any] = {}  # (thread id, namespace) -> head
        self.generation: dict[tuple[str, str], int] = {}
        self.early: dict[tuple[str, str, str], Any] = {}  # writes that committed before their checkpoint
        self.pending: dict[tuple[str, str], Any] = {}  # (thread id, namespace) -> what the saver holds back
        self._flush: Callable[[bool], Awaitable[None]] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Task[None]] = set()

    def changed(self, key: tuple[str, str], head: Any = None) -> None:
        """A write to ``key`` committed (``head``: the thread's head now) or failed (None: unknown)."""
        self.generation[key] = self.generation.get(key, 0) + 1
        if head is None:
            self.heads.pop(key, None)
        else:
            self.heads[key] = head

    def hold_back(self, flush: Callable[[bool], Awaitable[None]]) -> None:
        """A saver put something in :attr:`pending`; ``flush(background)`` stores it."""
        self._flush = flush
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.linger, self._in_background)

    def took(self) -> None:
        """A saver took what it held back into a statement: the linger restarts with the next hold."""
        if self._timer is not None and not any(self.pending.values()):
            self._timer.cancel()
            self._timer = None

    def _in_background(self) -> None:
        self._timer = None
        if self._flush is not None and any(self.pending.values()):
            task = asyncio.ensure_future(self._flush(True))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def flush(self) -> None:
        """Store what is held back, after any background store in flight (an error is the caller's:
        what was held back is dropped)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        if self._flush is not None and any(self.pending.values()):
            await self._flush(False)


_turn_reads: ContextVar[TurnReads | None] = ContextVar("graphagents_turn_reads", default=None)


@asynccontextmanager
async def turn_reads(thread_id: str, conn: Any = None, linger: float = 1.0) -> AsyncIterator[TurnReads]:
    """Let the saver answer reads of a thread's latest checkpoint from what this turn last read or
    wrote (the PostgreSQL saver does; one query a turn instead of three), hold a run's checkpoints
    and writes back to store them together (for up to ``linger`` seconds; 0: never), and run its
    statements on ``conn`` (a connection the turn holds, or None for the saver's pool). Open it
    only while nothing else can write the thread: the runtime holds the session's lock, across
    processes. What is still held back is stored before it closes. Other threads a turn reads
    (another session's, say) are read from the database as usual."""
    reads = TurnReads(thread_id, conn, linger)
    token = _turn_reads.set(reads)
    try:
        try:
            yield reads
        except BaseException:
            with contextlib.suppress(Exception):  # the turn's own error is the one to report
                await reads.flush()
            raise
        await reads.flush()
    finally:
        _turn_reads.reset(token)


async def flush_turn_writes() -> None:
    """Store what the current turn's saver holds back (a no-op outside a turn)."""
    reads = _turn_reads.get()
    if reads is not None:
        await reads.flush()


def current_turn_reads(thread_id: str) -> TurnReads | None:
    """The reads the current turn keeps of ``thread_id``, if it keeps that thread's."""
    reads = _turn_reads.get()
    return reads if reads is not None and reads.thread_id == thread_id else None


class SqliteCheckpointer(SqliteSaver):
    """LangGraph's ``SqliteSaver`` whose async methods run the sync ones inline.

    The connection is in WAL mode with ``synchronous=NORMAL``: a killed process loses nothing it
    committed; only a power cut or an OS crash can take back the last commits (SQLite's documented
    trade-off for WAL). The saver's own lock keeps sync callers in other threads and the turn loop
    off each other; a call blocks the turn loop for the length of one local query."""

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
                    before: RunnableConfig | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
                   new_versions: ChannelVersions) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    async def aget_delta_channel_history(self, *, config: RunnableConfig,
                                         channels: Sequence[str]) -> Mapping[str, Any]:
        return self.get_delta_channel_history(config=config, channels=channels)


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
    path = sqlite_path(url)
    try:
        conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # durable against a killed process (see SqliteCheckpointer)
        conn.execute("PRAGMA secure_delete=ON")  # a deleted thread leaves no bytes behind
    except sqlite3.Error as exc:
        raise ServiceUnavailableError(f"cannot open checkpoint database {str(path)!r}: {exc}") from exc
    saver = SqliteCheckpointer(conn)
    saver.setup()
    return saver


async def open_async_checkpointer(url: str) -> BaseCheckpointSaver:
    """The async saver of a PostgreSQL ``url``, bound to the running loop (call it on the turn loop).
    SQLite and memory need none: their sync saver answers async calls too."""
    _check_url(url)
    if not url.startswith(POSTGRES_PREFIXES):
        raise ConfigError("only a PostgreSQL checkpointer has a separate async saver")
    return await _open_async_postgres(url)


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
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        from ._pg_checkpoint import InlinePostgresSaver
    except ImportError as exc:
        raise _postgres_missing(exc) from exc
    pool: AsyncConnectionPool = AsyncConnectionPool(
        url, min_size=1, max_size=8, kwargs={**PG_CONNECTION_KWARGS, "row_factory": dict_row}, open=False
    )
    try:
        await pool.open(wait=True, timeout=5)
        saver = InlinePostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
    except Exception as exc:
        await pool.close()
        raise _unavailable(url, exc) from exc
    return saver


async def aclose_saver(saver: BaseCheckpointSaver) -> None:
    """Close what an async saver holds (its async pool)."""
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
