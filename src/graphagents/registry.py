"""The agent registry: every agent, built-in or third-party, is an entry point.

An entry point in the group ``graphagents.agents`` names an :class:`AgentSpec` object (or a
zero-argument callable returning one). The CLI, the server and the eval harness read only this
registry, so an extension package is a first-class agent by declaring::

    [project.entry-points."graphagents.agents"]
    myagent = "mypkg.agent:SPEC"
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, UnknownAgentError

if TYPE_CHECKING:
    import typer
    from langchain_core.language_models import BaseChatModel
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph

    from .settings import Settings

ENTRY_POINT_GROUP = "graphagents.agents"


@dataclass(frozen=True)
class BuildContext:
    """What a builder gets: the chat model (None = offline), the checkpointer, settings, options."""

    llm: BaseChatModel | None
    checkpointer: BaseCheckpointSaver | None
    settings: Settings
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionContext:
    """What ``make_input`` gets: the session's id, its options and whether it is the first turn."""

    session_id: str
    options: Mapping[str, Any]
    first_turn: bool


def _default_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "session_options": dict(session.options)}


def _default_public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in {"messages", "session_options"}}


@dataclass(frozen=True)
class AgentSpec:
    """Everything the runtime needs to know about one agent.

    ``build`` returns a compiled LangGraph graph. The graph reads the user's text from the
    state produced by ``make_input`` and either ends with a ``reply`` key in its state or waits
    for the user with ``interrupt(question)`` (the question is the reply of that turn).
    """

    name: str
    title: str
    description: str
    build: Callable[[BuildContext], CompiledStateGraph]
    samples: Sequence[Sequence[str]] = ()
    make_input: Callable[[str, SessionContext], dict[str, Any]] = _default_input
    public_state: Callable[[Mapping[str, Any]], dict[str, Any]] = _default_public_state
    step_cap: int | None = None
    chat_fields: Sequence[str] = ()
    """Public-state keys that ``chat --json`` lifts to the top of each line (e.g. stage, slots)."""
    options_help: Mapping[str, str] = field(default_factory=dict)
    session_options_help: Mapping[str, str] = field(default_factory=dict)
    cli: Callable[[], typer.Typer] | None = None
    eval_cli: Callable[[], Callable[..., Any]] | None = None


_extra: dict[str, AgentSpec] = {}


def register(spec: AgentSpec) -> None:
    """Register a spec in-process (tests and notebooks); entry points are the normal way."""
    _extra[spec.name] = spec


def unregister(name: str) -> None:
    _extra.pop(name, None)


_broken: dict[str, str] = {}
"""Entry points that failed to load, with the reason: one broken plugin must not take down the CLI."""


def _load_entry_points() -> dict[str, AgentSpec]:
    specs: dict[str, AgentSpec] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            spec = obj if isinstance(obj, AgentSpec) else obj()
            if not isinstance(spec, AgentSpec):
                raise TypeError(f"{ep.value!r} is not an AgentSpec")
        except Exception as exc:
            _broken[ep.name] = f"{type(exc).__name__}: {exc}"
            continue
        specs[spec.name] = spec
    return specs


def broken_agents() -> dict[str, str]:
    all_specs()
    return dict(_broken)


_cache: dict[str, AgentSpec] | None = None


def all_specs() -> dict[str, AgentSpec]:
    global _cache
    if _cache is None:
        _cache = _load_entry_points()
    return {**_cache, **_extra}


def get_spec(name: str) -> AgentSpec:
    specs = all_specs()
    try:
        return specs[name]
    except KeyError:
        if name in _broken:
            raise ConfigError(f"agent {name!r} failed to load: {_broken[name]}") from None
        known = ", ".join(sorted(specs)) or "none"
        raise UnknownAgentError(f"unknown agent {name!r}; registered agents: {known}") from None
