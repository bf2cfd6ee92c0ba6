"""The text2sql StateGraph: one question per turn, a bounded think <-> act loop, then a reply.

The loop's nodes come from :class:`graphagents.toolloop.ToolLoop`. The ``confirm`` node is always
in the graph and only reached when the ``confirm_steps`` option marks a pending call: one graph
shape for both modes, one snapshot.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.registry import BuildContext

from .agent_context import AgentContext
from .confirm import parse_confirm_steps
from .nodes import Brain, Nodes, route_after_prepare
from .state import Text2SqlState


def build_graph(agent: AgentContext, ctx: BuildContext, brain: Brain | None = None) -> Any:
    if ctx.llm is None and brain is None:
        from .oracle import OfflineBrain

        brain = OfflineBrain(agent)
    nodes = Nodes(agent, ctx.llm, brain, confirm_steps=parse_confirm_steps(ctx.options.get("confirm_steps")))
    g = StateGraph(Text2SqlState)
    g.add_node("prepare", nodes.prepare)
    nodes.loop.add_to(g)
    g.add_node("finish", nodes.finish)
    g.add_edge(START, "prepare")
    g.add_conditional_edges("prepare", route_after_prepare, ["think", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)


def build(ctx: BuildContext) -> Any:
    return build_graph(AgentContext.open(ctx.settings, ctx.options), ctx)
