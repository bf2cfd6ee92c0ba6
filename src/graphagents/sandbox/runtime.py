"""The namespace generated code runs in: restricted builtins, module views, a guarded import.

Second lock (after the AST policy): even code that slipped past the policy finds no ``open``,
``eval`` or real ``__import__`` in its builtins, and every module it can name is a
:class:`ModuleView` that hands out functions and classes but never a sub-module, a private name
or a file reader. Library code keeps its real builtins; only the user's frames get these.

Runs inside the sandbox worker; stdlib only (pandas/numpy are imported by the worker).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from .policy import ALLOWED_MODULES, attribute_problem

__all__ = ["ALLOWED_SUBMODULES", "CappedText", "ModuleView", "build_globals", "safe_builtins"]

ALLOWED_SUBMODULES: frozenset[str] = frozenset({"numpy.random", "numpy.linalg", "pandas.errors"})

_SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "oct", "ord",
    "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple",
    "zip", "True", "False", "None", "Ellipsis", "NotImplemented",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError", "KeyError",
    "LookupError", "NameError", "OverflowError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError", "UnicodeError", "NotImplementedError", "MemoryError",
    "RecursionError", "FloatingPointError",
)  # fmt: skip


class CappedText:
    """A write-only text sink that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def write(self, text: str) -> int:
        text = str(text)
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def flush(self) -> None:
        return None

    @property
    def truncated(self) -> bool:
        return self.total > self.kept

    def getvalue(self) -> str:
        return "".join(self.parts)


class ModuleView:
    """A read-only face of an allowed module: public, non-module, non-I/O attributes only."""

    __slots__ = ("_view_module",)

    def __init__(self, module: ModuleType) -> None:
        object.__setattr__(self, "_view_module", module)

    def __getattr__(self, name: str) -> Any:
        module: ModuleType = object.__getattribute__(self, "_view_module")
        problem = attribute_problem(name)
        if problem:
            raise AttributeError(problem)
        value = getattr(module, name)
        if isinstance(value, ModuleType):
            full = f"{module.__name__}.{name}"
            if full not in ALLOWED_SUBMODULES:
                raise AttributeError(f"{full!r} is not available in the sandbox")
            return ModuleView(value)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("modules are read-only in the sandbox")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("modules are read-only in the sandbox")

    def __dir__(self) -> list[str]:
        module: ModuleType = object.__getattribute__(self, "_view_module")
        return [n for n in dir(module) if attribute_problem(n) is None]

    def __repr__(self) -> str:
        module: ModuleType = object.__getattribute__(self, "_view_module")
        return f"<module {module.__name__!r} (sandboxed)>"


def _guarded_import(
    name: str,
    globals: Mapping[str, Any] | None = None,
    locals: Mapping[str, Any] | None = None,
    fromlist: tuple[str, ...] | list[str] | None = (),
    level: int = 0,
) -> ModuleView:
    if level != 0:
        raise ImportError("relative imports are not allowed in the sandbox")
    top = name.partition(".")[0]
    if top not in ALLOWED_MODULES or (name != top and name not in ALLOWED_SUBMODULES):
        raise ImportError(f"import of {name!r} is not allowed in the sandbox")
    module = sys.modules.get(name)
    if module is None:  # every allowed module is preloaded by the worker; nothing loads from disk
        raise ImportError(f"module {name!r} is not loaded in the sandbox worker")
    if fromlist:
        return ModuleView(module)
    return ModuleView(sys.modules[top])


def _safe_getattr(obj: Any, name: str, *default: Any) -> Any:
    if not isinstance(name, str):
        raise TypeError("attribute name must be a string")
    problem = attribute_problem(name)
    if problem:
        raise AttributeError(problem)
    return getattr(obj, name, *default)


def _safe_hasattr(obj: Any, name: str) -> bool:
    if not isinstance(name, str):
        raise TypeError("attribute name must be a string")
    return attribute_problem(name) is None and hasattr(obj, name)


def _make_print(sink: CappedText) -> Callable[..., None]:
    def sandbox_print(*args: Any, sep: str | None = " ", end: str | None = "\n", **_: Any) -> None:
        sink.write((" " if sep is None else str(sep)).join(str(a) for a in args))
        sink.write("\n" if end is None else str(end))

    return sandbox_print


def safe_builtins(stdout: CappedText) -> dict[str, Any]:
    """The builtins a sandboxed frame sees (a fresh dict per run)."""
    table = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
    table.update(
        __import__=_guarded_import, getattr=_safe_getattr, hasattr=_safe_hasattr, print=_make_print(stdout)
    )
    return table


def build_globals(tables: Mapping[str, Any], stdout: CappedText) -> dict[str, Any]:
    """Globals for one run: ``pd``, ``np`` and the tables (each a shallow copy: copy-on-write)."""
    env: dict[str, Any] = {
        "__builtins__": safe_builtins(stdout),
        "__name__": "__sandbox__",
        "pd": ModuleView(sys.modules["pandas"]),
        "np": ModuleView(sys.modules["numpy"]),
    }
    for name, frame in tables.items():
        env[name] = frame.copy(deep=False)
    return env
