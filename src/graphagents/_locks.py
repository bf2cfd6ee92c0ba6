"""One lock per session: turns of a session run one after the other, whichever API, process or
machine started them.

Two layers:

* in this process, a :class:`TurnLock` per session. A sync caller (``send``) blocks its own
  thread; an async caller (``asend``/the server) waits on the turn loop without holding any
  thread, so a queue of messages for one busy session costs no workers. The map of locks keeps a
  session only while someone holds or waits for it.
* across processes, when the checkpointer is shared: a PostgreSQL advisory lock on the thread id
  (when the checkpointer is Postgres) or a Redis lock (when ``CACHE_URL`` is Redis). Only the one
  turn of this process that holds the in-process lock asks for it, so waiting costs one connection
  per busy session at most. A Postgres advisory lock dies with its connection, a Redis lock with
  its lease (renewed while the turn runs), so a killed process never leaves a session locked.

Every wait is bounded: ``BusyError`` (scope ``"session"``) when the session stays busy longer than
the wait allows, scope ``"queue"`` at once when too many messages already wait for it here, scope
``"server"`` when every Postgres lock connection (``TURN_CONNECTIONS``) holds a running turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol

from . import _loop
from .errors import BusyError, ServiceUnavailableError, redact_url
from .store import POSTGRES_PREFIXES

__all__ = ["FileLocks", "PostgresLocks", "RedisLocks", "SessionLocks", "SharedLocks", "TurnLock", "session_locks_for",
           "shared_locks_for"]


class TurnLock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._guard = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def locked(self) -> bool:
        return self._lock.locked()

    def acquire(self, timeout: float | None = None) -> bool:
        return self._lock.acquire(timeout=-1 if timeout is None else max(timeout, 0))

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        self._lock.acquire()
        try:
            yield
        finally:
            self.release()

    @contextlib.asynccontextmanager
    async def ahold(self) -> AsyncIterator[None]:
        await self.aacquire()
        try:
            yield
        finally:
            self.release()

    async def aacquire(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._lock.acquire(blocking=False):
            waiter: asyncio.Future[None] = loop.create_future()
            entry = (loop, waiter)
            with self._guard:
                self._waiters.append(entry)
            try:
                # The holder may have released between our try and our registration: check again.
                if self._lock.acquire(blocking=False):
                    return
                await waiter
            finally:
                with self._guard, contextlib.suppress(ValueError):
                    self._waiters.remove(entry)

    def release(self) -> None:
        self._lock.release()
        with self._guard:
            waiters, self._waiters = self._waiters, []
        for loop, waiter in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: its waiter is gone too
                loop.call_soon_threadsafe(_wake, waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


# -- across processes ------------------------------------------------------------------------------


class SharedLocks(Protocol):
    """A lock per key that holds across processes; ``acquire`` returns a token for ``release``.
    Both run on the turn loop."""

    name: str

    async def acquire(self, key: str, timeout: float) -> Any: ...

    async def release(self, key: str, token: Any) -> None: ...

    async def ping(self) -> None: ...

    def connection(self, token: Any) -> Any:
        """The async database connection a held lock keeps (the turn may run its statements on
        it), or None."""


def advisory_key(key: str) -> int:
    """A stable signed 64-bit key for ``pg_advisory_lock`` (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8, person=b"ga-turn").digest(), "big",
                          signed=True)


