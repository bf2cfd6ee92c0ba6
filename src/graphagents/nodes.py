"""Nodes that never block: run them on the turn's event loop instead of a worker thread.

LangGraph runs a plain (``def``) node or router of an async run (``graph.astream``, which every
server turn uses) in a thread of the loop's executor: a hand-off to a thread and back for each
call, and two threads taking turns at the GIL. For a node that waits on nothing (pure CPU work of
a few milliseconds: parsing, rules, Korean morphology) that hand-off is the larger part of the cost;
in bench/server_load.py it was about a quarter of an offline slotfill turn's CPU.

``nonblocking(fn)`` gives LangGraph the same function for both paths: ``graph.stream`` calls it as
before, ``graph.astream`` calls it directly on the event loop. While it runs, nothing else on that
loop does, so never use it for a node that waits on a network, a model, a database other than a
local SQLite file, or that can take long::

    g.add_node("process", nonblocking(nodes.process) if offline else nodes.process)
    g.add_conditional_edges("process", nonblocking(nodes.route), {...})

The node keeps its name, its signature (``config``, ``runtime``... are passed as usual) and its
sync behaviour; ``has_async_nodes`` still counts the graph as sync. LangGraph reads a plain
function's annotations for its input schema and ``Command`` destinations, not a wrapped one's: pass
``input_schema=`` / ``destinations=`` to ``add_node`` when a node relies on them. On a LangGraph without the
internal class this relies on, ``fn`` is returned unchanged (the thread path: slower, never wrong).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["nonblocking"]

try:
    from langgraph._internal._runnable import RunnableCallable
except ImportError:  # pragma: no cover - a LangGraph that moved it: keep the thread path
    RunnableCallable = None  # type: ignore[assignment,misc]


def nonblocking(fn: Callable[..., Any], *, name: str | None = None) -> Any:
    """``fn`` as a node or router that async runs call on the event loop (see the module doc)."""
    if RunnableCallable is None:
        return fn

    async def on_loop(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    # trace=False as LangGraph gives the nodes it wraps itself: no callback run per call.
    return RunnableCallable(fn, on_loop, name=name or getattr(fn, "__name__", None), trace=False)
