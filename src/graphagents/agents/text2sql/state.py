"""Graph state of the text2sql agent and the per-question ReAct bookkeeping the policy reads.

``ReactSessionState`` is a plain dataclass for the policy and the nodes; in the graph state it
travels as a dict (``to_dict``/``from_dict``) so every checkpointer can store it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypedDict

EXPLORATION_TOOLS = frozenset({"search_tables", "search_columns", "search_column_values", "find_similar_query"})
SQL_TOOLS = frozenset({"explain", "execute_sql_preview", "submit_sql"})

Status = Literal["running", "submitted", "cache", "answered", "budget", "error", "cancelled"]


@dataclass
class ReactSessionState:
    """What the policy needs to know about the current question's loop."""

    max_calls: int = 8
    min_exploration: int = 1
    iteration: int = 0
    used_tools: list[str] = field(default_factory=list)
    explained_sqls: list[str] = field(default_factory=list)
    last_sql: str = ""
    last_error: str = ""
    parse_failures: int = 0

    @property
    def remaining_tool_calls(self) -> int:
        return max(self.max_calls - len(self.used_tools), 0)

    @property
    def exploration_tool_count(self) -> int:
        return sum(1 for t in self.used_tools if t in EXPLORATION_TOOLS)

    def has_enough_exploration(self) -> bool:
        return self.exploration_tool_count >= self.min_exploration

    def has_any_explained_sql(self) -> bool:
        return bool(self.explained_sqls)

    def is_sql_explained(self, key: str) -> bool:
        return key in self.explained_sqls

    def record_tool_use(self, tool: str, *, ok: bool, sql_key: str = "", sql: str = "") -> None:
        self.used_tools.append(tool)
        if sql:
            self.last_sql = sql
        if tool == "explain" and ok and sql_key and sql_key not in self.explained_sqls:
            self.explained_sqls.append(sql_key)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ReactSessionState:
        return cls(**(data or {}))


class Text2SqlState(TypedDict, total=False):
    user_input: str
    session_options: dict[str, Any]
    question: str
    react: dict[str, Any]
    transcript: list[dict[str, str]]  # {"response": model XML, "observation": tool XML}
    pending: dict[str, Any] | None  # the step waiting for act, after the policy: what will really run
    confirmation: dict[str, Any] | None  # confirm mode: {"reasks", "result": "run"|"ask", "note"}
    status: Status
    sql: str | None
    table: dict[str, Any] | None
    explain: dict[str, Any] | None  # last EXPLAIN analysis: risks, suggestions, summary
    rewrites: list[dict[str, str]]
    answer: str  # the model's user_facing text of the final step
    reply: str


def fresh_turn(question: str, *, max_calls: int, min_exploration: int) -> dict[str, Any]:
    """Everything a new question resets: one turn is one question."""
    return {
        "question": question,
        "react": ReactSessionState(max_calls=max_calls, min_exploration=min_exploration).to_dict(),
        "transcript": [],
        "pending": None,
        "confirmation": None,
        "status": "running",
        "sql": None,
        "table": None,
        "explain": None,
        "rewrites": [],
        "answer": "",
        "reply": "",
    }
