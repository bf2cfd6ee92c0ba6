"""graphagents: five production-shaped LangGraph agents on one shared core.

    import graphagents as ga
    agent = ga.load("slotfill")
    reply = agent.session().send("안녕하세요")
"""

from .errors import GraphAgentsError, RunError, UsageError
from .events import (
    DecisionEvent,
    ErrorEvent,
    Event,
    FinalEvent,
    StateUpdateEvent,
    StepEvent,
    TokenEvent,
    ToolCallEvent,
    ToolResultEvent,
    emit,
)
from .registry import AgentSpec, BuildContext, SessionContext, all_specs, get_spec, register
from .runtime import Agent, Reply, Session, load
from .settings import Settings, get_settings

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentSpec",
    "BuildContext",
    "DecisionEvent",
    "ErrorEvent",
    "Event",
    "FinalEvent",
    "GraphAgentsError",
    "Reply",
    "RunError",
    "Session",
    "SessionContext",
    "Settings",
    "StateUpdateEvent",
    "StepEvent",
    "TokenEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "UsageError",
    "all_specs",
    "emit",
    "get_settings",
    "get_spec",
    "load",
    "register",
]