class PostgresLocks:
    """Session-level advisory locks, one pooled connection per held lock (the turn runs its
    checkpoint statements on it). ``max_size`` bounds the turns of a process that hold one at a time;
    more wait for a connection, in order, within the session wait."""

    name = "postgres"

    def __init__(self, url: str, max_size: int = 16) -> None:
        self.url = url
        self.max_size = max_size
        self._pool: Any = None
        self._refused_at = -1e9  # when a turn last waited in vain for a connection (monotonic)

    async def _get_pool(self) -> Any:
        if self._pool is None:
            from psycopg_pool import AsyncConnectionPool

            from . import _pg_arrays

            _pg_arrays.register()  # the turn's checkpoint statements run on these connections

            # prepared like the checkpointer's: the turn runs the saver's statements on this connection
            pool = AsyncConnectionPool(self.url, min_size=1, max_size=self.max_size, open=False,
                                       kwargs={"autocommit": True, "prepare_threshold": 0})
            try:
                await pool.open(wait=True, timeout=5)
            except Exception as exc:
                await pool.close()
                raise ServiceUnavailableError(
                    f"cannot reach PostgreSQL for session locks at {redact_url(self.url)}") from exc
            if self._pool is None:
                self._pool = pool
            else:
                await pool.close()
        return self._pool

    async def acquire(self, key: str, timeout: float) -> Any:
        pool = await self._get_pool()
        deadline = time.monotonic() + timeout
        try:
            conn = await pool.getconn(timeout=max(timeout, 0.1))
        except Exception as exc:
            if self.in_use() < self.max_size:  # room for a connection and none came: the database is away
                raise ServiceUnavailableError(
                    f"cannot reach PostgreSQL for session locks at {redact_url(self.url)}") from exc
            # every connection holds a running turn: the process is full, not the session
            self._refused_at = time.monotonic()
            raise BusyError(f"the server is running as many turns as it has database connections for "
                            f"(TURN_CONNECTIONS={self.max_size}); retry shortly",
                            scope="server", retry_after=max(1, round(timeout / 4))) from exc
        lock_id, pause = advisory_key(key), 0.005
        try:
            while True:
                cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (lock_id,))
                row = await cur.fetchone()
                if row and row[0]:
                    return conn
                if time.monotonic() >= deadline:
                    raise _busy(timeout)
                await asyncio.sleep(min(pause, max(deadline - time.monotonic(), 0)))
                pause = min(pause * 2, 0.05)
        except BaseException:
            await pool.putconn(conn)
            raise

    def connection(self, token: Any) -> Any:
        return token  # the connection that holds the advisory lock, for the holder's turn only

    async def release(self, key: str, token: Any) -> None:
        pool = await self._get_pool()
        try:
            await token.execute("SELECT pg_advisory_unlock(%s)", (advisory_key(key),))
        except Exception:  # the connection broke: the server dropped the lock with it
            with contextlib.suppress(Exception):
                await token.close()
        await pool.putconn(token)

    def in_use(self) -> int:
        """Connections holding a running turn's lock now (at most ``max_size``)."""
        if self._pool is None:
            return 0
        stats = self._pool.get_stats()
        return int(stats.get("pool_size", 0)) - int(stats.get("pool_available", 0))

    def refusing(self, within: float = 5.0) -> bool:
        """Every connection runs a turn and a turn waited in vain for one lately: this process turns
        messages away (busy alone is not that: under load turns wait a few milliseconds for one)."""
        return self.in_use() >= self.max_size and time.monotonic() - self._refused_at < within

    async def ping(self) -> None:
        pool = await self._get_pool()
        if self.in_use() >= self.max_size:
            return  # every connection is running a turn: PostgreSQL answers; /readyz says the process is full
        async with pool.connection(timeout=2) as conn:
            await conn.execute("SELECT 1")

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()


class RedisLocks:
    """``SET NX PX`` locks with a lease renewed while the turn runs (a killed process's lock lapses)."""

    name = "redis"

    def __init__(self, url: str, lease: float = 30.0) -> None:
        self.url = url
        self.lease = lease
        self._client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            import redis.asyncio as aredis

            self._client = aredis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
        return self._client

    async def acquire(self, key: str, timeout: float) -> Any:
        lock = self._redis().lock(f"graphagents:turn:{key}", timeout=self.lease, sleep=0.01,
                                  blocking_timeout=max(timeout, 0.01))
        try:
            got = await lock.acquire()
        except Exception as exc:
            raise ServiceUnavailableError(f"cannot reach Redis for session locks at {redact_url(self.url)}") from exc
        if not got:
            raise _busy(timeout)
        renew = asyncio.ensure_future(self._renew(lock))
        return lock, renew

    async def _renew(self, lock: Any) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(Exception):
                await lock.reacquire()

    async def release(self, key: str, token: Any) -> None:
        lock, renew = token
        renew.cancel()
        with contextlib.suppress(Exception):  # the lease lapsed: nothing to release
            await lock.release()

    def connection(self, token: Any) -> Any:
        return None

    async def ping(self) -> None:
        await self._redis().ping()


class FileLocks:
    """POSIX record locks on one file beside a SQLite checkpointer: one byte per session (at a
    62-bit hash of its key), so server processes on one machine share the file's sessions safely.
    The kernel drops a dead process's locks. One descriptor stays open for the process's life
    (closing any descriptor of the file would drop every lock this process holds on it)."""

    name = "file"

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._guard = threading.Lock()

    def _file(self) -> int:
        with self._guard:
            if self._fd is None:
                import os

                os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            return self._fd

    @staticmethod
    def _offset(key: str) -> int:
        return advisory_key(key) & ((1 << 62) - 1)

    async def acquire(self, key: str, timeout: float) -> Any:
        import fcntl

        # the first use creates the file: off the event loop (the lock calls themselves never wait)
        fd, offset = self._fd if self._fd is not None else await asyncio.to_thread(self._file), self._offset(key)
        deadline, pause = time.monotonic() + timeout, 0.002
        while True:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
                return offset
            except OSError:
                if time.monotonic() >= deadline:
                    raise _busy(timeout) from None
            await asyncio.sleep(min(pause, max(deadline - time.monotonic(), 0)))
            pause = min(pause * 2, 0.05)

    async def release(self, key: str, token: Any) -> None:
        import fcntl

        fcntl.lockf(self._file(), fcntl.LOCK_UN, 1, token)

    def connection(self, token: Any) -> Any:
        return None

    async def ping(self) -> None:
        if self._fd is None:
            await asyncio.to_thread(self._file)


def _busy(waited: float) -> BusyError:
    return BusyError(f"this session is busy with another message (waited {waited:.0f} s); retry shortly",
                     scope="session", retry_after=max(1, round(waited / 4)))


_shared_guard = threading.Lock()
_shared: dict[str, SharedLocks] = {}


