"""The caller's side: a pool of long-lived sandbox workers and ``run_code``.

A worker is started once (interpreter + pandas + warm-up, about a second) and then serves runs
one at a time, forking a fresh child for each. Tables travel as Arrow IPC bytes only when the
worker does not have their id yet. A worker that stops answering, breaks the protocol or dies is
killed and replaced; generated code never runs in the worker itself, so a timeout or a memory
kill of a child leaves nothing poisoned behind.
"""

from __future__ import annotations

import atexit
import keyword
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from .codec import decode_value, frame_to_ipc, make_arrow_safe
from .policy import CodeRefused, parse_checked
from .protocol import FrameError, decode_body, encode_body, read_frame, unframe, write_frame
from .result import Limits, SandboxResult, describe_stop
from .store import ArtifactStore, get_store, table_id_for

__all__ = ["SandboxPool", "get_pool", "run_code"]

_BOOT = """
import sys, types
root = sys.argv[1]
for name in ("graphagents", "graphagents.sandbox"):
    module = types.ModuleType(name)
    module.__path__ = [root + "/" + name.replace(".", "/")]
    sys.modules[name] = module
from graphagents.sandbox.worker import main
main()
"""
# The worker gets a clean environment: no API keys or service URLs for generated code to find.
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "VIRTUAL_ENV")
_ENV_SET = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "ARROW_DEFAULT_MEMORY_POOL": "system",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
    "PYTHONDONTWRITEBYTECODE": "1",
}
_RESERVED = frozenset({"pd", "np"})


class WorkerDied(Exception):
    """The worker process broke the protocol, stopped answering or exited."""


