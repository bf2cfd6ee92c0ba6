"""execute_teams: the join after a round's team runs (one or several in parallel).

It takes stock of the round: new information (for stall detection), teams that found too little,
the round count against its cap; then ``route_after_execution`` applies the note's routing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphagents.events import DecisionEvent, StateUpdateEvent, emit

from ..context import SupervisorContext
from ..decisions import run_counts
from ..state import MainSupervisorState

STALL_ROUNDS = 2
"""Consecutive rounds without new information that end the orchestration."""


def _stop(state: MainSupervisorState, source: str, reason: str) -> dict[str, Any]:
    record = {"step": len(state.get("team_runs") or []), "round": int(state.get("rounds", 0)) + 1,
              "action": "skip_remaining", "reasoning": reason, "confidence": 1.0, "source": source, "batch": [],
              "timestamp": datetime.now(UTC).isoformat(timespec="seconds")}
    emit(DecisionEvent("orchestration", "skip_remaining", reason, {"source": source}))
    return {"orchestration_decisions": [record], "orchestration_action": "skip_remaining",
            "orchestration_reasoning": reason}


def make_execute_teams(ctx: SupervisorContext) -> Any:
    max_rounds, max_team_runs = ctx.options.max_rounds, ctx.options.max_team_runs
    fixed = ctx.options.orchestration == "fixed"  # the note's pipeline: no second look after a thin result
    review_last = ctx.options.review_last and not fixed

    def execute_teams(state: MainSupervisorState) -> dict[str, Any]:
        batch_ids = {t["id"] for t in state.get("current_batch") or []}
        runs = state.get("team_runs") or []
        done = [r for r in runs if r["id"] in batch_ids]
        seen = set(state.get("info_keys") or [])
        new = sorted({k for r in done for k in r["info"]} - seen)
        idle = 0 if new else int(state.get("idle_rounds", 0)) + 1
        rounds = int(state.get("rounds", 0)) + 1
        low = [r["team"] for r in done if r.get("low_yield") and run_counts(runs)[r["team"]] < max_team_runs
               and not fixed]
        emit(StateUpdateEvent({"round": rounds, "team_runs": [
            {k: r[k] for k in ("id", "team", "status", "count", "summary", "seconds", "error")} for r in done],
            "new_information": len(new)}))
        # With review_last, a round that ran something and left no work gets one more decision: it may
        # add a team the plan missed. A review that adds nothing runs nothing, so this ends.
        review = review_last and bool(done) and not (state.get("plan_queue") or state.get("pending_teams") or low)
        out: dict[str, Any] = {"current_phase": "execution", "rounds": rounds, "info_keys": sorted(seen | set(new)),
                               "idle_rounds": idle, "low_yield": low, "review": review}
        work_left = bool(state.get("plan_queue") or state.get("pending_teams") or low or review)
        if idle >= STALL_ROUNDS and work_left:
            out.update(_stop(state, "stall", f"{idle}라운드 연속으로 새 정보가 없어 지금까지의 결과로 답합니다"),
                       skip_remaining=True, finish_reason="stall")
        elif rounds >= max_rounds and work_left:
            out.update(_stop(state, "cap", f"조율 라운드 상한({max_rounds}회)에 도달해 지금까지의 결과로 답합니다"),
                       skip_remaining=True, finish_reason="round_cap", caps_hit=["rounds"])
        return out

    return execute_teams


def route_after_execution(state: MainSupervisorState) -> str:
    """The note's routing, plus a second look when a team found too little after the last step."""
    if state.get("skip_remaining"):
        return "aggregate"
    if state.get("pending_teams"):
        return "orchestrate_again"
    if state.get("plan_queue"):
        return "orchestrate_again"
    if state.get("low_yield") or state.get("review"):
        return "orchestrate_again"
    return "aggregate"
