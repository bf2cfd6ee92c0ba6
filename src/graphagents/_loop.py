"""The turn loop: one event loop in a daemon thread that runs every async turn of the process.

Async turns (``Session.astream``/``asend``, and ``send``/``stream`` on graphs with async nodes) run
here with ``graph.astream``: async nodes are awaited on this loop, sync nodes run in this loop's own
thread pool (``Settings.turn_workers`` threads), never in the executor of the caller's loop that
``asyncio.to_thread`` shares. Async checkpointers are bound to this loop, so they work whichever
loop (or thread) the caller uses, including a new loop per test.

``graphagents serve`` makes the server's own loop the turn loop (:func:`adopt`): a request's turn
then runs on the loop that serves it, with no hop between threads for the turn or its events
(about an eighth of a turn's CPU in bench/server_load.py). Only a loop that lives as long as the
process may be adopted.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def turn_loop(workers: int = 8) -> asyncio.AbstractEventLoop:
    """The process's turn loop, started on first use (``workers`` sizes its pool then)."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            loop.set_default_executor(ThreadPoolExecutor(workers, thread_name_prefix="graphagents-turn"))
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            thread = threading.Thread(target=run, name="graphagents-turn-loop", daemon=True)
            thread.start()
            ready.wait()
            atexit.register(_stop, loop, thread)
            _loop = loop
        return _loop


def _stop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """At exit, end what still runs on this process's own turn loop (connection pools' workers) and
    stop it: left to the interpreter's teardown, each pending task printed "Task was destroyed but
    it is pending!" after every CLI command on PostgreSQL. A turn's stores end with the turn, so
    nothing a caller was answered is pending here."""
    if loop.is_closed() or not loop.is_running() or not thread.is_alive():
        return

    async def cancel_all() -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)

    try:
        asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout=3)
    except Exception:  # a wedged loop: the interpreter's teardown takes it as before
        return
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=2)
    if not thread.is_alive():
        loop.close()


def adopt(loop: asyncio.AbstractEventLoop, workers: int = 8) -> bool:
    """Make ``loop`` (running in the caller's thread) the turn loop, with a pool of ``workers``
    threads for sync nodes. False, and nothing changes, when another turn loop already runs."""
    global _loop
    with _lock:
        if _loop is not None and not _loop.is_closed() and _loop is not loop:
            return False
        loop.set_default_executor(ThreadPoolExecutor(workers, thread_name_prefix="graphagents-turn"))
        _loop = loop
        return True


def submit(coro: Coroutine[Any, Any, T], workers: int = 8) -> Future[T]:
    """Schedule ``coro`` on the turn loop from any thread that is not the turn loop itself."""
    return asyncio.run_coroutine_threadsafe(coro, turn_loop(workers))


def run(coro: Coroutine[Any, Any, T], workers: int = 8) -> T:
    """Run ``coro`` on the turn loop and wait for its result (from a thread other than the loop's)."""
    return submit(coro, workers).result()


def on_turn_loop() -> bool:
    try:
        return asyncio.get_running_loop() is _loop
    except RuntimeError:
        return False
