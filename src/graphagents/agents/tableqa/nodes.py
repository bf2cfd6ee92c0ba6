"""The tableqa nodes and the hooks of its tool loop: prepare -> think <-> act -> finish.

The think/act pair is :class:`graphagents.toolloop.ToolLoop` with MACT's ``Action: Tool[argument]``
protocol. What is MACT's own lives in the hooks: the planner hook samples ``plan_samples`` turns and
returns the majority action (or asks the offline brain), the tools run Retrieve/Operate through the
coder and the sandbox, and ``on_result`` appends each new table to ``intermediate_tables``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langgraph.errors import GraphBubbleUp

from graphagents.errors import GraphAgentsError, InputError, ModelRequestsBlocked
from graphagents.events import DecisionEvent, emit
from graphagents.llm.degrade import is_provider_failure, report_degraded
from graphagents.registry import ANONYMOUS
from graphagents.toolloop import ActResult, Budget, Tool, ToolError, ToolRegistry, ToolResult, fresh_loop

from .actions import Action, split_answer
from .config import AgentContext
from .planner import choose_action, llm_code_writer, planner_prompt
from .state import StepRecord, TableQAState, TableRef, reset
from .tools import ActOutcome, act

__all__ = ["Brain", "LoopContext", "Nodes", "OfflineStep", "StepResult", "route_after_prepare"]

OFFLINE_MARK = "[offline]"
"""Starts the thought of a step the offline brain planned after the model failed: the rest of the
turn stays with the brain (its code runs for its actions; the model is not asked again)."""


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


@dataclass(frozen=True)
class StepResult(ToolResult):
    """A tool result that also carries the step's outcome to ``on_result`` (in memory only: the
    loop's transcript keeps ``data``, which holds plain values)."""

    outcome: ActOutcome | None = None


@dataclass(frozen=True)
class LoopContext:
    """What a tool call sees: the state's tables, and the offline brain's code for this step."""

    state: Mapping[str, Any]
    step: int
    code: str | None


