"""Work on untrusted input (an uploaded file) in a child process with CPU, memory and wall limits.

Parsing a hostile file is the one request a user can make cost minutes of CPU or gigabytes of
memory with a few kilobytes (a CSV of 100,000 columns, a SQLite view of ``randomblob``, an XLSX
that expands four hundred times). Limits checked while reading stop the known shapes; this
module is the backstop for the unknown ones:

* each run is a fresh child forked from a fork server that has pandas and the readers loaded
  (about 10 ms, not a second's import), with ``RLIMIT_CPU``, ``RLIMIT_AS`` and a wall deadline;
  a child over any of them is killed and its memory goes back to the system with it, so the
  server's own memory stays where it was;
* runs take a slot in the runner's own pool (threads and processes that turns never use), with
  a bounded queue behind it (:class:`~graphagents.errors.BusyError`, 503 with Retry-After, past it);
* :func:`cancel_all` kills every running child: the server calls it on SIGTERM/SIGINT so that a
  shutdown never waits for a parse;
* the child answers with JSON only (never a pickle): a child that a hostile file somehow took
  over can send bytes that fail to parse, not objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import json
import logging
import multiprocessing
import multiprocessing.context
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.connection import Connection, wait
from multiprocessing.context import set_spawning_popen  # type: ignore[attr-defined]
from typing import Any, TypeVar

from .errors import BusyError, GraphAgentsError, InputError

__all__ = ["IsolatedRunner", "LimitExceeded", "ProcessLimits", "cancel_all", "install_shutdown_hook"]

log = logging.getLogger("graphagents.isolation")
T = TypeVar("T")

_MAX_ANSWER = 1 << 20  # the child's JSON answer: ids, shapes and messages, never data


class LimitExceeded(InputError):
    """The work went over a CPU, memory or time limit and was stopped (HTTP 413)."""


@dataclass(frozen=True)
class ProcessLimits:
    """Limits of one child: wall seconds, CPU seconds, and address space in MB on top of what the
    fork server holds already (pandas and the readers)."""

    seconds: float = 20.0
    cpu_seconds: float = 20.0
    memory_mb: int = 1024

    def __post_init__(self) -> None:
        if self.seconds <= 0 or self.cpu_seconds <= 0 or self.memory_mb < 64:
            raise ValueError("process limits must be positive (memory_mb at least 64)")


class IsolatedRunner:
    """Runs ``module:function`` in limited child processes, ``workers`` at a time, ``queue`` waiting.

    ``errors`` maps the names of exception classes a function may raise on purpose to the class
    the caller sees (a child's ``TableTooLarge`` comes back as ``TableTooLarge``); any other
    :class:`GraphAgentsError` comes back as :class:`InputError`, anything else as a one-line
    "could not be read" without the child's text.
    """

    def __init__(self, name: str, *, workers: int = 2, queue: int = 8, preload: Sequence[str] = (),
                 errors: Mapping[str, type[GraphAgentsError]] | None = None) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("workers must be at least 1 and queue at least 0")
        self.name = name
        self.workers = workers
        self.queue = queue
        self.preload = tuple(preload)
        self.errors = dict(errors or {})
        self._slots = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self._admitted = 0
        self._calls = 0  # acall()s in flight: each has a thread of its own
        self._live: dict[int, Any] = {}
        self._closing = False
        self._executor: ThreadPoolExecutor | None = None
        self.started = 0
        self.killed = 0
        _RUNNERS.append(self)

    # -- running --------------------------------------------------------------------------------

    async def acall(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on one of this runner's own threads (never the event loop's
        default executor, which turns use); ``fn`` calls :meth:`run` for the isolated part. A call
        beyond ``workers + queue`` in flight is refused at once (BusyError), never queued unseen."""
        with self._lock:
            if self._closing:
                raise BusyError("the server is shutting down; send the file again in a moment", scope="server",
                                retry_after=5)
            if self._calls >= self.workers + self.queue:
                raise BusyError(f"too many {self.name} at once; send it again in a few seconds", scope="server",
                                retry_after=2)
            self._calls += 1

        def call() -> T:
            try:
                return fn(*args, **kwargs)
            finally:  # counted down by the thread: a request cancelled meanwhile still holds its slot
                with self._lock:
                    self._calls -= 1

        try:
            future = asyncio.get_running_loop().run_in_executor(self._threads(), call)
        except BaseException:
            with self._lock:
                self._calls -= 1
            raise
        return await future

    def run(self, target: str, *args: Any, limits: ProcessLimits | None = None) -> Any:
        """Call ``target`` (``"package.module:function"``, JSON-able args and result) in a child
        under ``limits``, waiting for a slot first; BusyError when too many wait already."""
        limits = limits or ProcessLimits()
        self._admit()
        try:
            return self._run(target, args, limits)
        finally:
            self._slots.release()
            with self._lock:
                self._admitted -= 1

    def _admit(self) -> None:
        with self._lock:
            if self._closing:
                raise BusyError("the server is shutting down; send the file again in a moment", scope="server",
                                retry_after=5)
            if self._admitted >= self.workers + self.queue:
                raise BusyError(f"too many {self.name} at once; send it again in a few seconds", scope="server",
                                retry_after=2)
            self._admitted += 1  # running or waiting for a slot
        try:
            self._slots.acquire()
        except BaseException:
            with self._lock:
                self._admitted -= 1
            raise

    def _run(self, target: str, args: tuple[Any, ...], limits: ProcessLimits) -> Any:
        ctx = _context(self.preload)
        receive, send = ctx.Pipe(duplex=False)
        proc = _Process(target=_child, args=(send, target, args, asdict(limits)), daemon=True,
                        name=f"ga-{self.name}")
        try:
            with self._lock:
                if self._closing:
                    raise BusyError("the server is shutting down; send the file again in a moment", scope="server",
                                    retry_after=5)
                proc.start()
                self._live[id(proc)] = proc
                self.started += 1
        except BaseException:
            receive.close()
            raise
        finally:
            send.close()
        started = time.monotonic()
        try:
            answer = _wait_answer(receive, proc, started + limits.seconds)
        finally:
            receive.close()
            code = _finish(proc)
            with self._lock:
                self._live.pop(id(proc), None)
        if answer is None:
            return self._stopped(code, limits, time.monotonic() - started)
        return self._answer(answer)

    def _stopped(self, code: int | None, limits: ProcessLimits, elapsed: float) -> Any:
        if self._closing:
            raise BusyError("the server is shutting down; send the file again in a moment", scope="server",
                            retry_after=5)
        if code is None or elapsed >= limits.seconds:
            self.killed += 1
            raise LimitExceeded(f"reading it took longer than {limits.seconds:g} s and was stopped; "
                                "give a smaller or simpler file")
        if code == -signal.SIGXCPU:
            raise LimitExceeded(f"reading it needed more than {limits.cpu_seconds:g} s of CPU and was stopped; "
                                "give a smaller or simpler file")
        if code in (-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS):
            raise LimitExceeded(f"reading it needed more than {limits.memory_mb} MB of memory and was stopped; "
                                "give a smaller file")
        log.warning("isolated %s child ended without an answer (exit %s)", self.name, code)
        raise InputError("the file could not be read (its reader stopped without an answer)")

    def _answer(self, raw: bytes) -> Any:
        try:
            answer = json.loads(raw)
        except ValueError:
            raise InputError("the file could not be read (its reader answered garbage)") from None
        if not isinstance(answer, dict):
            raise InputError("the file could not be read (its reader answered garbage)")
        if answer.get("ok") is True:
            return answer.get("value")
        kind = answer.get("kind")
        message = " ".join(str(answer.get("message", "")).split())[:500]
        if kind == "memory":
            raise LimitExceeded("reading it needed more memory than allowed and was stopped; give a smaller file")
        names = [str(k) for k in kind] if isinstance(kind, list) else []
        for name in names:  # the most derived class the caller knows
            if name in self.errors:
                raise self.errors[name](message)
            if name == "LimitExceeded":
                raise LimitExceeded(message)
        if "GraphAgentsError" in names:
            raise InputError(message)
        log.warning("isolated %s child failed: %s", self.name, str(kind)[:80])
        raise InputError("the file could not be read (its reader failed)")

    # -- lifecycle ------------------------------------------------------------------------------

    def cancel_all(self) -> int:
        """Kill every running child and refuse new runs (the process is shutting down)."""
        with self._lock:
            self._closing = True
            live = list(self._live.values())
        for proc in live:
            with contextlib.suppress(Exception):
                proc.kill()
        return len(live)

    def reopen(self) -> None:
        """Take runs again after :meth:`cancel_all` (tests; a server that did not stop after all)."""
        with self._lock:
            self._closing = False

    @property
    def running(self) -> int:
        with self._lock:
            return len(self._live)

    def warm(self) -> None:
        """Start the fork server now (pandas and the readers loaded) rather than on the first run."""
        _context(self.preload)

    def _threads(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.workers + self.queue, thread_name_prefix=f"ga-{self.name}")
            return self._executor


_RUNNERS: list[IsolatedRunner] = []


def cancel_all() -> int:
    """Kill the running children of every runner in this process; returns how many."""
    return sum(runner.cancel_all() for runner in list(_RUNNERS))


def install_shutdown_hook() -> bool:
    """Chain :func:`cancel_all` in front of the current SIGTERM and SIGINT handlers (the server's:
    uvicorn waits for running requests before it stops, and a parse must not make it wait).
    Only the main thread may set handlers; False elsewhere."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        if getattr(previous, "_ga_cancels", False):
            continue

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            cancel_all()
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                signal.raise_signal(signum)

        handler._ga_cancels = True  # type: ignore[attr-defined]
        signal.signal(sig, handler)
    return True


# -- the processes --------------------------------------------------------------------------------

_context_lock = threading.Lock()
_SERVER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "ARROW_DEFAULT_MEMORY_POOL": "system"}
_preloaded: tuple[str, ...] | None = None


def _context(preload: Sequence[str]) -> Any:
    """The fork-server context; its server preloads the boot module (thread and allocator settings
    before numpy and pyarrow load) and the runners' modules."""
    global _preloaded
    ctx = multiprocessing.get_context("forkserver")  # the process's one fork server; only the runners use it
    with _context_lock:
        wanted = tuple(dict.fromkeys((*(_preloaded or (__name__,)), *preload)))
        if wanted != _preloaded:
            ctx.set_forkserver_preload(list(wanted))
            _preloaded = wanted
        saved = {name: os.environ.get(name) for name in _SERVER_ENV}
        os.environ.update(_SERVER_ENV)  # what the fork server starts with (it is started once, here)
        try:
            forkserver.ensure_running()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return ctx


class _Popen(popen_forkserver.Popen):
    """The fork server's launch, minus the main-module fixup: a child would otherwise import the
    parent's ``__main__`` script again (pytest, the ``graphagents`` script: seconds per run) to run
    a function that lives in a package anyway."""

    def _launch(self, process_obj: Any) -> None:
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)  # type: ignore[attr-defined]
        parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, util.close_fds, (parent_w, self.sentinel))  # type: ignore[attr-defined]
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


