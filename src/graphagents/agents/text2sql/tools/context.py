"""What every tool gets: the agent's shared resources plus the current question's loop facts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphagents import toolloop
from graphagents.registry import ANONYMOUS

from ..agent_context import AgentContext


@dataclass
class ToolContext:
    agent: AgentContext
    question: str
    last_error: str = ""  # the latest database error: search_column_values reads hint columns from it
    user_id: str = ANONYMOUS  # whose similar-query memory find_similar_query reads

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
class ToolResult(toolloop.ToolResult):
    """A tool loop result that also carries the SQL the tool ran and the rows it got."""

    sql: str = ""  # the SQL the tool ran, as the guard regenerated it
    table: dict[str, Any] | None = None


def failure(message: str, *, fix: str = "", data: dict[str, Any] | None = None, sql: str = "") -> ToolResult:
    return ToolResult(False, toolloop.error_content(message, fix), toolloop.error_summary(message), data or {}, sql)