class Nodes:
    def __init__(self, actx: AgentContext, model: BaseChatModel | None, brain: Brain | None) -> None:
        if model is None and brain is None:
            raise ValueError("tableqa needs a planner model or an offline brain")
        self.actx = actx
        self.model = model
        self.brain = brain

    # prepare ---------------------------------------------------------------------------------
    def prepare(self, state: TableQAState) -> dict[str, Any]:
        fresh: dict[str, Any] = {
            **fresh_loop(Budget(max_calls=self.actx.options.max_steps)),
            "question": state.get("user_input", "").strip(),
            "intermediate_tables": reset(),
            "steps": reset(),
            "candidate_answers": reset(),
            "answers": [],
            "answer_table": None,
            "tables_used": [],
            "reason": "",
        }
        if state.get("original_tables"):  # loaded on the session's first question, never rewritten
            gone = [t["name"] for t in state["original_tables"] if t["id"] not in self.actx.store]
            if gone:
                reason = (f"표 {gone[0]!r}이(가) 삭제되어 더 이상 없습니다; 새 세션을 시작하세요 "
                          f"(table {gone[0]!r} was deleted: start a new session with your tables).")
                return {**fresh, "status": "error", "reason": reason}
            return fresh
        session_sources = [str(s) for s in state.get("session_options", {}).get("tables") or []]
        if not session_sources and not self.actx.options.tables:
            return {**fresh, "status": "declined", "reason": NO_TABLES[_channel(state)]}
        try:
            if session_sources:  # sessions come from end users (HTTP): their own uploads only
                tables = self._session_tables(state.get("user_id") or ANONYMOUS, session_sources)
            else:
                tables = self.actx.agent_tables()
            refs = [self._store(t.name, t.frame, t.source) for t in tables]
        except GraphAgentsError as exc:
            return {**fresh, "status": "error", "reason": str(exc)}
        return {**fresh, "original_tables": refs}

    def _session_tables(self, user_id: str, sources: list[str]) -> list[Any]:
        from .uploads import resolve_session_tables

        if self.actx.uploads is None:
            raise InputError("this agent takes no session tables (no upload store); use the tables option")
        return resolve_session_tables(self.actx.uploads(), user_id, sources)

    def _store(self, name: str, frame: Any, source: str) -> TableRef:
        table_id = self.actx.store.put(frame)
        stored = self.actx.store.get(table_id)
        return {"id": table_id, "name": name, "rows": len(stored), "columns": [str(c) for c in stored.columns],
                "dtypes": [str(t) for t in stored.dtypes], "source": source}

    # the think hook ----------------------------------------------------------------------------
    def _offline(self, state: Mapping[str, Any]) -> bool:
        """The brain plans this step: there is no model, or the model failed earlier in this turn."""
        if self.model is None:
            return True
        if self.brain is None:
            return False
        pending = state.get("pending") or {}
        turns = [str(pending.get("raw", "")), *(str(e.get("response", "")) for e in state.get("transcript") or [])]
        return any(OFFLINE_MARK in turn.split("\n", 1)[0] for turn in turns)

    def _brain_turn(self, state: Mapping[str, Any], step: int, *, mark: bool) -> str:
        assert self.brain is not None
        offline = self.brain.next_step(state.get("question", ""), state, self.actx)  # type: ignore[arg-type]
        mark_text = f"{OFFLINE_MARK} " if mark else ""
        if offline.action is None:
            return (f"Thought: {mark_text}I cannot answer this reliably.\n"
                    f"Action: Decline[{offline.decline or 'no reason'}]")
        if not mark:
            return offline.action.render(step)
        action = offline.action
        thought = action.thought or "the model failed; offline rules plan this step"
        return f"Thought {step}: {mark_text}{thought}\nAction {step}: {action.kind}[{action.argument}]"

    def plan(self, state: Mapping[str, Any], budget: Budget) -> str:
        """One planner turn as text: the majority of ``plan_samples`` model turns, or the brain's
        (without a model, or for the rest of a turn in which the model failed: a ``degraded`` event
        says so, the provider's error text goes to the log only)."""
        question = state.get("question", "")
        step = len(state.get("steps", [])) + 1
        if self.model is None or self._offline(state):
            return self._brain_turn(state, step, mark=self.model is not None)
        transcript = state.get("transcript") or []
        note = transcript[-1]["observation"] if transcript and transcript[-1].get("tool") == "format" else ""
        prompt = planner_prompt(question, state.get("original_tables", []), state.get("intermediate_tables", []),
                                state.get("steps", []), self.actx, note=note)
        try:
            choice = choose_action(self.model, prompt, self.actx.options.plan_samples)
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:
            if self.brain is None:
                raise
            report_degraded("planner", exc)
            return self._brain_turn(state, step, mark=True)
        if choice.action is None:
            return choice.raw or f"(no usable planner output: {choice.error})"
        emit(DecisionEvent("vote", choice.action.kind, f"{choice.votes} of {choice.samples} samples",
                           {"argument": choice.action.argument, "votes": choice.votes, "samples": choice.samples}))
        return choice.action.render(step)

    def context(self, state: Mapping[str, Any], budget: Budget) -> LoopContext:
        step = len(state.get("steps", [])) + 1
        code = None
        if self.brain is not None and self._offline(state):
            code = self.brain.next_step(state.get("question", ""), state, self.actx).code  # type: ignore[arg-type]
        return LoopContext(state, step, code)

    # tools -------------------------------------------------------------------------------------
    def registry(self) -> ToolRegistry[LoopContext]:
        tools = [Tool(kind, self._tool(kind), required=("input",)) for kind in ("Retrieve", "Operate", "Calculate")]
        tools.append(Tool("Search", _search, required=("input",)))
        tools.append(Tool("Decline", _decline, required=("input",)))
        return ToolRegistry(tools, result_type=StepResult)

    def _tool(self, kind: str) -> Any:
        def run(params: dict[str, str], ctx: LoopContext) -> ToolResult:
            state = ctx.state
            original = state.get("original_tables", [])
            intermediate = state.get("intermediate_tables", [])
            writer = None
            if self.model is not None and ctx.code is None:
                writer = _reported(llm_code_writer(self.model, state.get("question", ""), original, intermediate,
                                                   self.actx))
            outcome = act(Action(kind, params["input"]), step=ctx.step, original=original,  # type: ignore[arg-type]
                          intermediate=intermediate, actx=self.actx, write_code=writer, code=ctx.code)
            data = {"code": outcome.code, "table": outcome.table, "error_type": outcome.error_type}
            return StepResult(outcome.ok, outcome.observation, outcome.observation.split("\n", 1)[0][:200], data,
                              outcome=outcome)

        return run

    # after each call ---------------------------------------------------------------------------
    def on_result(self, done: ActResult[LoopContext, Budget]) -> dict[str, Any]:
        state, step = done.state, done.ctx.step
        outcome = done.result.outcome if isinstance(done.result, StepResult) else None
        record: StepRecord = {"step": step, "thought": done.step.reasoning, "action": done.call.name,
                              "argument": done.call.parameters.get("input", ""), "ok": done.result.ok,
                              "observation": done.result.content}
        update: dict[str, Any] = {}
        if done.call.name == "Decline":  # the offline brain's way out: a reason, not a step
            return {"status": "declined", "reason": done.call.parameters.get("input", "")}
        if outcome is not None:
            record["code"] = outcome.code
            record["code_votes"] = outcome.votes
            record["candidates"] = outcome.candidates
            record["error_type"] = outcome.error_type
            record["table_id"] = outcome.table["id"] if outcome.table else ""
            if outcome.table is not None:
                update["intermediate_tables"] = [outcome.table]
            original = state.get("original_tables", [])
            chained = bool(state.get("intermediate_tables")) and self.actx.options.chain
            named = _original_names(outcome.tables_used, original, chained)
            if named:
                update["tables_used"] = list(dict.fromkeys([*state.get("tables_used", []), *named]))
            if outcome.value is not None:
                update["candidate_answers"] = [{"answer": split_answer(str(outcome.value)), "step": step}]
        elif not done.result.ok:
            record["error_type"] = "unavailable" if done.call.name == "Search" else "tool"
        update["steps"] = [record]
        return update

    # finish ------------------------------------------------------------------------------------
    def finish(self, state: TableQAState) -> dict[str, Any]:
        status = state.get("status", "running")
        update: dict[str, Any] = {}
        if status == "answered":
            step = len(state.get("steps", [])) + 1
            outcome = act(Action("Finish", state.get("answer", "") or "?"), step=step, original=[],
                          intermediate=state.get("intermediate_tables", []), actx=self.actx, write_code=None)
            update.update(answers=outcome.answer or [], answer_table=outcome.answer_table,
                          steps=[{"step": step, "action": "Finish", "argument": state.get("answer", ""),
                                  "ok": outcome.ok, "observation": outcome.observation,
                                  **({} if outcome.ok else {"error_type": outcome.error_type})}])
            if not outcome.ok:  # Finish[df] with no table, Finish[df_orig_1]: said, never answered as text
                status = "declined"
                update["reason"] = _unusable_finish(state, outcome.observation)
        elif status in ("running", "budget", "steps"):
            status = "budget"
            update["answers"] = _best_candidate(state.get("candidate_answers", []))
        elif status == "error" and not state.get("reason"):
            update["reason"] = "The planner's output could not be used; try again or use another model."
        if status == "declined" and self.model is None and state.get("original_tables"):
            update["reason"] = _with_hint(update.get("reason") or state.get("reason") or "", state)
        update["status"] = status
        view = {**state, **update, "steps": [*state.get("steps", []), *update.get("steps", [])]}
        update["reply"] = compose_reply(view)  # type: ignore[arg-type]
        return update


