"""A generic tool loop: think -> policy -> [confirm ->] act, with hooks, as LangGraph nodes.

    loop = ToolLoop(
        tools=ToolRegistry([Tool("search", search, required=("query",))]),
        protocol=XmlTurnProtocol(),             # or ActionTurnProtocol() for Action[arg] planners
        prompt=lambda state, budget: [SystemMessage(...), HumanMessage(state["question"])],
        context=lambda state, budget: MyContext(...),
        budget_type=Budget,
        model=llm,                              # or planner=... (a deterministic brain)
        policy=my_policy,                       # rewrite calls in code (design note, part 2)
        confirmation=None,                      # or a Confirmation (human approval via interrupt)
        on_result=my_bookkeeping,               # set status to end the loop
    )
    loop.add_to(graph)                          # adds think / [confirm] / act and their edges

Tools raise :class:`ToolError` (or return a failed :class:`ToolResult`) for errors the model can
fix; they go back as observations with "How to fix". Every way out ends in the agent's
``finish`` node with a ``status`` (see :mod:`.loop`).
"""

from .action import ActionTurnProtocol
from .budget import Budget
from .loop import (
    STEPS_TO_FINISH,
    ActResult,
    Confirmation,
    LoopState,
    Rewrite,
    ToolLoop,
    TranscriptLimits,
    fresh_loop,
    rewrite_call,
    route_after_act,
    route_after_confirm,
    route_after_think,
)
from .protocol import TurnProtocol, XmlTurnProtocol, clip
from .tools import ERROR_TEMPLATE, Tool, ToolError, ToolRegistry, ToolResult, error_content, error_summary

__all__ = [
    "ERROR_TEMPLATE",
    "STEPS_TO_FINISH",
    "ActResult",
    "ActionTurnProtocol",
    "Budget",
    "Confirmation",
    "LoopState",
    "Rewrite",
    "Tool",
    "ToolError",
    "ToolLoop",
    "ToolRegistry",
    "ToolResult",
    "TranscriptLimits",
    "TurnProtocol",
    "XmlTurnProtocol",
    "clip",
    "error_content",
    "error_summary",
    "fresh_loop",
    "rewrite_call",
    "route_after_act",
    "route_after_confirm",
    "route_after_think",
]