def shared_locks_for(checkpoint_url: str, cache_url: str | None, lease: float = 30.0,
                     connections: int = 16) -> SharedLocks | None:
    """The cross-process lock for a deployment: a Postgres advisory lock when the checkpointer is
    Postgres, else Redis when the cache is, else a lock file beside a SQLite checkpointer (the
    processes of one machine), else none (an in-memory checkpointer lives in one process)."""
    with _shared_guard:
        if checkpoint_url.startswith(POSTGRES_PREFIXES):
            key = f"pg:{checkpoint_url}"
            if key not in _shared:
                _shared[key] = PostgresLocks(checkpoint_url, max_size=connections)
        elif cache_url and cache_url.startswith(("redis://", "rediss://", "unix://")):
            key = f"redis:{cache_url}"
            if key not in _shared:
                _shared[key] = RedisLocks(cache_url, lease)
        elif checkpoint_url != "memory":
            from .store import sqlite_path

            path = f"{sqlite_path(checkpoint_url)}.turnlocks"
            key = f"file:{path}"
            if key not in _shared:
                _shared[key] = FileLocks(path)
        else:
            return None
        return _shared[key]


def forget_shared() -> None:
    """Drop the shared lock clients (tests simulate a fresh process); their connections close on the loop."""
    with _shared_guard:
        locks = list(_shared.values())
        _shared.clear()
    for lock in locks:
        close = getattr(lock, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                _loop.run(close())


# -- the per-agent map ----------------------------------------------------------------------------


_local_guard = threading.Lock()
_local: dict[str, tuple[TurnLock, list[int]]] = {}
"""The in-process lock of each thread id, for the whole process: every agent instance and the
user-data eraser lock the same session the same way. An entry lives while someone holds or waits."""


class SessionLocks:
    """The turn locks of sessions: in this process and, when ``shared`` is set, across processes.
    ``wait`` bounds every wait (seconds); ``max_waiting`` bounds the messages queued for one session
    in this process."""

    def __init__(self, shared: SharedLocks | None = None, *, wait: float = 30.0, max_waiting: int = 8) -> None:
        self.shared = shared
        self.wait = wait
        self.max_waiting = max_waiting

    @staticmethod
    def active() -> int:
        """Sessions held or waited for in this process (the size of the lock map)."""
        with _local_guard:
            return len(_local)

    def _checkout(self, key: str) -> TurnLock:
        with _local_guard:
            entry = _local.get(key)
            if entry is None:
                entry = _local[key] = (TurnLock(), [0])
            if entry[1][0] > self.max_waiting:
                raise BusyError(f"{entry[1][0]} messages already wait for this session; retry after the reply",
                                scope="queue", retry_after=2)
            entry[1][0] += 1
            return entry[0]

    @staticmethod
    def _checkin(key: str) -> None:
        with _local_guard:
            entry = _local.get(key)
            if entry is not None:
                entry[1][0] -= 1
                if entry[1][0] <= 0:
                    del _local[key]  # nobody holds or waits: the map does not grow with sessions

    @contextlib.asynccontextmanager
    async def ahold(self, key: str) -> AsyncIterator[Any]:
        """Hold the session's turn lock (on the turn loop); BusyError when the wait runs out. Yields
        the database connection that holds the shared lock (see ``SharedLocks.connection``) or None."""
        lock = self._checkout(key)
        try:
            deadline = time.monotonic() + self.wait
            try:
                await asyncio.wait_for(lock.aacquire(), self.wait)
            except TimeoutError:
                raise _busy(self.wait) from None
            try:
                if self.shared is None:
                    yield None
                else:
                    token = await self.shared.acquire(key, max(deadline - time.monotonic(), 0.05))
                    try:
                        yield self.shared.connection(token)
                    finally:
                        await self.shared.release(key, token)
            finally:
                lock.release()
        finally:
            self._checkin(key)

    @contextlib.contextmanager
    def hold(self, key: str, wait: float | None = None) -> Iterator[None]:
        """The sync twin of :meth:`ahold` (blocks the caller's thread, never the turn loop's);
        ``wait`` overrides the bound of this one wait (seconds)."""
        limit = self.wait if wait is None else wait
        lock = self._checkout(key)
        try:
            deadline = time.monotonic() + limit
            if not lock.acquire(limit):
                raise _busy(limit)
            try:
                if self.shared is None:
                    yield
                else:
                    shared = self.shared
                    token = _loop.run(shared.acquire(key, max(deadline - time.monotonic(), 0.05)))
                    try:
                        yield
                    finally:
                        _loop.run(shared.release(key, token))
            finally:
                lock.release()
        finally:
            self._checkin(key)


def session_locks_for(settings: Any) -> SessionLocks:
    """The session locks for a deployment's settings (what turns and the user-data eraser share)."""
    shared = shared_locks_for(settings.resolved_checkpoint_url, settings.cache_url, settings.session_lock_lease,
                              settings.turn_connections)
    return SessionLocks(shared, wait=settings.session_wait_seconds, max_waiting=settings.max_session_queue)
