"""The agent registry: every agent, built-in or third-party, is an entry point.

An entry point in the group ``graphagents.agents`` names an :class:`AgentSpec` object (or a
zero-argument callable returning one). The CLI, the server and the eval harness read only this
registry, so an extension package is a first-class agent by declaring::

    [project.entry-points."graphagents.agents"]
    myagent = "mypkg.agent:SPEC"
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

from ._options import describe
from ._subagent import SubAgent, SubAgentResult
from .artifacts import Artifact, artifacts_from_state
from .errors import ConfigError, UnknownAgentError

if TYPE_CHECKING:
    import numpy as np
    import typer
    from langchain_core.language_models import BaseChatModel
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.store.base import BaseStore
    from pydantic import BaseModel

    from .cache import Cache, SemanticCache
    from .evals import Evaluation
    from .routes import AgentRoutes
    from .settings import Settings
    from .store import Database
    from .userdata import UserData, UserScope

__all__ = [
    "ENTRY_POINT_GROUP",
    "AgentSpec",
    "BuildContext",
    "Check",
    "DoctorContext",
    "EmbedderFactory",
    "EmbedderLike",
    "SessionContext",
    "SubAgent",
    "SubAgentResult",
    "all_specs",
    "broken_agents",
    "get_spec",
    "register",
    "subagent",
    "unregister",
]

ENTRY_POINT_GROUP = "graphagents.agents"
ANONYMOUS = "anonymous"


class EmbedderLike(Protocol):
    """The shape of ``graphagents.retrieval.Embedder`` that the core relies on."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray: ...


EmbedderFactory = Callable[[], EmbedderLike]


class _Once:
    """A value computed on first use, once, under a lock (BuildContext is frozen)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = False
        self._value: Any = None

    def get(self, make: Callable[[], Any]) -> Any:
        with self._lock:
            if not self._done:
                self._value = make()
                self._done = True
            return self._value


@dataclass(frozen=True)
class BuildContext:
    """What a builder gets.

    ``llm`` is the agent's chat model (None = offline brains); ``model(role)`` a named model
    ("planner", "coder", "judge" ...) configured with ``ga.load(..., models={role: spec})`` or the
    setting ``GRAPHAGENTS_MODELS``, the agent's ``llm`` when a role is not configured.
    ``options`` are the validated agent options with their defaults (``typed_options`` the
    ``AgentSpec.options_model`` instance). ``database`` is the application database, ``store``
    a LangGraph ``BaseStore`` for long-term memory (compile with ``store=ctx.store`` to give nodes
    ``get_store()``), ``user_namespace(user_id, *labels)`` the namespace of a user's items in it
    (exported and erased with the user's data, no hook needed), ``cache(namespace)`` a cache
    private to this agent, ``semantic_cache(namespace)`` a semantic cache private to this agent
    (scope its entries by the user id: ``SemanticCache.delete_scope(user_id)`` is that user's
    erasure), ``embedder`` the sentence embedder (``graphagents.retrieval.load_embedder`` of the
    ``embedder`` setting unless ``ga.load`` was given another; built on first use). The services
    open on first use, so an agent pays only for what it touches.
    """

    llm: BaseChatModel | None
    checkpointer: BaseCheckpointSaver | None
    settings: Settings
    options: Mapping[str, Any] = field(default_factory=dict)
    agent: str = ""
    typed_options: BaseModel | None = None
    models: Mapping[str, BaseChatModel | None] = field(default_factory=dict)
    embedder_factory: EmbedderFactory | None = None
    _embedder: _Once = field(default_factory=_Once, repr=False, compare=False)

    def model(self, role: str) -> BaseChatModel | None:
        return self.models.get(role, self.llm)

    @property
    def database(self) -> Database:
        from .store import database_for

        return database_for(self.settings.resolved_database_url)

    @property
    def store(self) -> BaseStore:
        from ._connections import store_for

        return store_for(self.settings.resolved_store_url)

    def cache(self, namespace: str, *, maxsize: int = 1000, ttl: float = 3600) -> Cache:
        """The process's cache ``<agent>:<namespace>`` (Redis when ``CACHE_URL`` says so)."""
        from ._connections import cache_for

        return cache_for(self.settings.cache_url, f"{self.agent or 'agent'}:{namespace}", maxsize=maxsize, ttl=ttl)

    def semantic_cache(self, namespace: str) -> SemanticCache:
        """The process's semantic cache ``<agent>:<namespace>`` (Redis when ``CACHE_URL`` says so),
        over this context's embedder: one per (cache URL, namespace, embedder), shared by every agent
        and user-data hook of the process. A hit needs the same scope, an equal slot signature and a
        close embedding (see :mod:`graphagents.cache`)."""
        from ._connections import semantic_cache_for

        embedder = self.embedder
        if embedder is None:
            from .retrieval import load_embedder

            embedder = load_embedder(self.settings.embedder)
        return semantic_cache_for(self.settings.cache_url, f"{self.agent or 'agent'}:{namespace}", embedder)

    def user_namespace(self, user_id: str, *labels: str) -> tuple[str, ...]:
        """The ``store`` namespace of ``user_id``'s items of this agent: ``("users", user_id, agent,
        *labels)``. The core exports and erases everything under a user's namespace."""
        from .userdata import user_namespace

        return user_namespace(user_id, self.agent or "agent", *labels)

    @property
    def embedder(self) -> EmbedderLike | None:
        factory = self.embedder_factory
        return None if factory is None else self._embedder.get(factory)


@dataclass(frozen=True)
class SessionContext:
    """What ``make_input`` gets: the session's id, its validated options (with defaults), whether it
    is the first turn, and the user who owns the session."""

    session_id: str
    options: Mapping[str, Any]
    first_turn: bool
    user_id: str = ANONYMOUS


def _default_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "session_options": dict(session.options)}


