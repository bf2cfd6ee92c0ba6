"""The LangGraph graph: start -> ask <-> process -> finish, one interrupt per ask run."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from ...registry import BuildContext
from .engine import Engine
from .nodes import Nodes
from .scenario import Scenario, load_scenario
from .state import SlotfillState
from .understanding import Understanding


def build_graph(ctx: BuildContext, scenario: Scenario | None = None) -> Any:
    sc = scenario or load_scenario(ctx.options.get("scenario"))
    nodes = Nodes(Engine(sc, Understanding(ctx.llm)), ctx.settings)
    g = StateGraph(SlotfillState)
    g.add_node("start", nodes.start)
    g.add_node("ask", nodes.ask)
    g.add_node("process", nodes.process)
    g.add_node("finish", nodes.finish)
    g.add_edge(START, "start")
    g.add_conditional_edges("start", nodes.route_start,
                            {"ask": "ask", "process": "process", "finish": "finish", "end": END})
    g.add_edge("ask", "process")
    g.add_conditional_edges("process", nodes.route, {"ask": "ask", "finish": "finish", "end": END})
    g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)
