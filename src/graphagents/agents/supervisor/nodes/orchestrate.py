"""orchestrate: after each round, continue / add_agent / skip_remaining / collaborate.

The first round follows the plan without a call (the note's rule). Later rounds ask the model
(or the offline rules); a model error or an invalid answer falls back to ``continue`` and is
logged with the error. Whatever is decided is checked against the caps and turned into the next
batch of tasks; every decision is a ``decision`` event with its reasoning.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from langgraph.types import Send

from graphagents.events import DecisionEvent, emit
from graphagents.llm import ask_json
from graphagents.llm.degrade import fallback_reason, with_temperature
from graphagents.steps import steps_low

from ..context import SupervisorContext
from ..decisions import Decision, DecisionOut, Limits, apply, fallback, from_model, run_counts
from ..offline import orchestration as rules
from ..prompts import PROMPTS
from ..state import MainSupervisorState, TeamInput

ORCHESTRATION_TEMPERATURE = 0.2
"""The design note's sampling temperature for orchestration decisions (sent when the model has one)."""
STEPS_TO_FINISH = 4
"""aggregate + generate_response + margin: below this many steps left, orchestration stops."""


def summarize(runs: list[dict[str, Any]]) -> str:
    """The note's situation summary: one line per run, with its counts."""
    return "\n".join(f"- {r['id']} ({r['status']}): {r['summary']}" for r in runs) or "아직 완료된 작업 없음"


def remaining_steps(state: MainSupervisorState) -> list[dict[str, Any]]:
    tasks = [*(state.get("pending_teams") or []), *(state.get("plan_queue") or [])]
    return [{"team": t["team"], "task": t.get("reason", ""), "optional": bool(t.get("optional"))} for t in tasks]


def ask_model(ctx: SupervisorContext, state: MainSupervisorState, limits: Limits) -> Decision:
    assert ctx.models.orchestrator is not None
    intent = (state.get("planning_state") or {}).get("analyzed_intent") or {}
    runs = state.get("team_runs") or []
    prompt = PROMPTS.render(
        "orchestrate.md", query=state["query"], intent_type=intent.get("intent_type", ""),
        intent_confidence=f"{float(intent.get('confidence', 0)):.0%}",
        completed_teams=", ".join(state.get("completed_teams") or []) or "없음",
        situation_summary=summarize(runs), remaining_steps=json.dumps(remaining_steps(state), ensure_ascii=False),
        round=int(state.get("rounds", 0)) + 1, max_rounds=limits.max_rounds, max_team_runs=limits.max_team_runs,
        run_counts=json.dumps(dict(run_counts(runs)), ensure_ascii=False))
    errors: list[str] = []
    out = ask_json(with_temperature(ctx.models.orchestrator, ORCHESTRATION_TEMPERATURE), prompt, DecisionOut, None,
                   step="orchestrate", on_error=lambda exc: errors.append(fallback_reason(exc)))
    if out is None:
        return fallback(errors[0] if errors else "no answer")
    try:
        return from_model(out)
    except ValueError as exc:  # valid JSON that names a team we do not have, and the like
        return fallback(f"invalid decision: {exc}")


def make_orchestrate(ctx: SupervisorContext) -> Any:
    limits = Limits(ctx.options.max_rounds, ctx.options.max_team_runs)
    fixed = ctx.options.orchestration == "fixed"

    def orchestrate(state: MainSupervisorState) -> dict[str, Any]:
        runs = state.get("team_runs") or []
        queue = list(state.get("plan_queue") or [])
        pending = list(state.get("pending_teams") or [])
        strategy = (state.get("execution_plan") or {}).get("strategy", "sequential")
        intent = (state.get("planning_state") or {}).get("analyzed_intent") or {}
        if steps_low(state, STEPS_TO_FINISH):
            decision = Decision("skip_remaining", "처리 단계 한도에 가까워 지금까지의 결과로 답합니다",
                                source="step_cap")
        elif not runs:
            decision = Decision("continue", "첫 단계는 계획대로 시작합니다", source="plan")
        elif fixed:
            decision = Decision("continue", "고정 파이프라인: 계획된 팀을 모두 실행합니다", source="plan")
        elif ctx.models.orchestrator is not None:
            decision = ask_model(ctx, state, limits)
        else:
            last_ids = {t["id"] for t in state.get("current_batch") or []}
            decision = rules.decide(intent=intent, last_runs=[r for r in runs if r["id"] in last_ids], runs=runs,
                                    queue=[*pending, *queue], max_team_runs=limits.max_team_runs)
        decision, batch, updates = apply(decision, queue=queue, pending=pending, runs=runs,
                                         completed=state.get("completed_teams") or [], strategy=strategy, limits=limits)
        record = {"step": len(runs), "round": int(state.get("rounds", 0)) + 1, **decision.to_dict(),
                  "batch": [t["id"] for t in batch], "timestamp": datetime.now(UTC).isoformat(timespec="seconds")}
        emit(DecisionEvent("orchestration", decision.action, decision.reasoning,
                           {k: v for k, v in record.items() if k not in ("action", "reasoning")}))
        active = list(state.get("active_teams") or [])
        active += [t["team"] for t in batch if t["team"] not in active]
        finish = ""
        if not batch:
            finish = {"step_cap": "step_cap"}.get(decision.source) or (
                "skip_remaining" if decision.action == "skip_remaining" else "plan_complete")
        return {"current_phase": "orchestration", "orchestration_action": decision.action,
                "orchestration_reasoning": decision.reasoning, "orchestration_decisions": [record],
                "current_batch": batch, "active_teams": active, **updates,
                **({"finish_reason": finish} if finish else {}),
                **({"caps_hit": updates.get("caps_hit", []) + ["steps"]} if decision.source == "step_cap" else {})}

    return orchestrate


def route_to_teams(state: MainSupervisorState) -> list[Send] | str:
    """Each task of the batch goes to its team's sub-graph (in parallel when there are several)."""
    batch = state.get("current_batch") or []
    if not batch:
        return "aggregate"
    results = state.get("team_results") or {}
    intent = (state.get("planning_state") or {}).get("analyzed_intent") or {}
    sends = []
    for task in batch:
        inputs = {t: results[t] for t in task.get("inputs_from") or [] if t in results}
        payload: TeamInput = {"task": task, "query": state["query"], "intent": intent, "inputs": inputs,
                              "session_options": state.get("session_options") or {}}
        sends.append(Send(f"{task['team']}_team", payload))
    return sends
