"""The offline planner: deterministic, honest, and real steps through the same sandbox.

It turns the question into a short plan (:mod:`.rules`) of Retrieve/Operate steps with pandas code,
hands them to the graph one at a time like a model would, then finishes from the last working
table. It declines, with the reason, when the question is outside its patterns, when a word it
cannot account for could change the meaning, when a step finds no rows, or when the answer is a tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import Action
from ..config import AgentContext
from ..metrics import answer_strings
from ..state import TableQAState
from .rules import Decline, Plan, plan_question

__all__ = ["OfflineBrain", "OfflineChoice"]


@dataclass(frozen=True)
class OfflineChoice:
    action: Action | None
    code: str | None = None
    decline: str | None = None


class OfflineBrain:
    def __init__(self) -> None:
        self._plans: dict[tuple[str, tuple[str, ...]], Plan | Decline] = {}

    def next_step(self, question: str, state: TableQAState, actx: AgentContext) -> OfflineChoice:
        original = state.get("original_tables", [])
        key = (question, tuple(t["id"] for t in original))
        if key not in self._plans:
            frames = [actx.store.get(t["id"]) for t in original]
            self._plans[key] = plan_question(question, [t["name"] for t in original], frames)
        plan = self._plans[key]
        if isinstance(plan, Decline):
            return OfflineChoice(None, decline=plan.reason)
        steps = state.get("steps", [])
        failed = next((s for s in steps if not s.get("ok")), None)
        if failed is not None:
            return OfflineChoice(None, decline=f"A step failed, so I do not answer: {failed.get('observation', '')}")
        empty = next((t for t in state.get("intermediate_tables", []) if t["rows"] == 0), None)
        if empty is not None:
            return OfflineChoice(None, decline=f"No rows match ({empty['instruction']}), so I do not guess.")
        if len(steps) < len(plan.steps):
            planned = plan.steps[len(steps)]
            kind = "Retrieve" if not steps else planned.kind  # the first step always extracts from the originals
            return OfflineChoice(Action(kind, planned.instruction, planned.thought), planned.code)
        return self._finish(plan, state, actx)

    def _finish(self, plan: Plan, state: TableQAState, actx: AgentContext) -> OfflineChoice:
        intermediate = state.get("intermediate_tables", [])
        if not intermediate:
            return OfflineChoice(None, decline="The plan produced no table to answer from.")
        frame = actx.store.get(intermediate[-1]["id"]).drop_duplicates()
        if frame.empty:
            return OfflineChoice(None, decline="No rows of the table match the question, so I do not guess.")
        if len(frame) > 1 and not plan.many:
            reason = f"{len(frame)} rows tie for the answer; I do not pick one without a model."
            return OfflineChoice(None, decline=reason)
        values = answer_strings(v for row in frame.itertuples(index=False) for v in row)
        return OfflineChoice(Action("Finish", " | ".join(values), "The working table holds the answer."))
