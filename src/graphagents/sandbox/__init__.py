"""Run model-written pandas code safely, and keep tables out of graph state.

    from graphagents.sandbox import run_code
    result = run_code("df[df['budget'] > 100]", {"df": frame})
    result.ok, result.value, result.error

Three locks (docs/sandbox.md): an AST policy checked before the code leaves the caller and again
in the worker; restricted builtins, read-only module views and an audit hook at run time; and a
child process per run, forked from a pooled worker, with rlimits (CPU, memory, no new file
descriptors, no file writes) and a wall-clock kill. ``ArtifactStore`` keeps tables by content id.
"""

from .policy import ALLOWED_MODULES, CodeRefused, check_code
from .pool import SandboxPool, get_pool, run_code
from .result import ErrorType, Limits, SandboxResult, ValueKind
from .store import ArtifactStore, TableInfo, get_store

__all__ = [
    "ALLOWED_MODULES",
    "ArtifactStore",
    "CodeRefused",
    "ErrorType",
    "Limits",
    "SandboxPool",
    "SandboxResult",
    "TableInfo",
    "ValueKind",
    "check_code",
    "get_pool",
    "get_store",
    "run_code",
]