class Worker:
    """One worker process and what it is known to hold."""

    def __init__(self, *, python: str, cache_mb: int, start_timeout: float) -> None:
        env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
        env.update(_ENV_SET, GRAPHAGENTS_SANDBOX_CACHE_MB=str(cache_mb))
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (closed in kill())
        root = str(Path(__file__).resolve().parents[2])
        self.proc = subprocess.Popen(
            [python, "-I", "-c", _BOOT, root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
        self.known: set[str] = set()
        header = self._read(time.monotonic() + start_timeout)
        if header.get("op") != "ready":
            self.kill()
            raise WorkerDied(f"sandbox worker did not start: {header}")
        self.pid = int(header["pid"])

    def request(self, header: dict[str, Any], blobs: list[bytes], deadline: float) -> tuple[dict, list[memoryview]]:
        assert self.proc.stdin is not None
        try:
            write_frame(self.proc.stdin.fileno(), encode_body(header, blobs))
        except OSError as exc:
            raise WorkerDied(f"sandbox worker is gone: {exc}") from None
        reply, reply_blobs = self._read_body(deadline)
        self.known = set(reply.get("cached", []))
        return reply, reply_blobs

    def _read(self, deadline: float) -> dict[str, Any]:
        return self._read_body(deadline)[0]

    def _read_body(self, deadline: float) -> tuple[dict, list[memoryview]]:
        assert self.proc.stdout is not None
        try:
            return decode_body(read_frame(self.proc.stdout.fileno(), deadline=deadline))
        except FrameError as exc:
            raise WorkerDied(f"sandbox worker failed: {exc}{self._stderr_tail()}") from None

    def _stderr_tail(self) -> str:
        try:
            self.stderr.seek(0)
            tail = self.stderr.read()[-400:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f" (worker stderr: {tail.splitlines()[-1]})" if tail else ""

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()
        self.stderr.close()


class SandboxPool:
    """Up to ``size`` workers, started on first use; thread-safe."""

    def __init__(
        self,
        size: int = 1,
        *,
        limits: Limits | None = None,
        store: ArtifactStore | None = None,
        cache_mb: int = 512,
        start_timeout: float = 120.0,
        python: str | None = None,
    ) -> None:
        if size < 1:
            raise ValueError("a sandbox pool needs at least one worker")
        self.size = size
        self.limits = limits or Limits()
        self._store = store
        self.cache_mb = cache_mb
        self.start_timeout = start_timeout
        self.python = python or sys.executable
        self._idle: queue.LifoQueue[Worker] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._all: set[Worker] = set()
        self.started = 0
        self.replaced = 0
        self.tables_sent = 0
        self._closed = False

    @property
    def store(self) -> ArtifactStore:
        return self._store or get_store()

    def warm(self) -> None:
        """Start one worker now, so that the first run does not pay for it."""
        with self._slots:
            self._release(self._acquire())

    def run(
        self,
        code: str,
        tables: Mapping[str, pd.DataFrame | str] | None = None,
        *,
        timeout: float | None = None,
        limits: Limits | None = None,
        result_var: str | None = None,
    ) -> SandboxResult:
        """Run ``code`` with ``tables`` bound as variables; see :func:`run_code`."""
        started = time.perf_counter()
        limits = (limits or self.limits).with_(timeout_seconds=timeout)
        try:
            parse_checked(code)
        except CodeRefused as exc:
            return SandboxResult.failure(exc.kind, str(exc), line=exc.line)  # type: ignore[arg-type]
        ids, blobs = self._prepare(tables or {})
        wire = dict(limits.wire(), result_var=result_var)
        request = {"op": "run", "code": code, "tables": ids, "limits": wire}
        with self._slots:
            worker = self._acquire()
            try:
                reply, payload = self._send(worker, request, blobs, limits)
            except WorkerDied as exc:
                self._discard(worker)
                return SandboxResult.failure(
                    "internal", f"The sandbox worker failed and was replaced: {exc}", duration_ms=_ms(started)
                )
            self._release(worker)
        return _result(reply, payload, limits, started, worker.pid)

    def _prepare(self, tables: Mapping[str, pd.DataFrame | str]) -> tuple[dict[str, str], dict[str, Any]]:
        ids: dict[str, str] = {}
        blobs: dict[str, Any] = {}  # id -> IPC bytes, or a store to fetch them from when needed
        for name, table in tables.items():
            _check_table_name(name)
            if isinstance(table, pd.DataFrame):
                ipc = frame_to_ipc(make_arrow_safe(table)[0])
                ids[name] = table_id_for(ipc)
                blobs[ids[name]] = ipc
            elif isinstance(table, str):
                if table not in self.store:
                    raise InputError(f"table {name!r}: no stored table {table!r}")
                ids[name] = table
                blobs[table] = self.store
            else:
                raise InputError(f"table {name!r} must be a DataFrame or a stored table id, not {type(table).__name__}")
        return ids, blobs

    def _send(
        self, worker: Worker, request: dict[str, Any], blobs: dict[str, Any], limits: Limits
    ) -> tuple[dict, list[memoryview]]:
        deadline = time.monotonic() + limits.timeout_seconds + 30
        for _ in range(2):
            send = [tid for tid in dict.fromkeys(request["tables"].values()) if tid not in worker.known]
            data = [blobs[tid] if isinstance(blobs[tid], bytes) else blobs[tid].ipc(tid) for tid in send]
            reply, payload = worker.request(dict(request, send=send), data, deadline)
            self.tables_sent += len(send)
            if reply.get("status") != "need":
                return reply, payload
            worker.known -= set(reply.get("need", []))
        raise WorkerDied("the worker kept asking for tables it was sent")

    def _acquire(self) -> Worker:
        try:
            worker = self._idle.get_nowait()
        except queue.Empty:
            worker = self._start()
        if not worker.alive:
            self._discard(worker)
            worker = self._start()
        return worker

    def _start(self) -> Worker:
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        worker = Worker(python=self.python, cache_mb=self.cache_mb, start_timeout=self.start_timeout)
        with self._lock:
            self._all.add(worker)
            self.started += 1
        return worker

    def _release(self, worker: Worker) -> None:
        if worker.alive and not self._closed:
            self._idle.put(worker)
        else:
            self._discard(worker)

    def _discard(self, worker: Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)
            self.replaced += 1

    def worker_pids(self) -> list[int]:
        with self._lock:
            return sorted(w.pid for w in self._all)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()


def _check_table_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise InputError(f"table name {name!r} must be a Python identifier")
    if name.startswith("_") or name in _RESERVED:
        raise InputError(f"table name {name!r} is reserved (no leading underscore, not pd or np)")


def _result(
    reply: dict[str, Any], payload: list[memoryview], limits: Limits, started: float, pid: int
) -> SandboxResult:
    status = reply.get("status")
    if status == "done" and payload and len(payload[0]):
        try:
            header, blobs = decode_body(unframe(payload[0]))
        except FrameError:
            header, blobs = {}, []
        if "ok" in header:
            return _from_child(header, blobs, started, pid)
    error_type, text = describe_stop(str(status), reply.get("signal"), reply.get("exit"), limits)
    return SandboxResult.failure(error_type, text, duration_ms=_ms(started), worker_pid=pid)


def _from_child(header: dict[str, Any], blobs: list[memoryview], started: float, pid: int) -> SandboxResult:
    common: dict[str, Any] = {
        "stdout": str(header.get("stdout", "")) + ("\n[output truncated]" if header.get("stdout_truncated") else ""),
        "exec_ms": header.get("exec_ms"),
        "worker_pid": pid,
    }
    if not header["ok"]:
        return SandboxResult.failure(
            header.get("error_type", "exception"),
            str(header.get("error", "the code failed")),
            line=header.get("line"),
            duration_ms=_ms(started),
            **common,
        )
    try:
        value = decode_value(header, blobs)
    except Exception as exc:  # hostile or broken bytes from the child: report, never trust
        return SandboxResult.failure(
            "internal", f"The sandbox returned a result that could not be read: {exc}", duration_ms=_ms(started)
        )
    return SandboxResult(
        ok=True,
        value=value,
        kind=header.get("kind", "none"),
        truncated=bool(header.get("truncated")),
        rows_total=header.get("rows_total"),
        notes=tuple(header.get("notes", ())),
        duration_ms=_ms(started),
        **common,
    )


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


_pool: SandboxPool | None = None
_pool_lock = threading.Lock()


def get_pool() -> SandboxPool:
    """The process-wide pool; ``GRAPHAGENTS_SANDBOX_WORKERS`` sets its size (default 2)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            size = int(os.environ.get("GRAPHAGENTS_SANDBOX_WORKERS", "2"))
            _pool = SandboxPool(size=max(1, size))
            atexit.register(_pool.close)
        return _pool


def run_code(
    code: str,
    tables: Mapping[str, pd.DataFrame | str] | None = None,
    *,
    timeout: float | None = None,
    limits: Limits | None = None,
    result_var: str | None = None,
) -> SandboxResult:
    """Run generated pandas ``code`` in the shared sandbox pool.

    ``tables`` maps variable names to DataFrames or stored table ids (:class:`ArtifactStore`);
    the caller's DataFrames are never changed. The value is ``result_var`` when given and set,
    else the last expression, else a variable named ``result``. Refused code, errors, timeouts
    and limit hits come back as ``ok=False`` with a short ``error`` text; this never raises for
    anything the code does.
    """
    return get_pool().run(code, tables, timeout=timeout, limits=limits, result_var=result_var)
