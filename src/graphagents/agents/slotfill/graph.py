"""The LangGraph graph: start -> ask <-> process -> finish, one interrupt per ask run."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from ...nodes import nonblocking
from ...registry import BuildContext
from .engine import Engine
from .nodes import Nodes
from .scenario import Scenario, load_scenario
from .state import SlotfillState
from .understanding import Understanding


def _as_is(fn: Any) -> Any:
    return fn


def build_graph(ctx: BuildContext, scenario: Scenario | None = None) -> Any:
    sc = scenario or load_scenario(ctx.options.get("scenario"))
    nodes = Nodes(Engine(sc, Understanding(ctx.llm)), ctx.settings)
    # Offline, a turn's nodes are rules and Korean morphology (a millisecond or two of CPU): they run
    # on the turn's event loop. With a model they wait on it, in a worker thread. ``finish`` writes
    # the application to the app database, which may be a remote PostgreSQL: always a thread.
    quick = nonblocking if ctx.llm is None else _as_is
    g = StateGraph(SlotfillState)
    g.add_node("start", quick(nodes.start))
    g.add_node("ask", quick(nodes.ask))
    g.add_node("process", quick(nodes.process))
    g.add_node("finish", nodes.finish)
    g.add_edge(START, "start")
    g.add_conditional_edges("start", nonblocking(nodes.route_start),
                            {"ask": "ask", "process": "process", "finish": "finish", "end": END})
    g.add_edge("ask", "process")
    g.add_conditional_edges("process", nonblocking(nodes.route), {"ask": "ask", "finish": "finish", "end": END})
    g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)
