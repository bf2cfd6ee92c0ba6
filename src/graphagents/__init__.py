"""graphagents: five production-shaped LangGraph agents on one shared core.

    import graphagents as ga
    agent = ga.load("slotfill")
    reply = agent.session().send("안녕하세요")

Public modules: ``graphagents`` (this namespace), ``errors``, ``events``, ``artifacts``, ``usage``,
``steps``, ``nodes``, ``registry``, ``runtime``, ``settings``, ``store``, ``cache``, ``llm``. Modules whose
name starts with ``_`` are internal.
"""

import importlib.metadata as _metadata

from .artifacts import (
    Artifact,
    ChartArtifact,
    CitationArtifact,
    DocumentArtifact,
    IntermediateTableArtifact,
    SqlArtifact,
    TableArtifact,
)
from .errors import (
    BusyError,
    ConfigError,
    GraphAgentsError,
    InputError,
    MissingExtraError,
    MissingKeyError,
    ModelOutputError,
    ModelRequestsBlocked,
    ModelSetupError,
    RunError,
    ServiceUnavailableError,
    SessionExistsError,
    TurnDeadlineExceeded,
    UnknownAgentError,
    UnknownProviderError,
    UnknownSessionError,
    UsageError,
)
from .events import (
    DecisionEvent,
    DegradedEvent,
    ErrorEvent,
    Event,
    FinalEvent,
    Question,
    StateUpdateEvent,
    StepEvent,
    TokenEvent,
    ToolCallEvent,
    ToolResultEvent,
    emit,
)
from .nodes import nonblocking
from .registry import AgentSpec, BuildContext, SessionContext, all_specs, get_spec, register
from .runtime import Agent, Reply, Session, load
from .settings import Settings, get_settings
from .steps import StepState, add_step_cap_node, finish_when_low, steps_low
from .usage import Usage, UsageSummary

try:
    __version__ = _metadata.version("graphagents")
except _metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Agent",
    "AgentSpec",
    "Artifact",
    "BuildContext",
    "BusyError",
    "ChartArtifact",
    "CitationArtifact",
    "ConfigError",
    "DecisionEvent",
    "DegradedEvent",
    "DocumentArtifact",
    "ErrorEvent",
    "Event",
    "FinalEvent",
    "GraphAgentsError",
    "InputError",
    "IntermediateTableArtifact",
    "MissingExtraError",
    "MissingKeyError",
    "ModelOutputError",
    "ModelRequestsBlocked",
    "ModelSetupError",
    "Question",
    "Reply",
    "RunError",
    "ServiceUnavailableError",
    "Session",
    "SessionContext",
    "SessionExistsError",
    "Settings",
    "SqlArtifact",
    "StateUpdateEvent",
    "StepEvent",
    "StepState",
    "TableArtifact",
    "TokenEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "TurnDeadlineExceeded",
    "UnknownAgentError",
    "UnknownProviderError",
    "UnknownSessionError",
    "Usage",
    "UsageError",
    "UsageSummary",
    "add_step_cap_node",
    "all_specs",
    "emit",
    "finish_when_low",
    "get_settings",
    "get_spec",
    "load",
    "nonblocking",
    "register",
    "steps_low",
]
