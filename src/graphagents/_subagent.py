"""The typed handle a composite agent gets for a registered sub-agent (``registry.subagent``).

The parent hands the sub-agent a user's words and reads back what a user of the sub-agent would
see: its reply, its public state and its typed artifacts. It never builds the sub-agent's input
or reads its state keys, so the sub-agent can change both without breaking its parents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .artifacts import Artifact
from .events import jsonable

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph

    from .registry import AgentSpec, SessionContext

__all__ = ["SubAgent", "SubAgentResult"]


@dataclass(frozen=True)
class SubAgentResult:
    """One run of a sub-agent. ``state`` is its public state (``AgentSpec.public_state``),
    ``artifacts`` its typed artifacts (SQL, tables ...), ``status`` its own status word when its
    public state has one (``"submitted"``, ``"declined"`` ...), else ``"done"``."""

    reply: str
    state: Mapping[str, Any]
    artifacts: Sequence[Artifact] = ()
    status: str = "done"

    def first(self, kind: type[Artifact]) -> Any:
        """The first artifact of that type, or None."""
        return next((a for a in self.artifacts if isinstance(a, kind)), None)


@dataclass(frozen=True)
class SubAgent:
    """A registered agent built for another agent (see :func:`graphagents.registry.subagent`)."""

    spec: AgentSpec
    graph: CompiledStateGraph
    parent: str = ""
    session_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name

    def _input(self, text: str, user_id: str | None, session_id: str | None,
               config: RunnableConfig | None) -> dict[str, Any]:
        from ._options import validate_options
        from .registry import ANONYMOUS, SessionContext

        options, _ = validate_options(self.spec.session_options_model, dict(self.session_options),
                                      agent=self.name, session=True)
        configurable = _configurable(config)
        user = user_id or str(configurable.get("user_id") or ANONYMOUS)
        sid = session_id or str(configurable.get("thread_id") or f"{self.parent or 'parent'}:{self.name}")
        context: SessionContext = SessionContext(sid, options, first_turn=True, user_id=user)
        return self.spec.make_input(text, context)

    def _result(self, values: Mapping[str, Any]) -> SubAgentResult:
        public = jsonable(self.spec.public_state(values))
        status = public.get("status") if isinstance(public, Mapping) else None
        reply = values.get("reply")
        return SubAgentResult(reply=reply if isinstance(reply, str) else "", state=public,
                              artifacts=tuple(self.spec.artifacts(values)),
                              status=status if isinstance(status, str) and status else "done")

    def invoke(self, text: str, config: RunnableConfig | None = None, *, user_id: str | None = None,
               session_id: str | None = None) -> SubAgentResult:
        """Run the sub-agent on ``text`` (inside a parent node, its events carry the node's namespace).
        The user is ``user_id``, else the running parent's (its config), else ``"anonymous"``."""
        graph_input = self._input(text, user_id, session_id, config)
        return self._result(self.graph.invoke(graph_input, config))

    async def ainvoke(self, text: str, config: RunnableConfig | None = None, *, user_id: str | None = None,
                      session_id: str | None = None) -> SubAgentResult:
        graph_input = self._input(text, user_id, session_id, config)
        return self._result(await self.graph.ainvoke(graph_input, config))


def _configurable(config: RunnableConfig | None) -> Mapping[str, Any]:
    """The running parent's ``configurable`` (the explicit config, else the one LangGraph keeps for
    the node that is running), empty outside a run."""
    if config is not None:
        return config.get("configurable") or {}
    try:
        from langgraph.config import get_config

        return get_config().get("configurable") or {}
    except RuntimeError:  # not inside a runnable
        return {}
