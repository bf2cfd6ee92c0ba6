"""The tableqa nodes: prepare -> plan <-> act -> finish.

``plan`` asks the planner (a model with votes, or the offline brain) for one action; ``act`` runs
it (coder + sandbox, Calculate, Finish); after ``max_steps`` plans, ``finish`` answers with the
best supported answer so far and status ``budget``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel

from graphagents.errors import GraphAgentsError
from graphagents.events import DecisionEvent, ToolCallEvent, ToolResultEvent, emit

from .actions import Action, split_answer
from .config import AgentContext
from .planner import choose_action, llm_code_writer, planner_prompt
from .state import StepRecord, TableQAState, TableRef, reset
from .tables import STORED_SOURCE, load_sources
from .tools import act as run_action

__all__ = ["Brain", "Nodes", "OfflineStep", "route_after_act", "route_after_plan", "route_after_prepare"]


class OfflineStep(Protocol):
    @property
    def action(self) -> Action | None: ...

    @property
    def code(self) -> str | None: ...

    @property
    def decline(self) -> str | None: ...


class Brain(Protocol):
    """A planner without a model: the next action (with its code) or a reason to decline."""

    def next_step(self, question: str, state: TableQAState, actx: AgentContext) -> OfflineStep: ...


class Nodes:
    def __init__(self, actx: AgentContext, planner: BaseChatModel | None, coder: BaseChatModel | None,
                 brain: Brain | None) -> None:
        if planner is None and brain is None:
            raise ValueError("tableqa needs a planner model or an offline brain")
        self.actx = actx
        self.planner = planner
        self.coder = coder or planner
        self.brain = brain

    # prepare ---------------------------------------------------------------------------------
    def prepare(self, state: TableQAState) -> dict[str, Any]:
        fresh: dict[str, Any] = {
            "question": state.get("user_input", "").strip(),
            "intermediate_tables": reset(),
            "steps": reset(),
            "candidate_answers": reset(),
            "step": 0,
            "pending": None,
            "answer": [],
            "answer_table": None,
            "tables_used": [],
            "status": "running",
            "reason": "",
        }
        if state.get("original_tables"):
            return fresh  # loaded on the session's first question, never rewritten
        session_sources = list(state.get("session_options", {}).get("tables") or [])
        unsafe = [s for s in session_sources if not STORED_SOURCE.match(str(s).strip())]
        if unsafe:  # sessions come from end users (HTTP): no server files, no database URLs
            return {**fresh, "status": "error", "reason": f"session tables must be stored table ids "
                    f"(tbl_... or name=tbl_...), not {str(unsafe[0])[:80]!r}; files and URLs are agent options"}
        sources = session_sources or list(self.actx.options.tables)
        if not sources:
            return {**fresh, "status": "declined", "reason": "표가 없습니다. --table 파일.csv 로 표를 주세요 "
                    "(no tables: pass --table FILE, or the tables option)."}
        try:
            tables = load_sources(sources)
            refs = [self._store(t.name, t.frame, t.source) for t in tables]
        except GraphAgentsError as exc:
            return {**fresh, "status": "error", "reason": str(exc)}
        return {**fresh, "original_tables": refs}

    def _store(self, name: str, frame: Any, source: str) -> TableRef:
        table_id = self.actx.store.put(frame)
        stored = self.actx.store.get(table_id)
        return {"id": table_id, "name": name, "rows": len(stored), "columns": [str(c) for c in stored.columns],
                "dtypes": [str(t) for t in stored.dtypes], "source": source}

    # plan ------------------------------------------------------------------------------------
    def plan(self, state: TableQAState) -> dict[str, Any]:
        step = state.get("step", 0) + 1
        if step > self.actx.options.max_steps:
            return {"status": "budget", "pending": None}
        question = state.get("question", "")
        if self.planner is None:
            assert self.brain is not None
            offline = self.brain.next_step(question, state, self.actx)
            if offline.action is None:
                return {"status": "declined", "reason": offline.decline or "I cannot answer this without a model."}
            emit(DecisionEvent("action", offline.action.kind, offline.action.thought,
                               {"argument": offline.action.argument, "step": step}))
            return {"pending": {"kind": offline.action.kind, "argument": offline.action.argument,
                                "thought": offline.action.thought, "code": offline.code, "votes": 1,
                                "samples": 1}, "step": step}
        prompt = planner_prompt(question, state.get("original_tables", []), state.get("intermediate_tables", []),
                                state.get("steps", []), self.actx)
        choice = choose_action(self.planner, prompt, self.actx.options.plan_samples)
        if choice.action is None:
            record: StepRecord = {"step": step, "action": "Invalid", "argument": "", "ok": False,
                                  "observation": f"Invalid action: {choice.error}", "error_type": "parse"}
            return {"steps": [record], "step": step, "pending": None}
        a = choice.action
        emit(DecisionEvent("action", a.kind, a.thought, {"argument": a.argument, "votes": choice.votes,
                                                         "samples": choice.samples, "step": step}))
        losers = [{"answer": split_answer(f.argument), "step": step} for f in choice.finish_candidates]
        return {"pending": {"kind": a.kind, "argument": a.argument, "thought": a.thought, "code": None,
                            "votes": choice.votes, "samples": choice.samples},
                "step": step, "candidate_answers": losers}

    # act -------------------------------------------------------------------------------------
    def act(self, state: TableQAState) -> dict[str, Any]:
        pending = state.get("pending") or {}
        action = Action(pending["kind"], pending["argument"], pending.get("thought", ""))
        step = state.get("step", 1)
        original = state.get("original_tables", [])
        intermediate = state.get("intermediate_tables", [])
        writer = None
        if self.coder is not None and pending.get("code") is None:
            writer = llm_code_writer(self.coder, state.get("question", ""), original, intermediate, self.actx)
        emit(ToolCallEvent(action.kind, {"argument": action.argument}, call_id=f"step-{step}"))
        outcome = run_action(action, step=step, original=original, intermediate=intermediate, actx=self.actx,
                             write_code=writer, code=pending.get("code"))
        emit(ToolResultEvent(action.kind, outcome.ok, outcome.observation[:500],
                             {"code": outcome.code, "table": outcome.table}, call_id=f"step-{step}"))
        record: StepRecord = {"step": step, "thought": action.thought, "action": action.kind,
                              "argument": action.argument, "votes": pending.get("votes", 1),
                              "code_votes": outcome.votes, "candidates": outcome.candidates, "code": outcome.code,
                              "observation": outcome.observation, "ok": outcome.ok,
                              "error_type": outcome.error_type,
                              "table_id": outcome.table["id"] if outcome.table else ""}
        update: dict[str, Any] = {"steps": [record], "pending": None}
        if outcome.table is not None:
            update["intermediate_tables"] = [outcome.table]
        named = _original_names(outcome.tables_used, original, bool(intermediate) and self.actx.options.chain)
        if named:
            update["tables_used"] = list(dict.fromkeys([*state.get("tables_used", []), *named]))
        if outcome.value is not None:
            update["candidate_answers"] = [{"answer": split_answer(str(outcome.value)), "step": step, "value": True}]
        if outcome.answer is not None:
            update.update(answer=outcome.answer, answer_table=outcome.answer_table, status="answered")
        return update

    # finish ----------------------------------------------------------------------------------
    def finish(self, state: TableQAState) -> dict[str, Any]:
        status = state.get("status", "running")
        update: dict[str, Any] = {}
        if status in ("running", "budget"):
            status = "budget"
            best = _best_candidate(state.get("candidate_answers", []))
            update["answer"] = best
        update["status"] = status
        update["reply"] = compose_reply({**state, **update})  # type: ignore[typeddict-item]
        return update


def _original_names(variables: tuple[str, ...], original: list[TableRef], df_is_intermediate: bool) -> list[str]:
    """Which original tables a program read: df_orig_i directly, or df while it is still df_orig_1."""
    names = []
    for var in variables:
        if var.startswith("df_orig_") and var[8:].isdigit() and 0 < int(var[8:]) <= len(original):
            names.append(original[int(var[8:]) - 1]["name"])
        elif var == "df" and not df_is_intermediate and original:
            names.append(original[0]["name"])
    return names


def _best_candidate(candidates: list[dict[str, Any]]) -> list[str]:
    """The answer most samples supported; ties go to the latest step (the most worked-out one)."""
    if not candidates:
        return []
    support = Counter("|".join(c["answer"]) for c in candidates)
    best = max(candidates, key=lambda c: (support["|".join(c["answer"])], c.get("step", 0)))
    return list(best["answer"])


def compose_reply(state: TableQAState) -> str:
    status = state.get("status")
    answer = state.get("answer") or []
    lines = []
    if status == "answered":
        lines.append(f"답: {' | '.join(answer)}")
    elif status == "budget":
        cap = "단계 한도 도달, step limit reached"
        lines.append(f"답 ({cap}): {' | '.join(answer)}" if answer else f"답을 찾지 못했습니다 ({cap}).")
    else:
        lines.append(state.get("reason") or "답할 수 없습니다.")
    steps = state.get("steps", [])
    if steps:
        lines += ["", "단계:"]
        for rec in steps:
            shape = ""
            if rec.get("table_id"):
                table = next((t for t in state.get("intermediate_tables", []) if t["id"] == rec["table_id"]), None)
                if table:
                    shape = f" -> {table['rows']} rows x {len(table['columns'])} columns"
            mark = "" if rec.get("ok") else " (failed)"
            lines.append(f"{rec.get('step')}. {rec.get('action')}[{rec.get('argument')}]{shape}{mark}")
    used = state.get("tables_used") or []
    if used:
        lines += ["", "사용한 표: " + ", ".join(used)]
    return "\n".join(lines)


def route_after_prepare(state: TableQAState) -> str:
    return "plan" if state.get("status") == "running" else "finish"


def route_after_plan(state: TableQAState) -> str:
    if state.get("status") != "running":
        return "finish"
    return "act" if state.get("pending") else "plan"


def route_after_act(state: TableQAState) -> str:
    return "finish" if state.get("status") == "answered" else "plan"
