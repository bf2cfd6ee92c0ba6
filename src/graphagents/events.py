"""Typed events that agents emit while a turn runs.

Nodes call :func:`emit`; the runtime turns LangGraph's stream (subgraphs included) into these
events, and the server's SSE encoder turns them into ``event: <type>`` / ``data: <json>`` frames.

Every event carries ``namespace``: the path of subgraph nodes it came from, as readable node names
(``()`` for the top graph, ``("research",)`` for a node inside the ``research`` subgraph,
``("research", "web")`` one level deeper). Nodes never set it; the runtime stamps it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from langgraph.config import get_stream_writer

from .artifacts import Artifact
from .usage import Usage

__all__ = [
    "DecisionEvent",
    "DegradedEvent",
    "ErrorEvent",
    "Event",
    "EventType",
    "FinalEvent",
    "Question",
    "StateUpdateEvent",
    "StepEvent",
    "TokenEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "emit",
    "jsonable",
]

EventType = Literal[
    "token", "step", "tool_call", "tool_result", "decision", "state_update", "degraded", "final", "error"
]


@dataclass(frozen=True)
class Event:
    type: ClassVar[EventType]
    namespace: tuple[str, ...] = field(default=(), kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {"type": self.type, **_jsonable(data)}


@dataclass(frozen=True)
class TokenEvent(Event):
    """A piece of text as it is produced; ``section`` names an XML section when there is one."""

    type: ClassVar[EventType] = "token"
    text: str
    section: str = "reply"


@dataclass(frozen=True)
class StepEvent(Event):
    """A graph node started or finished."""

    type: ClassVar[EventType] = "step"
    node: str
    phase: Literal["start", "end"]
    error: str | None = None


@dataclass(frozen=True)
class ToolCallEvent(Event):
    type: ClassVar[EventType] = "tool_call"
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""


@dataclass(frozen=True)
class ToolResultEvent(Event):
    type: ClassVar[EventType] = "tool_result"
    tool: str
    ok: bool
    summary: str
    data: Any = None
    call_id: str = ""


@dataclass(frozen=True)
class DecisionEvent(Event):
    """An orchestration or policy decision, with the reason a reader needs to audit it."""

    type: ClassVar[EventType] = "decision"
    kind: str
    choice: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DegradedEvent(Event):
    """A decision point fell back (to the offline brain, or a safe default) because the model could
    not be used. ``step`` names the decision point, ``reason`` is a short code (``timeout``,
    ``connection``, ``rate_limited``, ``http_error``, ``unusable``, ``empty``, ``deadline``,
    ``error``) and ``message`` says it to the user. Never the provider's own error text: that goes
    to the server log only."""

    type: ClassVar[EventType] = "degraded"
    step: str
    reason: str
    message: str = ""


@dataclass(frozen=True)
class StateUpdateEvent(Event):
    type: ClassVar[EventType] = "state_update"
    state: dict[str, Any]


@dataclass(frozen=True)
class Question:
    """A question the graph is waiting on (one ``interrupt()``): ``path`` names the nodes from the
    top graph down to the one that asked, e.g. ``("ask_city",)`` or ``("travel", "ask_dates")``."""

    id: str
    text: str
    path: tuple[str, ...] = ()
    value: Any = None


@dataclass(frozen=True)
class FinalEvent(Event):
    """The end of a turn: the reply, whether the conversation is over, and the public state.

    ``questions`` lists every pending question, the first being the one this reply asks (the
    next message answers it); ``artifacts`` are the typed results of the turn; ``usage`` its cost.
    """

    type: ClassVar[EventType] = "final"
    text: str
    done: bool
    state: dict[str, Any] = field(default_factory=dict)
    artifacts: Sequence[Artifact] = ()
    questions: Sequence[Question] = ()
    usage: Usage | None = None


@dataclass(frozen=True)
class ErrorEvent(Event):
    type: ClassVar[EventType] = "error"
    message: str
    code: str = "error"


def emit(event: Event) -> None:
    """Send an event to whoever is streaming the current run; a no-op outside a run."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a LangGraph run (unit tests of a node)
        return
    writer(event)


def _jsonable(value: Any) -> Any:
    """Best-effort conversion so that every event can be JSON-encoded without surprises."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_jsonable(v) for v in items]
    if isinstance(value, Artifact):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if hasattr(value, "model_dump"):
        return _jsonable(value.model_dump())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


jsonable = _jsonable
