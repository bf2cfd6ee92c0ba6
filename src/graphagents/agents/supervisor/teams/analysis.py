"""The analysis team: computations over what it was handed (search output via the plan or a
collaborate decision), each with the numbers it used."""

from __future__ import annotations

import time
from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.events import ToolCallEvent, ToolResultEvent, emit

from ..aggregate import analysis_artifacts, loan_artifacts
from ..analysis.runner import run_analysis
from ..context import SupervisorContext
from ..state import TeamInput, TeamOutput
from ..tools.loans import LoanQuery, calculate
from .base import TeamState, digest, run_record, team_output


def build_analysis_team(ctx: SupervisorContext) -> Any:
    def recompute_loan(params: dict[str, Any]) -> dict[str, Any]:
        result = calculate(LoanQuery(**params), ctx.loan_rules, ctx.loan_products)
        result["query"] = params
        return result

    def analyse(state: TeamState) -> dict[str, Any]:
        started = time.perf_counter()
        task = state["task"]
        entities = (state.get("intent") or {}).get("entities") or {}
        inputs = state.get("inputs") or {}
        emit(ToolCallEvent("analysis", {"inputs": sorted(inputs), "focus": task.get("focus", "")}, task["id"]))
        out = run_analysis(state["query"], entities, inputs, task.get("focus", ""), loan_calculator=recompute_loan)
        for c in out["computations"]:
            emit(ToolResultEvent(c["kind"], True, c["title"] + (f": {c['numbers']}" if c["numbers"] else ""),
                                 {"missing": c.get("missing", [])}, task["id"]))
        info = [f"analysis:{c['kind']}:{digest(c['result'])}" for c in out["computations"]]
        n = len(out["computations"])
        record = run_record(task, status="ok" if n else "empty", count=n, info=info,
                            summary=f"계산 {n}건" + (f" — {out['insights'][0]}" if out["insights"] else ""),
                            output=out, seconds=time.perf_counter() - started)
        return team_output(record, analysis_artifacts(out) + loan_artifacts(
            next((c["result"] for c in out["computations"] if c["kind"] == "loan"), None)))

    g = StateGraph(TeamState, input_schema=TeamInput, output_schema=TeamOutput)
    g.add_node("analyse", analyse)
    g.add_edge(START, "analyse")
    g.add_edge("analyse", END)
    return g.compile()
