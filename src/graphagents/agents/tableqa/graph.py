"""The tableqa StateGraph: prepare -> plan <-> act -> finish, one question per turn."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.registry import BuildContext

from .config import AgentContext
from .nodes import Brain, Nodes, route_after_act, route_after_plan, route_after_prepare
from .state import TableQAState

__all__ = ["build", "build_graph"]


def build_graph(actx: AgentContext, ctx: BuildContext, brain: Brain | None = None) -> Any:
    planner = ctx.llm
    if planner is None and brain is None:
        from .offline import OfflineBrain

        brain = OfflineBrain()
    nodes = Nodes(actx, planner, planner, brain)
    g = StateGraph(TableQAState)
    g.add_node("prepare", nodes.prepare)
    g.add_node("plan", nodes.plan)
    g.add_node("act", nodes.act)
    g.add_node("finish", nodes.finish)
    g.add_edge(START, "prepare")
    g.add_conditional_edges("prepare", route_after_prepare, ["plan", "finish"])
    g.add_conditional_edges("plan", route_after_plan, ["act", "plan", "finish"])
    g.add_conditional_edges("act", route_after_act, ["plan", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)


def build(ctx: BuildContext) -> Any:
    return build_graph(AgentContext.open(ctx.options), ctx)