NO_TABLES = {
    "page": "표가 없습니다: 위의 '표 파일 올리기' 버튼으로 CSV·엑셀 파일을 올리고 표를 선택한 뒤 새 대화를 시작하세요 "
            "(no tables: upload one with the upload button, tick it and start a new conversation).",
    "api": "표가 없습니다: POST /api/agents/tableqa/uploads 로 표를 올리고 세션 옵션 tables 에 그 id를 주세요 "
           "(no tables: upload one, then create the session with options.tables).",
    None: "표가 없습니다. --table 파일.csv 로 표를 주세요 (no tables: pass --table FILE, or the tables option; "
          "over HTTP, upload one with POST /api/agents/tableqa/uploads).",
}


def _channel(state: Any) -> str | None:
    channel = (state.get("session_options") or {}).get("channel")
    return channel if channel in ("page", "api") else None


def _with_hint(reason: str, state: Any) -> str:
    """An offline decline, plus what would work: the tables' columns as written, and (on the page)
    the upload button for another table; said once."""
    if "열:" in reason or "columns:" in reason:
        return reason
    tables = state.get("original_tables") or []
    names = [c for t in tables for c in t.get("columns", [])][:12]
    from .offline import english_question

    question = state.get("question", "")
    korean = bool(re.search(r"[가-힣]", question)) and not english_question(question)
    shown = ", ".join(str(n)[:40] for n in names)
    if korean:
        hint = f"표의 열 이름을 그대로 써서 다시 물어보세요 (열: {shown})."
        if _channel(state) == "page":
            hint += " 다른 표가 필요하면 '표 파일 올리기' 버튼으로 올리세요."
    else:
        hint = f"Ask again with the columns' names as the table writes them (columns: {shown})."
        if _channel(state) == "page":
            hint += " To use another table, upload it with the upload button."
    return f"{reason}\n{hint}" if reason else hint


