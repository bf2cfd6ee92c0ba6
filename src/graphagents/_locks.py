"""One lock per session: turns of a session run one after the other, whichever API started them.

A sync caller (``send``) blocks its own thread; an async caller (``asend``) waits on the turn loop
without holding any thread, so a queue of messages for one busy session costs no workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Iterator


class TurnLock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._guard = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def locked(self) -> bool:
        return self._lock.locked()

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


class SessionLocks:
    """The TurnLock of each session of one agent in this process."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, TurnLock] = {}

    def __call__(self, session_id: str) -> TurnLock:
        with self._guard:
            lock = self._locks.get(session_id)
            if lock is None:
                lock = self._locks[session_id] = TurnLock()
            return lock
