"""What a sandbox run returns, and the limits it runs under."""

from __future__ import annotations

import signal
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import pandas as pd

__all__ = ["ErrorType", "Limits", "SandboxResult", "ValueKind", "output_error"]

ErrorType = Literal["refused", "syntax", "exception", "timeout", "cpu", "memory", "output", "crashed", "internal"]
ValueKind = Literal["table", "series", "scalar", "list", "dict", "text", "none"]


@dataclass(frozen=True)
class Limits:
    """Per-run limits. ``memory_mb`` is address space on top of the worker's own (pandas loaded)."""

    timeout_seconds: float = 10.0
    cpu_seconds: float | None = None  # None: same as the wall-clock timeout
    memory_mb: int = 1024
    max_rows: int = 1_000_000
    max_result_bytes: int = 256 << 20
    max_stdout_chars: int = 20_000
    max_value_chars: int = 20_000
    max_items: int = 10_000

    def __post_init__(self) -> None:
        if not 0 < self.timeout_seconds <= 3600:
            raise ValueError("timeout_seconds must be in (0, 3600]")
        if self.memory_mb < 64:
            raise ValueError("memory_mb must be at least 64")
        if min(self.max_rows, self.max_result_bytes, self.max_stdout_chars, self.max_value_chars, self.max_items) < 1:
            raise ValueError("output limits must be positive")

    def with_(self, **changes: Any) -> Limits:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def wire(self) -> dict[str, Any]:
        data = asdict(self)
        data["cpu_seconds"] = self.cpu_seconds or self.timeout_seconds
        return data


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of one run. ``error`` is one short text meant for the model that wrote the code.

    ``value`` is a DataFrame for ``kind="table"``, a Series for ``"series"``, else a plain Python
    value (scalars, lists, dicts; dates as pandas Timestamps) or the text of an unusual object.
    """

    ok: bool
    value: Any = None
    kind: ValueKind = "none"
    error: str | None = None
    error_type: ErrorType | None = None
    line: int | None = None
    stdout: str = ""
    truncated: bool = False
    rows_total: int | None = None
    notes: tuple[str, ...] = ()
    duration_ms: float = 0.0
    exec_ms: float | None = None
    worker_pid: int | None = field(default=None, compare=False)

    @property
    def table(self) -> pd.DataFrame | None:
        """The value as a DataFrame when it is a table or series, else None."""
        if isinstance(self.value, pd.DataFrame):
            return self.value
        if isinstance(self.value, pd.Series):
            return self.value.to_frame()
        return None

    @classmethod
    def failure(cls, error_type: ErrorType, error: str, **extra: Any) -> SandboxResult:
        return cls(ok=False, error=error, error_type=error_type, **extra)


def output_error(max_result_bytes: int) -> str:
    """The ``output`` error's text, the same whether the child noticed or the worker cut it off."""
    return (f"Output too large: the result is over {max_result_bytes >> 20} MB; "
            "return fewer rows or columns (filter, aggregate or .head())")


def describe_stop(status: str, sig: int | None, exit_code: int | None, limits: Limits) -> tuple[ErrorType, str]:
    """The coder-facing text for a child that did not report a result itself."""
    if status == "timeout":
        return "timeout", (
            f"Timeout: the code ran longer than {limits.timeout_seconds:g} s and was stopped; "
            "use vectorised pandas operations instead of Python loops over rows"
        )
    if status == "output":
        return "output", output_error(limits.max_result_bytes)
    if sig == signal.SIGXCPU:
        cpu = limits.cpu_seconds or limits.timeout_seconds
        return "cpu", f"CPU time limit: the code used more than {cpu:g} s of CPU and was stopped"
    if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
        name = signal.Signals(sig).name
        return "memory", (
            f"The code was stopped by {name}, most likely at the {limits.memory_mb} MB memory limit; "
            "work on fewer rows or columns"
        )
    if sig:
        return "crashed", f"The code crashed the sandbox process ({signal.Signals(sig).name})"
    return "crashed", f"The sandbox process ended without a result (exit code {exit_code})"
