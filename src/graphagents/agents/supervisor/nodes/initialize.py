"""initialize: one turn answers one question, so everything per-question starts empty."""

from __future__ import annotations

from typing import Any

from ..state import RESET, MainSupervisorState


def initialize(state: MainSupervisorState) -> dict[str, Any]:
    return {
        "query": state.get("user_input", "").strip(),
        "current_phase": "initialize",
        "planning_state": {}, "execution_plan": {}, "active_teams": [], "plan_queue": [], "pending_teams": [],
        "current_batch": [], "team_runs": RESET, "team_results": RESET, "completed_teams": RESET,
        "model_calls": RESET, "orchestration_action": "", "orchestration_reasoning": "",
        "orchestration_decisions": RESET, "skip_remaining": False, "rounds": 0, "info_keys": [],
        "idle_rounds": 0, "low_yield": [], "review": False, "finish_reason": "", "caps_hit": RESET, "aggregated": {},
        "artifacts": [], "reply": "",
    }
