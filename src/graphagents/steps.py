"""Step caps that end in a node: a graph sees how many steps are left and finishes cleanly.

LangGraph counts supersteps per run against ``recursion_limit`` (the agent's step cap) and raises
``GraphRecursionError`` when it is exceeded; the runtime turns that into an error reply only as a
last resort. A graph that loops should instead route to its finish node while it still can, the way
LangGraph's prebuilt ReAct agent does with ``RemainingSteps``::

    class State(StepState, total=False):        # adds remaining_steps (managed) and stop_reason
        ...

    g.add_node("finish", finish)                 # reads state.get("stop_reason")
    add_step_cap_node(g, finish="finish")        # the "step_cap" node: records the reason, goes on
    g.add_conditional_edges("think", finish_when_low(route_after_think),
                            ["act", "finish", STEP_CAP_NODE])

``finish_when_low`` sends the run to ``step_cap`` when ``remaining_steps <= reserve``; that node
writes ``stop_reason = "step_cap"``, emits a decision event and continues to ``finish``, which
writes the reply. ``reserve`` must leave room for ``step_cap`` + ``finish`` + whatever follows.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypedDict

from langgraph.graph import StateGraph
from langgraph.managed import RemainingSteps

from .events import DecisionEvent, emit

__all__ = [
    "DEFAULT_RESERVE",
    "STEP_CAP_NODE",
    "STEP_CAP_REASON",
    "StepState",
    "add_step_cap_node",
    "finish_when_low",
    "steps_low",
]

STEP_CAP_NODE = "step_cap"
STEP_CAP_REASON = "step_cap"
DEFAULT_RESERVE = 3
"""step_cap + finish + one more step (the END transition of a subgraph, an output node ...)."""


class StepState(TypedDict, total=False):
    """Mix into a graph's state: ``remaining_steps`` is filled in by LangGraph on every step and never
    stored; ``stop_reason`` says why a run ended early (None when it ran to its natural end)."""

    remaining_steps: RemainingSteps
    stop_reason: str | None


def steps_low(state: Any, reserve: int = DEFAULT_RESERVE) -> bool:
    """True when the run has ``reserve`` steps or fewer left; False when the state has no
    ``remaining_steps`` (the graph did not declare it)."""
    remaining = state.get("remaining_steps") if hasattr(state, "get") else getattr(state, "remaining_steps", None)
    return remaining is not None and remaining <= reserve


def finish_when_low(route: Callable[[Any], Hashable], *, reserve: int = DEFAULT_RESERVE,
                    target: str = STEP_CAP_NODE) -> Callable[[Any], Hashable]:
    """Wrap a routing function: when steps run low, go to ``target`` instead of ``route(state)``."""

    def routed(state: Any) -> Hashable:
        return target if steps_low(state, reserve) else route(state)

    routed.__name__ = getattr(route, "__name__", "route")
    return routed


def add_step_cap_node(graph: StateGraph[Any], *, finish: str, name: str = STEP_CAP_NODE) -> None:
    """Add the node that records ``stop_reason = "step_cap"`` and hands over to ``finish``."""

    def step_cap(state: Any) -> dict[str, Any]:
        remaining = state.get("remaining_steps") if hasattr(state, "get") else None
        emit(DecisionEvent("step_cap", finish, f"{remaining} steps left in this turn; finishing now"))
        return {"stop_reason": STEP_CAP_REASON}

    graph.add_node(name, step_cap)
    graph.add_edge(name, finish)
