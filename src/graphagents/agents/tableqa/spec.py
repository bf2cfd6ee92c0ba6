"""The tableqa AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphagents.artifacts import Artifact, IntermediateTableArtifact, TableArtifact
from graphagents.registry import AgentSpec, DoctorContext, SessionContext
from graphagents.userdata import UserData, UserScope

from .config import MAX_STEPS_LIMIT, TableQAOptions, TableQASessionOptions
from .graph import build

# prepare + (plan, act) per step + a plan that hits the cap + finish, at the largest max_steps.
STEP_CAP = 2 * MAX_STEPS_LIMIT + 4


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "session_options": dict(session.options), "user_id": session.user_id}


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "question": values.get("question", ""),
        "status": values.get("status", ""),
        "answer": list(values.get("answers") or []),
        "answer_table": values.get("answer_table"),
        "steps": [
            {k: s.get(k) for k in ("step", "thought", "action", "argument", "code", "observation", "ok", "votes",
                                   "code_votes", "error_type", "table_id")}
            for s in values.get("steps", [])
        ],
        "original_tables": list(values.get("original_tables", [])),
        "intermediate_tables": list(values.get("intermediate_tables", [])),
        "tables_used": list(values.get("tables_used", [])),
        "reason": values.get("reason", ""),
        "reply": values.get("reply", ""),
    }


ARTIFACT_ROWS = 50
"""Rows of each table sent with the reply (``total_rows`` says how many there are)."""


def _rows(table_id: str) -> tuple[list[str], list[list[Any]], int] | None:
    from graphagents.sandbox import get_store

    try:
        frame = get_store().get(table_id)
    except Exception:  # a table deleted since (its upload was removed): no artifact, never a failed turn
        return None
    head = frame.head(ARTIFACT_ROWS).astype(object)
    rows = [[None if _missing(v) else v for v in row] for row in head.itertuples(index=False)]
    return [str(c) for c in frame.columns], rows, len(frame)


def _missing(value: Any) -> bool:
    try:
        return bool(value != value)  # NaN / NaT
    except (TypeError, ValueError):
        return False


def artifacts(values: Mapping[str, Any]) -> list[Artifact]:
    """Every intermediate table of the turn (``intermediate_table``, in step order, first
    ``ARTIFACT_ROWS`` rows), then the answer table when the answer is a whole table."""
    out: list[Artifact] = []
    for table in values.get("intermediate_tables") or []:
        got = _rows(table["id"])
        if got is None:
            continue
        columns, rows, total = got
        label = f"{table['step']}: {table['action']}[{table['instruction']}]"
        out.append(IntermediateTableArtifact(columns=columns, rows=rows, total_rows=total, truncated=total > len(rows),
                                             step=label,
                                             title=f"단계 {label}"))
    answer = values.get("answer_table")
    if isinstance(answer, str) and answer:
        got = _rows(answer)
        if got is not None:
            out.append(TableArtifact(columns=got[0], rows=got[1], total_rows=got[2], truncated=got[2] > len(got[1]),
                                     title="답"))
    return out


def _cli() -> Any:
    from .cli import app

    return app


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


def _routes() -> Any:
    from .routes import make_routes

    return make_routes()


def _uploads(scope: UserScope) -> Any:
    from .uploads import Uploads

    return Uploads(scope.database)


def _export_uploads(scope: UserScope) -> dict[str, Any]:
    return {"uploads": [u.public() for u in _uploads(scope).list(scope.user_id)]}


def _delete_uploads(scope: UserScope) -> int:
    return int(_uploads(scope).delete_user(scope.user_id))


def _check_session(scope: UserScope, options: Mapping[str, Any]) -> None:
    from .uploads import check_session_tables

    check_session_tables(scope, options)


def _doctor(ctx: DoctorContext) -> Any:
    from .doctor import checks

    return checks(ctx)


SPEC = AgentSpec(
    name="tableqa",
    title="Table QA (MACT)",
    description="Answers questions over one or more tables: a planner and a coder, pandas run in a sandbox, "
    "intermediate tables chained step by step.",
    build=build,
    samples=[["Which department has the most employees, and what is its budget?"]],
    make_input=make_input,
    public_state=public_state,
    step_cap=STEP_CAP,
    chat_fields=("status", "answer"),
    options_model=TableQAOptions,
    session_options_model=TableQASessionOptions,
    cli=_cli,
    evaluation=_evaluation,
    user_data=UserData(export=_export_uploads, delete=_delete_uploads),
    artifacts=artifacts,
    routes=_routes,
    page_view="graphagents.agents.tableqa:view.js",
    doctor=_doctor,
    check_session=_check_session,
)
