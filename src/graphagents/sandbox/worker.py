"""The pooled worker process: imports pandas once, keeps tables, forks a child for every run.

The worker itself never runs generated code, so it cannot be poisoned by it: each run gets a
fresh fork (about 2 ms with pandas loaded, against ~1 s to start and warm a new interpreter), with
the tables already in memory (copy-on-write, not copied) and its own CPU clock and rlimits. The
worker watches the wall clock and the result size and SIGKILLs a child that overruns either.

Started by :mod:`.pool` as ``python -I -c <boot>``; talks framed messages on stdin/stdout.
"""

from __future__ import annotations

import gc
import os
import signal
import time
from collections import OrderedDict
from typing import Any

__all__ = ["main"]

_CHUNK = 1 << 20


class TableCache:
    """Decoded tables by id, least recently used evicted past ``budget`` bytes (of IPC size)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.items: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self.size = 0

    def get(self, table_id: str) -> Any | None:
        item = self.items.get(table_id)
        if item is None:
            return None
        self.items.move_to_end(table_id)
        return item[0]

    def put(self, table_id: str, frame: Any, size: int) -> None:
        if table_id in self.items:
            self.items.move_to_end(table_id)
            return
        self.items[table_id] = (frame, size)
        self.size += size
        while self.size > self.budget and len(self.items) > 1:
            _, (_, old) = self.items.popitem(last=False)
            self.size -= old

    def ids(self) -> list[str]:
        return list(self.items)


def main() -> None:
    proto_in, proto_out = _claim_stdio()
    from . import audit, warmup
    from .codec import frame_from_ipc
    from .protocol import FrameError, decode_body, encode_body, read_frame, write_frame

    warmup.run()
    audit.install()
    gc.freeze()  # children's garbage collections then leave the worker's pages shared
    cache = TableCache(int(os.environ.get("GRAPHAGENTS_SANDBOX_CACHE_MB", "512")) << 20)
    write_frame(proto_out, encode_body({"op": "ready", "pid": os.getpid()}))
    while True:
        try:
            header, blobs = decode_body(read_frame(proto_in))
        except FrameError:
            return  # the caller went away or broke the protocol: nothing to serve
        op = header.get("op")
        if op == "stop":
            return
        if op == "ping":
            write_frame(proto_out, encode_body({"op": "pong", "cached": cache.ids()}))
            continue
        for table_id, blob in zip(header.get("send", []), blobs, strict=False):
            cache.put(table_id, frame_from_ipc(blob), len(blob))
        tables = {name: cache.get(tid) for name, tid in header.get("tables", {}).items()}
        missing = [tid for name, tid in header.get("tables", {}).items() if tables[name] is None]
        if missing:
            write_frame(proto_out, encode_body({"status": "need", "need": missing, "cached": cache.ids()}))
            continue
        reply, payload = _run(header["code"], tables, header["limits"])
        reply["cached"] = cache.ids()
        write_frame(proto_out, encode_body(reply, [payload]))


def _claim_stdio() -> tuple[int, int]:
    """Keep the protocol on private descriptors; stray prints from libraries go to stderr."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    return proto_in, proto_out


def _vm_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _run(code: str, tables: dict[str, Any], limits: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    from .child import run_child

    read_end, write_end = os.pipe()
    vm = _vm_bytes()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        run_child(write_end, code, tables, limits, vm)
    os.close(write_end)
    try:
        status, payload = _collect(pid, read_end, started, limits)
    finally:
        os.close(read_end)
    code_, sig = _reap(pid, started + float(limits["timeout_seconds"]) + 2)
    if status == "done" and sig:
        status = "signal"
    elapsed = (time.monotonic() - started) * 1000
    return {"status": status, "exit": code_, "signal": sig, "elapsed_ms": elapsed}, payload


def _collect(pid: int, fd: int, started: float, limits: dict[str, Any]) -> tuple[str, bytes]:
    """Read the child's result until EOF, a deadline or a size cap; kill it on the last two."""
    import select

    deadline = started + float(limits["timeout_seconds"])
    cap = int(limits["max_result_bytes"]) + (1 << 20)
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            _kill(pid)
            return "timeout", b""
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return "done", b"".join(chunks)
        size += len(chunk)
        if size > cap:
            _kill(pid)
            return "output", b""
        chunks.append(chunk)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return


def _reap(pid: int, deadline: float) -> tuple[int | None, int | None]:
    """Exit code and signal of the child; a child that lingers past the deadline is killed."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            _kill(pid)
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(0.001)
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


if __name__ == "__main__":
    main()