def _unusable_finish(state: TableQAState, observation: str) -> str:
    if re.search(r"[가-힣]", state.get("question", "")):
        return f"답할 수 없습니다: 계획기의 마지막 답이 값이 아니라 표 이름이었습니다 ({observation})."
    return f"I cannot answer this: the planner's final answer was a table's name, not a value ({observation})."


def _reported(write: Any) -> Any:
    """The coder, its provider failures told as a ``degraded`` event and a tool error without the
    provider's text (which goes to the log): that text must not reach the planner's prompt."""

    def guarded(instruction: str, error: str | None, n: int) -> list[str]:
        try:
            return write(instruction, error, n)  # type: ignore[no-any-return]
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:
            if not is_provider_failure(exc):
                raise
            event = report_degraded("coder", exc)
            raise ToolError(f"the coder model could not be used ({event.reason})",
                            fix="try again, or a simpler step") from None

    return guarded


def _search(params: dict[str, str], ctx: LoopContext) -> ToolResult:
    raise ToolError("Search is not available: tableqa ships no search backend (no network).",
                    fix="answer from the tables")


def _decline(params: dict[str, str], ctx: LoopContext) -> ToolResult:
    return ToolResult(True, f"Declined: {params['input']}", "declined")


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
    """The answer most steps supported; ties go to the latest step (the most worked-out one)."""
    if not candidates:
        return []
    support: dict[str, int] = {}
    for c in candidates:
        support["|".join(c["answer"])] = support.get("|".join(c["answer"]), 0) + 1
    best = max(candidates, key=lambda c: (support["|".join(c["answer"])], c.get("step", 0)))
    return list(best["answer"])


_FRAME = {
    "ko": {"answer": "답", "cap": "단계 한도 도달", "none": "답을 찾지 못했습니다", "cannot": "답할 수 없습니다.",
           "steps": "단계:", "used": "사용한 표: ", "failed": " (실패)"},
    "en": {"answer": "Answer", "cap": "step limit reached", "none": "No answer found",
           "cannot": "I cannot answer this.", "steps": "Steps:", "used": "Tables used: ", "failed": " (failed)"},
}


def compose_reply(state: TableQAState) -> str:
    """The reply, framed in the question's language (Korean when it has Hangul, else English)."""
    f = _FRAME["ko" if re.search(r"[가-힣]", state.get("question", "")) else "en"]
    status = state.get("status")
    answer = state.get("answers") or []
    lines = []
    if status == "answered":
        lines.append(f"{f['answer']}: {' | '.join(answer)}")
    elif status == "budget":
        lines.append(f"{f['answer']} ({f['cap']}): {' | '.join(answer)}" if answer else f"{f['none']} ({f['cap']}).")
    else:
        lines.append(state.get("reason") or f["cannot"])
    steps = state.get("steps", [])
    if steps:
        lines += ["", f["steps"]]
        shapes = {t["id"]: t for t in state.get("intermediate_tables", [])}
        for rec in steps:
            table = shapes.get(rec.get("table_id") or "")
            shape = f" -> {table['rows']} rows x {len(table['columns'])} columns" if table else ""
            mark = "" if rec.get("ok") else f["failed"]
            lines.append(f"{rec.get('step')}. {rec.get('action')}[{rec.get('argument')}]{shape}{mark}")
    used = state.get("tables_used") or []
    if used:
        lines += ["", f["used"] + ", ".join(used)]
    return "\n".join(lines)


def route_after_prepare(state: TableQAState) -> str:
    return "think" if state.get("status") == "running" else "finish"
