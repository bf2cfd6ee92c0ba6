"""One run of generated code, inside a child forked from the worker for that run alone.

Order matters: the child first closes every descriptor but its result pipe, lowers its rlimits
(no new file descriptors at all, no file writes, CPU seconds, address space), drops root, arms
the audit hook, and only then compiles and runs the code in the restricted namespace. Whatever
the code does to pandas, numpy or the tables dies with the child: nothing leaks into the next run.
"""

from __future__ import annotations

import ast
import gc
import os
import resource
import sys
import time
import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd

from . import audit
from .codec import encode_value
from .policy import CodeRefused, parse_checked
from .protocol import write_message
from .result import output_error
from .runtime import CappedText, build_globals

__all__ = ["RESULT_FD", "run_child"]

RESULT_FD = 3
_NOBODY = 65534
_RESULT_NAME = "__sandbox_value__"  # dunder: no generated code can spell it (policy)


def run_child(
    result_fd: int, code: str, tables: Mapping[str, pd.DataFrame], limits: dict[str, Any], vm_bytes: int
) -> None:
    """Never returns: writes one result frame to ``result_fd`` and exits."""
    status = 0
    try:
        _isolate(result_fd, limits, vm_bytes)
        header, blobs = _execute(code, tables, limits)
        write_message(RESULT_FD, header, blobs)
    except BaseException:  # the worker sees "no result" and reports a crash
        status = 70
    finally:
        os._exit(status)


def _isolate(result_fd: int, limits: dict[str, Any], vm_bytes: int) -> None:
    os.dup2(result_fd, RESULT_FD)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(RESULT_FD + 1, 1 << 16)
    _set_pdeathsig()
    cpu = max(1, int(limits["cpu_seconds"] + 0.999))
    memory = vm_bytes + int(limits["memory_mb"]) * (1 << 20)
    for limit, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (RESULT_FD + 1, RESULT_FD + 1)),
    ):
        resource.setrlimit(limit, value)
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(_NOBODY)
        os.setuid(_NOBODY)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _set_pdeathsig() -> None:
    """Die with the worker (Linux prctl); best effort elsewhere."""
    ctypes = sys.modules.get("ctypes")
    if ctypes is None or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    except (OSError, AttributeError):
        return


def _execute(code: str, tables: Mapping[str, pd.DataFrame], limits: dict[str, Any]) -> tuple[dict, list[bytes]]:
    started = time.perf_counter()
    stdout = CappedText(int(limits["max_stdout_chars"]))
    try:
        tree = parse_checked(code)  # the caller checked too; a worker trusts no caller
    except CodeRefused as exc:
        return {"ok": False, "error_type": exc.kind, "error": str(exc), "line": exc.line}, []
    has_last = _capture_last(tree)
    compiled = compile(tree, "<sandbox>", "exec")
    env = build_globals(tables, stdout)
    sys.stdout = sys.stderr = stdout  # type: ignore[assignment]
    warnings.simplefilter("ignore")  # warning display reads source files: not here, and noise to a coder
    audit.arm(compiled)
    try:
        exec(compiled, env)
    except BaseException as exc:  # generated code may raise anything; it becomes the coder's error text
        header = _error_header(exc, code)
        header.update(stdout=stdout.getvalue(), stdout_truncated=stdout.truncated)
        header["exec_ms"] = (time.perf_counter() - started) * 1000
        return header, []
    exec_ms = (time.perf_counter() - started) * 1000
    value = _pick_value(env, has_last, limits.get("result_var"))
    cap = int(limits["max_result_bytes"])
    too_large = {"ok": False, "error_type": "output", "error": output_error(cap), "line": None,
                 "stdout": stdout.getvalue(), "stdout_truncated": stdout.truncated, "exec_ms": exec_ms}
    if _shallow_bytes(value, int(limits["max_rows"])) > cap:  # over the cap before a byte is encoded
        return too_large, []
    try:
        header, blobs = encode_value(
            value,
            max_rows=int(limits["max_rows"]),
            max_items=int(limits["max_items"]),
            max_chars=int(limits["max_value_chars"]),
        )
    except MemoryError:  # encoding needs a copy of the value: a result this large cannot be sent anyway
        return too_large, []
    if sum(len(b) for b in blobs) > cap:
        return too_large, []
    header.update(ok=True, stdout=stdout.getvalue(), stdout_truncated=stdout.truncated, exec_ms=exec_ms)
    return header, blobs


def _shallow_bytes(value: Any, max_rows: int) -> int:
    """What a table or series result holds in its buffers (text cells counted as pointers), for the
    rows that would be sent: a lower bound of its encoded size."""
    if isinstance(value, pd.DataFrame | pd.Series):
        rows = len(value)
        if not rows:
            return 0
        total = int(value.memory_usage(index=False, deep=False).sum()) if isinstance(value, pd.DataFrame) \
            else int(value.memory_usage(index=False, deep=False))
        return total * min(rows, max_rows) // rows
    return 0


def _capture_last(tree: ast.Module) -> bool:
    """Turn a final expression statement into an assignment, as a notebook cell shows its value."""
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        target = ast.Name(id=_RESULT_NAME, ctx=ast.Store())
        tree.body[-1] = ast.copy_location(ast.Assign(targets=[target], value=last.value), last)
        ast.fix_missing_locations(tree)
        return True
    return False


def _pick_value(env: dict[str, Any], has_last: bool, result_var: str | None) -> Any:
    if result_var and result_var in env:
        return env[result_var]
    if has_last:
        return env.get(_RESULT_NAME)
    if result_var is None and "result" in env:
        return env["result"]
    return None


def _error_header(exc: BaseException, code: str) -> dict[str, Any]:
    line = _user_line(exc)
    source = code.splitlines()[line - 1].strip() if line and 0 < line <= len(code.splitlines()) else ""
    kind = "memory" if isinstance(exc, MemoryError) else "exception"
    name = type(exc).__name__
    try:
        message = str(exc)
    except Exception:  # a hostile __str__ cannot exist (no classes), but pandas errors may fail to render
        message = ""
    message = " ".join(message.split())[:400]
    if kind == "memory":
        text = "MemoryError: the code needed more memory than the sandbox allows"
    else:
        text = f"{name}: {message}" if message else name
    if line:
        text += f" (line {line}: {source[:160]})" if source else f" (line {line})"
    return {"ok": False, "error_type": kind, "error": text, "line": line, "exception": name}


def _user_line(exc: BaseException) -> int | None:
    """The last line of *generated* code in the traceback (library frames are noise to a coder)."""
    line = None
    gc.disable()
    with audit.trusted():
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<sandbox>":
                line = tb.tb_lineno
            tb = tb.tb_next
    gc.enable()
    if line is None and isinstance(exc, SyntaxError):
        line = exc.lineno
    return line
