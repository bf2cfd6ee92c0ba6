"""Graph state of the text2sql agent and the per-question ReAct bookkeeping the policy reads.

``ReactSessionState`` is the tool loop's :class:`~graphagents.toolloop.Budget` plus what the SQL
policy needs (explained SQL, the last SQL, the last database error); in the graph state it
travels as a dict (``to_dict``/``from_dict``) so every checkpointer can store it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from langgraph.managed import RemainingSteps

from graphagents.toolloop import Budget, fresh_loop

EXPLORATION_TOOLS = frozenset({"search_tables", "search_columns", "search_column_values", "find_similar_query"})
SQL_TOOLS = frozenset({"explain", "execute_sql_preview", "submit_sql"})

Status = Literal["running", "submitted", "cache", "answered", "budget", "steps", "error", "cancelled"]


@dataclass
class ReactSessionState(Budget):
    """What the policy needs to know about the current question's loop."""

    min_exploration: int = 1
    explained_sqls: list[str] = field(default_factory=list)
    last_sql: str = ""
    last_error: str = ""

    @property
    def exploration_tool_count(self) -> int:
        return sum(1 for t in self.used_tools if t in EXPLORATION_TOOLS)

    def has_enough_exploration(self) -> bool:
        return self.exploration_tool_count >= self.min_exploration

    def has_any_explained_sql(self) -> bool:
        return bool(self.explained_sqls)

    def is_sql_explained(self, key: str) -> bool:
        return key in self.explained_sqls

    def note_sql(self, tool: str, *, ok: bool, sql_key: str = "", sql: str = "") -> None:
        """What a call taught the policy: the latest SQL, and which SQL passed explain."""
        if sql:
            self.last_sql = sql
        if tool == "explain" and ok and sql_key and sql_key not in self.explained_sqls:
            self.explained_sqls.append(sql_key)

    def record_tool_use(self, tool: str, *, ok: bool, sql_key: str = "", sql: str = "") -> None:
        self.record(tool)
        self.note_sql(tool, ok=ok, sql_key=sql_key, sql=sql)


class Text2SqlState(TypedDict, total=False):
    user_input: str
    user_id: str  # who asks: the query cache is scoped to them
    session_options: dict[str, Any]
    question: str
    react: dict[str, Any]
    transcript: list[dict[str, Any]]  # {"response": kept model XML, "observation": tool XML, "tool", "ok", "data"}
    pending: dict[str, Any] | None  # the step waiting for act, after the policy: what will really run
    confirmation: dict[str, Any] | None  # confirm mode: {"reasks", "result": "run"|"ask", "note"}
    status: Status
    sql: str | None
    table: dict[str, Any] | None
    explain: dict[str, Any] | None  # last EXPLAIN analysis: risks, suggestions, summary
    rewrites: list[dict[str, str]]
    answer: str  # the model's user_facing text of the final step
    reply: str
    remaining_steps: RemainingSteps  # managed by LangGraph: the loop ends in finish before the cap


def fresh_turn(question: str, *, max_calls: int, min_exploration: int) -> dict[str, Any]:
    """Everything a new question resets: one turn is one question."""
    budget = ReactSessionState(max_calls=max_calls, min_exploration=min_exploration)
    return {"question": question, **fresh_loop(budget), "sql": None, "table": None, "explain": None, "reply": ""}
