"""Shared by the sandbox tests (conftest.py files are not importable by name across folders)."""

from __future__ import annotations

import pandas as pd

from graphagents.sandbox import Limits, SandboxPool

FAST = Limits(timeout_seconds=5, cpu_seconds=3, memory_mb=512)


def assert_healthy(pool: SandboxPool) -> None:
    """After any attack, the same pool still answers a normal question correctly."""
    frame = pd.DataFrame({"a": [1, 2, 3]})
    result = pool.run("df['a'].sum()", {"df": frame})
    assert result.ok, result.error
    assert result.value == 6
