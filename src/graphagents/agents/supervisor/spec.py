"""The supervisor AgentSpec: registered through the ``graphagents.agents`` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphagents.registry import AgentSpec, BuildContext, DoctorContext, SessionContext

from .graph import build
from .options import MAX_ROUNDS_LIMIT, SupervisorOptions

STEP_CAP = 3 * MAX_ROUNDS_LIMIT + 8
"""initialize, planning, three steps per round at the largest round cap, aggregate, respond, margin."""


def make_input(text: str, session: SessionContext) -> dict[str, Any]:
    return {"user_input": text, "session_options": dict(session.options)}


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    planning = values.get("planning_state") or {}
    intent = dict(planning.get("analyzed_intent") or {})
    intent.pop("neighbours", None)
    agg = values.get("aggregated") or {}
    return {
        "query": values.get("query", ""),
        "intent": intent,
        "plan": values.get("execution_plan") or {},
        "plan_method": planning.get("method", ""),
        "decisions": values.get("orchestration_decisions") or [],
        "team_runs": [{k: r.get(k) for k in ("id", "team", "status", "count", "summary", "seconds", "error")}
                      for r in values.get("team_runs") or []],
        "completed_teams": values.get("completed_teams") or [],
        "rounds": values.get("rounds", 0),
        "finish_reason": values.get("finish_reason", ""),
        "caps_hit": values.get("caps_hit") or [],
        "citations": [c["id"] for c in agg.get("citations") or []],
        "missing": agg.get("missing") or [],
        "sources": agg.get("sources") or [],
        "reply": values.get("reply", ""),
    }


def _cli() -> Any:
    from .cli import app

    return app


def _evaluation() -> Any:
    from .eval import EVALUATION

    return EVALUATION


def _doctor(ctx: DoctorContext) -> Any:
    from .doctor import checks

    return checks(ctx)


def _warm(build: BuildContext) -> None:
    """The offline planner's example vectors, into the embedder the agent's context will use (see
    ``context.open_context``): otherwise the first question computes them, about 6 s of CPU."""
    from graphagents.retrieval import load_embedder

    from .offline.classifier import example_matrix, load_examples

    embedder = build.embedder
    example_matrix(load_embedder() if embedder is None else embedder, load_examples())


SPEC = AgentSpec(
    name="supervisor",
    title="Real-estate team supervisor",
    description="Plans, orchestrates and runs search (laws, prices via text2sql, loans), analysis and document teams.",
    build=build,
    samples=[["전세 계약 갱신청구권이 뭐야?"],
             ["강남구 30평대 아파트 매매 시세 알려주고 대출 가능 금액과 계약서 주의사항 정리해줘"]],
    make_input=make_input,
    public_state=public_state,
    step_cap=STEP_CAP,
    chat_fields=("finish_reason", "completed_teams"),
    options_model=SupervisorOptions,
    cli=_cli,
    evaluation=_evaluation,
    page_view="graphagents.agents.supervisor:view.js",
    doctor=_doctor,
    warm=_warm,
)
