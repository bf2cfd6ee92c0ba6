"""The text2sql AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphagents.registry import AgentSpec, SessionContext

from .agent_context import MAX_CALLS_LIMIT
from .graph import build

# prepare + (think, act) per tool call + parse retries + a final think + finish, at the largest budget.
# Confirm mode adds at most one confirm run before its interrupt; the rest of a confirmed step runs in
# the next turn, which gets a fresh recursion limit from LangGraph.
STEP_CAP = 2 * MAX_CALLS_LIMIT + 10


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "session_options": dict(session.options)}


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    react = values.get("react") or {}
    return {
        "question": values.get("question", ""),
        "status": values.get("status", ""),
        "sql": values.get("sql"),
        "table": values.get("table"),
        "explain": values.get("explain"),
        "rewrites": values.get("rewrites", []),
        "tool_calls": list(react.get("used_tools", [])),
        "reply": values.get("reply", ""),
    }


def _cli() -> Any:
    from .cli import app

    return app


def _eval_cli() -> Any:
    from .eval import eval_command

    return eval_command


SPEC = AgentSpec(
    name="text2sql",
    title="Text-to-SQL (ReAct)",
    description="Answers questions about a database with a ReAct loop: explore, explain, preview, submit.",
    build=build,
    samples=[["지역별 매출 상위 5개"], ["How many customers are there?"]],
    make_input=make_input,
    public_state=public_state,
    step_cap=STEP_CAP,
    options_help={
        "db": "database URL (sqlite:///file.db or postgresql://...); default: the demo SQLite under DATA_DIR",
        "max_calls": "tool-call budget per question (2-20, default 8)",
        "min_exploration": "exploration calls required before the first submit (default 1)",
        "preview_limit": "rows shown by execute_sql_preview (default 10)",
        "statement_timeout_s": "per-statement timeout in seconds (default 10)",
        "max_rows": "rows kept from the submitted query (default 1000)",
        "cache": "use the query cache (default true)",
        "confirm_steps": "ask the user before each SQL tool call (explain, preview, submit): true/false, "
                         "or 'all' for every tool call (default false)",
    },
    cli=_cli,
    eval_cli=_eval_cli,
)
