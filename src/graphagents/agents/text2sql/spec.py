"""The text2sql AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graphagents.artifacts import Artifact, SqlArtifact, TableArtifact
from graphagents.errors import ConfigError
from graphagents.registry import AgentSpec, DoctorContext, SessionContext
from graphagents.userdata import UserData, UserScope

from .agent_context import DEFAULTS, MAX_CALLS_LIMIT
from .confirm import parse_confirm_steps
from .graph import build

# prepare + (think, act) per tool call + parse retries + a final think + finish, at the largest budget.
# Confirm mode adds at most one confirm run before its interrupt; the rest of a confirmed step runs in
# the next turn, which gets a fresh recursion limit from LangGraph.
STEP_CAP = 2 * MAX_CALLS_LIMIT + 10


class Text2SqlOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    db: str | None = Field(
        None,
        description="database URL (sqlite:///file.db or postgresql://...); default: the demo SQLite under DATA_DIR",
    )
    max_calls: int = Field(DEFAULTS["max_calls"], ge=2, le=MAX_CALLS_LIMIT,
                           description=f"tool-call budget per question (2-{MAX_CALLS_LIMIT}, default 8)")
    min_exploration: int = Field(DEFAULTS["min_exploration"], ge=0,
                                 description="exploration calls required before the first submit (default 1)")
    preview_limit: int = Field(DEFAULTS["preview_limit"], ge=1,
                               description="rows shown by execute_sql_preview (default 10)")
    statement_timeout_s: float = Field(DEFAULTS["statement_timeout_s"], gt=0,
                                       description="per-statement timeout in seconds (default 10)")
    max_rows: int = Field(DEFAULTS["max_rows"], ge=1, description="rows kept from the submitted query (default 1000)")
    cache: bool = Field(DEFAULTS["cache"], description="use the query cache (default true)")
    confirm_steps: Literal["off", "sql", "all"] = Field(
        "off",
        description="ask the user before each SQL tool call (explain, preview, submit): true/false, "
        "or 'all' for every tool call (default false)",
    )

    @field_validator("confirm_steps", mode="before")
    @classmethod
    def _confirm_mode(cls, value: Any) -> str:
        try:
            return parse_confirm_steps(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _room_for_submit(self) -> Text2SqlOptions:
        if self.min_exploration >= self.max_calls - 1:
            raise ValueError("min_exploration must leave room for explain and submit_sql (below max_calls - 1)")
        return self


def artifacts(values: Mapping[str, Any]) -> list[Artifact]:
    """The submitted SQL and its result table, when the turn has them."""
    out: list[Artifact] = []
    sql = values.get("sql")
    if isinstance(sql, str) and sql.strip():
        out.append(SqlArtifact(sql=sql))
    table = values.get("table")
    if isinstance(table, Mapping) and table.get("columns"):
        total = table.get("total_rows")
        out.append(TableArtifact(columns=list(table["columns"]), rows=list(table.get("rows") or []),
                                 total_rows=total if isinstance(total, int) else None,
                                 truncated=bool(table.get("truncated"))))
    return out


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "user_id": session.user_id, "session_options": dict(session.options)}


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


def _export_user(scope: UserScope) -> dict[str, Any]:
    """The user's similar-query memory: the questions they asked and the SQL that answered them."""
    from .memory import export_user_entries

    return {"query_memory": export_user_entries(scope.database, scope.user_id)}


def _delete_user(scope: UserScope) -> int:
    """The user's similar-query memory and every result cached for them (results are not exported:
    they are copies of database rows, not something the user gave us)."""
    from .memory import delete_user_entries
    from .query_cache import RESULTS_NAMESPACE, QueryCache

    removed = delete_user_entries(scope.database, scope.user_id)
    return removed + QueryCache(scope.cache(RESULTS_NAMESPACE)).delete_user(scope.user_id)


def _cli() -> Any:
    from .cli import app

    return app


def _doctor(ctx: DoctorContext) -> Any:
    from .doctor import checks

    return checks(ctx)


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


SPEC = AgentSpec(
    name="text2sql",
    title="Text-to-SQL (ReAct)",
    description="Answers questions about a database with a ReAct loop: explore, explain, preview, submit.",
    build=build,
    samples=[["지역별 매출 상위 5개"], ["How many customers are there?"]],
    make_input=make_input,
    public_state=public_state,
    step_cap=STEP_CAP,
    artifacts=artifacts,
    options_model=Text2SqlOptions,
    cli=_cli,
    evaluation=_evaluation,
    user_data=UserData(export=_export_user, delete=_delete_user),
    page_view="graphagents.agents.text2sql:view.js",
    doctor=_doctor,
)
