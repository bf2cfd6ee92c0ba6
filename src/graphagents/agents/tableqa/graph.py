"""The tableqa StateGraph: prepare -> think <-> act -> finish, one question per turn.

think/act come from :class:`graphagents.toolloop.ToolLoop` with the ``Action: Tool[argument]``
protocol; the step cap is the loop's budget (``max_steps`` tool calls) and LangGraph's
``RemainingSteps``, both ending in ``finish``.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.registry import BuildContext
from graphagents.toolloop import ActionTurnProtocol, Budget, ToolLoop

from .config import AgentContext
from .nodes import Brain, Nodes, route_after_prepare
from .state import TableQAState

__all__ = ["build", "build_graph"]


def build_graph(actx: AgentContext, ctx: BuildContext, brain: Brain | None = None) -> Any:
    if brain is None:  # with a model too: the offline brain is its fallback when the model fails
        from .offline import OfflineBrain

        brain = OfflineBrain(embedder=lambda: ctx.embedder)
    nodes = Nodes(actx, ctx.llm, brain)
    loop = ToolLoop(
        tools=nodes.registry(),
        protocol=ActionTurnProtocol(),
        prompt=lambda state, budget: [],
        context=nodes.context,
        budget_type=Budget,
        planner=nodes.plan,  # samples and votes (or asks the offline brain), then answers in the protocol
        on_result=nodes.on_result,
        call_id_prefix="step",
    )
    g = StateGraph(TableQAState)
    g.add_node("prepare", nodes.prepare)
    g.add_node("finish", nodes.finish)
    loop.add_to(g)
    g.add_edge(START, "prepare")
    g.add_conditional_edges("prepare", route_after_prepare, ["think", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=ctx.checkpointer)


def build(ctx: BuildContext) -> Any:
    from .uploads import Uploads

    return build_graph(AgentContext.open(ctx.options, uploads=lambda: Uploads(ctx.database)), ctx)
