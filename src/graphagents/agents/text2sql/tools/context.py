"""What every tool gets: the agent's shared resources plus the current question's loop facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..agent_context import AgentContext


@dataclass
class ToolContext:
    agent: AgentContext
    question: str
    last_error: str = ""  # the latest database error: search_column_values reads hint columns from it

    @property
    def db(self) -> Any:
        return self.agent.db

    @property
    def guard(self) -> Any:
        return self.agent.guard

    @property
    def options(self) -> dict[str, Any]:
        return self.agent.options


@dataclass(frozen=True)
class ToolResult:
    """``content`` goes back to the model; ``summary`` and ``data`` go to the event panel."""

    ok: bool
    content: str
    summary: str
    data: dict[str, Any] = field(default_factory=dict)
    sql: str = ""  # the SQL the tool ran, as the guard regenerated it
    table: dict[str, Any] | None = None


def failure(message: str, *, fix: str = "", data: dict[str, Any] | None = None, sql: str = "") -> ToolResult:
    content = message if not fix else f"{message}\nHow to fix: {fix}"
    return ToolResult(False, content, message.splitlines()[0][:200], data or {}, sql)