# _Popen reuses multiprocessing's private launch steps (unchanged from Python 3.4 to 3.13); where a
# Python lacks them, the standard launch runs instead (correct, only slower to start a child)
_LAUNCH_INTERNALS = (all(hasattr(forkserver, n) for n in ("connect_to_new_process", "read_signed"))
                     and hasattr(spawn, "get_preparation_data") and hasattr(util, "close_fds"))


class _Process(multiprocessing.context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        return _Popen(process_obj) if _LAUNCH_INTERNALS else popen_forkserver.Popen(process_obj)


def _wait_answer(receive: Connection, proc: Any, deadline: float) -> bytes | None:
    """The child's answer, or None when it ended without one or ran past the deadline (killed)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            with contextlib.suppress(Exception):
                proc.kill()
            return None
        ready = wait([receive, proc.sentinel], timeout=left)
        if receive in ready:
            try:
                return receive.recv_bytes(_MAX_ANSWER)
            except (EOFError, OSError):
                return None
        if proc.sentinel in ready:
            if receive.poll(0):
                continue
            return None


def _finish(proc: Any) -> int | None:
    """Reap the child (killed when it lingers); its exit code (negative: the signal that ended it)."""
    proc.join(2)
    if proc.is_alive():
        with contextlib.suppress(Exception):
            proc.kill()
        proc.join(5)
    code = proc.exitcode
    with contextlib.suppress(Exception):
        proc.close()
    return code


def _child(send: Connection, target: str, args: tuple[Any, ...], limits: dict[str, Any]) -> None:
    """The child's body: limits first, then the call; one JSON answer; exit."""
    try:
        _limit(limits)
        module, _, name = target.partition(":")
        value = getattr(importlib.import_module(module), name)(*args)
        answer: dict[str, Any] = {"ok": True, "value": value}
    except MemoryError:
        answer = {"ok": False, "kind": "memory"}
    except GraphAgentsError as exc:
        answer = {"ok": False, "kind": [c.__name__ for c in type(exc).__mro__], "message": str(exc)}
    except BaseException as exc:
        answer = {"ok": False, "kind": type(exc).__name__}
    try:
        send.send_bytes(json.dumps(answer, ensure_ascii=False, default=str).encode())
    except BaseException:
        os._exit(71)
    send.close()
    os._exit(0)


def _limit(limits: dict[str, Any]) -> None:
    cpu = max(1, int(float(limits["cpu_seconds"]) + 0.999))
    with open("/proc/self/statm") as fh:
        vm = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    memory = vm + int(limits["memory_mb"]) * (1 << 20)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(5)  # a parse yields to turns when the cores are busy
