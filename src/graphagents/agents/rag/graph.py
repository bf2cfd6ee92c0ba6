"""The rag StateGraph, the design note's flow::

    START -> check_similarity -(hit)-> store_response -> END
                 |                 -(mode llm)-> generate_answer -> store_response
                 v
          classify_intent -> extract_slots -> store_memory -> assemble_context
          assemble_context -(evidence not retrieved yet, k > 0)-> retrieve -> assemble_context (again)
          assemble_context -(evidence ready, or a greeting)-> generate_answer -> refine
          refine -(needs_retrieval)-> retrieve ;  refine -> store_response
          retrieve -(a refine round found nothing new)-> store_response

Every conditional edge goes to the ``step_cap`` node (then ``store_response``) when the run's steps
run low, so a turn always ends with a reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.registry import BuildContext
from graphagents.steps import STEP_CAP_NODE, add_step_cap_node, finish_when_low

from .nodes import Nodes, RagContext
from .options import RagOptions
from .state import AgentState

__all__ = ["ROLES", "build", "build_graph", "rag_context"]

ROLES = ("intent", "slots", "answer", "judge", "rewrite")
"""Model roles (``--model judge=openai:gpt-4o-mini``); each is the agent's llm unless configured."""
RESERVE = 4  # step_cap + store_response + END, with one to spare


def after_check(state: Mapping[str, Any]) -> str:
    if state.get("skip_pipeline"):
        return "store_response"
    if state.get("mode") == "llm":
        return "generate_answer"
    return "classify_intent"


def after_assemble(state: Mapping[str, Any]) -> str:
    k = int(state.get("dynamic_k") or 0)
    if k > 0 and state.get("retrieved_iteration", -1) != int(state.get("iteration_count") or 0):
        return "retrieve"
    return "generate_answer"


def after_retrieve(state: Mapping[str, Any]) -> str:
    if int(state.get("iteration_count") or 0) > 0 and state.get("refine_stop_reason"):
        return "store_response"
    return "assemble_context"


def after_generate(state: Mapping[str, Any]) -> str:
    if state.get("mode") == "llm" or state.get("query_complexity") == "greeting" or state.get("emergency"):
        return "store_response"  # after an emergency notice there is nothing to refine: symptom text or none
    return "refine"


def after_refine(state: Mapping[str, Any]) -> str:
    return "retrieve" if state.get("needs_retrieval") else "store_response"


def rag_context(ctx: BuildContext) -> RagContext:
    options = ctx.typed_options if isinstance(ctx.typed_options, RagOptions) else RagOptions(**dict(ctx.options))
    embedder = ctx.embedder
    if embedder is None:
        from graphagents.retrieval import load_embedder

        embedder = load_embedder(ctx.settings.embedder)
    return RagContext(options, ctx.settings, embedder, ctx, {role: ctx.model(role) for role in ROLES})


def build_graph(rctx: RagContext, checkpointer: Any = None) -> Any:
    nodes = Nodes(rctx)
    g: StateGraph[Any] = StateGraph(AgentState)
    for name in ("check_similarity", "classify_intent", "extract_slots", "store_memory", "assemble_context",
                 "retrieve", "generate_answer", "refine", "store_response"):
        g.add_node(name, getattr(nodes, name))
    add_step_cap_node(g, finish="store_response")
    g.add_edge(START, "check_similarity")
    g.add_conditional_edges("check_similarity", finish_when_low(after_check, reserve=RESERVE),
                            ["store_response", "generate_answer", "classify_intent", STEP_CAP_NODE])
    g.add_edge("classify_intent", "extract_slots")
    g.add_edge("extract_slots", "store_memory")
    g.add_edge("store_memory", "assemble_context")
    g.add_conditional_edges("assemble_context", finish_when_low(after_assemble, reserve=RESERVE),
                            ["retrieve", "generate_answer", STEP_CAP_NODE])
    g.add_conditional_edges("retrieve", finish_when_low(after_retrieve, reserve=RESERVE),
                            ["assemble_context", "store_response", STEP_CAP_NODE])
    g.add_conditional_edges("generate_answer", finish_when_low(after_generate, reserve=RESERVE),
                            ["refine", "store_response", STEP_CAP_NODE])
    g.add_conditional_edges("refine", finish_when_low(after_refine, reserve=RESERVE),
                            ["retrieve", "store_response", STEP_CAP_NODE])
    g.add_edge("store_response", END)
    return g.compile(checkpointer=checkpointer)


def build(ctx: BuildContext) -> Any:
    return build_graph(rag_context(ctx), ctx.checkpointer)