def _default_user_text(values: Mapping[str, Any]) -> str:
    text = values.get("user_input")
    return text if isinstance(text, str) else ""


@dataclass(frozen=True)
class DoctorContext:
    """What an agent's doctor hook gets: the resolved settings, the agent's options (with their
    defaults, validated), and the services a check may open (the same ones ``BuildContext`` gives)."""

    settings: Settings
    agent: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def database(self) -> Database:
        from .store import database_for

        return database_for(self.settings.resolved_database_url)

    @property
    def store(self) -> BaseStore:
        from ._connections import store_for

        return store_for(self.settings.resolved_store_url)


@dataclass(frozen=True)
class Check:
    """One line of ``graphagents doctor``: ``run()`` returns what it found ("opened", "3 tables") or
    raises; a ``GraphAgentsError`` is printed as its message, anything else with its type."""

    name: str
    run: Callable[[], str]


_HIDDEN_STATE = frozenset({"messages", "session_options", "remaining_steps", "artifacts"})
"""Not shown by the default ``public_state``: chat history, options, LangGraph's managed values and
artifacts (those travel on ``FinalEvent.artifacts``)."""


def _default_public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in _HIDDEN_STATE}


@dataclass(frozen=True)
class AgentSpec:
    """Everything the runtime needs to know about one agent.

    ``build`` returns a compiled LangGraph graph. The graph reads the user's text from the
    state produced by ``make_input`` and either ends with a ``reply`` key in its state or waits
    for the user with ``interrupt(question)`` (the question is the reply of that turn).

    ``options_model`` / ``session_options_model`` are pydantic models (``extra="forbid"``) for the
    agent's options (``ga.load(name, **options)``, ``-o key=value``) and a session's options
    (``agent.session(**options)``, the HTTP body's ``options``); they are validated when the agent
    is loaded and when a session is created. ``artifacts`` turns the final state of a turn into
    typed artifacts (default: the state key ``"artifacts"``). ``user_data`` exports and erases
    a user's data that lives outside the checkpointer and the user's store namespace (see
    :mod:`graphagents.userdata`).

    What the surfaces take from an agent, so that none of them names one:

    * ``routes``: the agent's own HTTP routes (:class:`graphagents.routes.AgentRoutes`), mounted
      under ``/api/agents/<name>``;
    * ``page_view``: ``"package:file.js"``, an ES module shipped as package data that the web page
      imports when the agent is selected (served at ``/views/<name>.js``; see docs/architecture.md
      for what it exports); without one the page draws the state generically;
    * ``view_data``: what ``GET /api/agents/<name>/view`` returns besides the name, from the
      agent's options (slotfill: the scenario's groups and labels);
    * ``user_text``: the user's words in a graph input made by ``make_input`` (the transcript and
      the session list read it back from the checkpoints);
    * ``doctor``: the agent's checks for ``graphagents doctor`` (its data, index, services);
    * ``check_session``: a check of a new session's options against what its user owns.
    * ``warm``: work the agent's first turn would otherwise do inline (example vectors, an index),
      run with the agent's :class:`BuildContext` by the server's warm-up before ``/readyz`` says
      ready: done in a turn, it holds up that request and, through the GIL, every other turn of the
      process meanwhile.
    """

    name: str
    title: str
    description: str
    build: Callable[[BuildContext], CompiledStateGraph]
    samples: Sequence[Sequence[str]] = ()
    make_input: Callable[[str, SessionContext], dict[str, Any]] = _default_input
    public_state: Callable[[Mapping[str, Any]], dict[str, Any]] = _default_public_state
    artifacts: Callable[[Mapping[str, Any]], Sequence[Artifact]] = artifacts_from_state
    step_cap: int | None = None
    chat_fields: Sequence[str] = ()
    """Public-state keys that ``chat --json`` lifts to the top of each line (e.g. stage, slots)."""
    options_model: type[BaseModel] | None = None
    session_options_model: type[BaseModel] | None = None
    cli: Callable[[], typer.Typer] | None = None
    evaluation: Callable[[], Evaluation] | None = None
    """The agent's evaluation (:class:`graphagents.evals.Evaluation`: datasets, case runner, scorer,
    oracle), built on first use; ``graphagents eval <name>`` and ``make eval`` run it."""
    user_data: UserData | None = None
    """How to export and erase what the agent keeps about a user beyond its sessions' threads and
    the user's store namespace (application records, cache scopes): see :mod:`graphagents.userdata`."""
    routes: Callable[[], AgentRoutes] | None = None
    page_view: str | None = None
    view_data: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    user_text: Callable[[Mapping[str, Any]], str] = _default_user_text
    doctor: Callable[[DoctorContext], Sequence[Check]] | None = None
    check_session: Callable[[UserScope, Mapping[str, Any]], None] | None = None
    """Checks a new session's options (with defaults) against what its user owns, when the session
    is created: tableqa refuses a session that names another user's upload (``UnknownSessionError``,
    404) rather than failing at its first message."""
    warm: Callable[[BuildContext], None] | None = None

    @property
    def options_help(self) -> dict[str, str]:
        """``{option: description}`` from ``options_model``."""
        return describe(self.options_model)

    @property
    def session_options_help(self) -> dict[str, str]:
        return describe(self.session_options_model)


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


def subagent(name: str, parent: BuildContext, *, llm: BaseChatModel | None, **options: Any) -> SubAgent:
    """A registered agent as a typed handle for another agent (a composite agent's team or tool).

    The sub-agent is configured through its own options model (validated here, one-line errors
    naming ``name``), shares the parent's settings and embedder, and gets no checkpointer of its
    own: invoked inside a parent node it checkpoints in the parent's thread, and its events reach
    the session with its namespace. ``SubAgent.invoke(text)`` runs the sub-agent's ``make_input``,
    its graph, ``public_state`` and ``artifacts``: the parent reads what users of the sub-agent
    see, never its state keys."""
    from ._options import validate_options

    spec = get_spec(name)
    values, typed = validate_options(spec.options_model, options, agent=name, session=False)
    graph = spec.build(BuildContext(llm, None, parent.settings, values, agent=name, typed_options=typed,
                                    embedder_factory=parent.embedder_factory))
    return SubAgent(spec, graph, parent=parent.agent)

