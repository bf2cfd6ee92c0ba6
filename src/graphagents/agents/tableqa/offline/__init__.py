"""The offline planner: deterministic, honest, and real steps through the same sandbox.

It turns the question into a short plan (:mod:`.rules`) of Retrieve/Operate steps with pandas code,
hands them to the graph one at a time like a model would, then finishes from the last working
table. It declines, with the reason, when the question is outside its patterns, when a word it
cannot account for could change the meaning, when a step finds no rows, or when the answer is a tie.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..config import AgentContext
from ..metrics import answer_strings
from ..state import TableQAState
from .rules import Decline, Plan, plan_question

__all__ = ["MAX_QUESTION_CHARS", "OfflineBrain", "OfflineChoice", "english_question"]

MAX_QUESTION_CHARS = 400
"""Longest question the offline planner reads (its patterns, tokenizer and linking see no more)."""


@dataclass(frozen=True)
class OfflineChoice:
    action: Action | None
    code: str | None = None
    decline: str | None = None


_ENGLISH_START = re.compile(r"\s*(?:what|which|who|whom|whose|how|when|where|list|count|is|are|was|were|did|does|do|"
                            r"give|show|name|tell|in|on|for|of|among)\b", re.IGNORECASE)


def english_question(question: str) -> bool:
    """English grammar around Korean names: starts like an English question and has more Latin
    words than Hangul ones."""
    latin = re.findall(r"[A-Za-z]{2,}", question)
    hangul = re.findall(r"[가-힣]+", question)
    return bool(_ENGLISH_START.match(question)) and len(latin) >= 3 and len(latin) > len(hangul)


class OfflineBrain:
    """``embedder`` (a factory, called on the first Korean question) links Korean nouns to tables,
    columns and cells across languages; without one, Korean questions with unlinked nouns decline."""

    def __init__(self, embedder: Callable[[], Any] | None = None) -> None:
        self._plans: dict[tuple[str, tuple[str, ...]], Plan | Decline] = {}
        self._embedder = embedder

    def next_step(self, question: str, state: TableQAState, actx: AgentContext) -> OfflineChoice:
        original = state.get("original_tables", [])
        key = (question, tuple(t["id"] for t in original))
        if key not in self._plans:
            frames = [actx.store.get(t["id"]) for t in original]
            self._plans[key] = self._plan(question, [t["name"] for t in original], frames)
        plan = self._plans[key]
        if isinstance(plan, Decline):
            return OfflineChoice(None, decline=plan.reason)
        steps = state.get("steps", [])
        failed = next((s for s in steps if not s.get("ok")), None)
        if failed is not None:
            # the error text is in the step's record; the reason says what happened without Python's words
            return OfflineChoice(None, decline=f"A step of the plan could not run on this table ({failed.get('action')}"
                                 f"[{str(failed.get('argument', ''))[:80]}]), so I do not answer.")
        empty = next((t for t in state.get("intermediate_tables", []) if t["rows"] == 0), None)
        if empty is not None:
            return OfflineChoice(None, decline=f"No rows match ({empty['instruction']}), so I do not guess.")
        if len(steps) < len(plan.steps):
            planned = plan.steps[len(steps)]
            kind = "Retrieve" if not steps else planned.kind  # the first step always extracts from the originals
            return OfflineChoice(Action(kind, planned.instruction, planned.thought), planned.code)
        return self._finish(plan, state, actx)

    def _plan(self, question: str, names: list[str], frames: list[Any]) -> Plan | Decline:
        if len(question) > MAX_QUESTION_CHARS:  # checked before any pattern or tokenizer reads it
            return Decline(f"질문이 너무 깁니다 ({len(question):,}자): 모델 없이는 {MAX_QUESTION_CHARS}자 "
                           f"이하의 질문만 답합니다 (offline: questions up to {MAX_QUESTION_CHARS} characters).")
        if not re.search(r"[가-힣]", question) or english_question(question):
            # an English question may name Korean cells ("What grade is 정하준?"): the English
            # patterns read them, and a Korean word they cannot link is a word they cannot explain
            return plan_question(question, names, frames, restated=True)
        from .korean import restate

        english = restate(question, names, frames, self._embedder)
        if isinstance(english, tuple):
            return Decline(english[0])
        plan = plan_question(english, names, frames, restated=True)
        if isinstance(plan, Decline):
            return Decline(f"모델 없이는 답하지 않습니다: {plan.reason} (restated: {english!r})")
        return plan

    def _finish(self, plan: Plan, state: TableQAState, actx: AgentContext) -> OfflineChoice:
        intermediate = state.get("intermediate_tables", [])
        if not intermediate:
            return OfflineChoice(None, decline="The plan produced no table to answer from.")
        frame = actx.store.get(intermediate[-1]["id"]).drop_duplicates()
        if plan.table_answer and not frame.empty:
            return OfflineChoice(Action("Finish", "df", "The working table holds the answer, one row per group."))
        if frame.empty:
            return OfflineChoice(None, decline="No rows of the table match the question, so I do not guess.")
        if plan.rows is not None and len(frame) != plan.rows:
            return OfflineChoice(None, decline=f"{len(frame)} rows tie for the top {plan.rows}; I do not pick "
                                 "among them without a model.")
        if len(frame) > 1 and not plan.many:
            reason = f"{len(frame)} rows tie for the answer; I do not pick one without a model."
            return OfflineChoice(None, decline=reason)
        values = answer_strings(v for row in frame.itertuples(index=False) for v in row)
        return OfflineChoice(Action("Finish", " | ".join(values), "The working table holds the answer."))
