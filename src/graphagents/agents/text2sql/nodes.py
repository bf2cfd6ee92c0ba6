"""Graph nodes of the text2sql agent: prepare -> the tool loop (think -> [confirm ->] act) -> finish.

The loop itself is :class:`graphagents.toolloop.ToolLoop`; this module gives it text2sql's hooks:
the XML protocol with SQL wording, the system prompt, the tool context, the policy of the design
note, the step confirmation and the bookkeeping after each call (explained SQL, the submitted
result). ``prepare`` answers from the query cache when it can; ``finish`` turns every status into
a reply. Every failure ends the turn cleanly with a status and a reply.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from graphagents.events import DecisionEvent, emit
from graphagents.llm.xml_protocol import ReactStep, escape_xml
from graphagents.registry import ANONYMOUS
from graphagents.toolloop import ActResult, Rewrite, ToolLoop, XmlTurnProtocol

from . import prompts
from .agent_context import AgentContext
from .confirm import ConfirmMode, SqlConfirmation
from .offline.language import phrase
from .policy import maybe_rewrite_tool_call_for_policy
from .state import SQL_TOOLS, ReactSessionState, Text2SqlState, fresh_turn
from .tools import TOOL_REGISTRY, ToolContext, ToolResult

log = logging.getLogger("graphagents.text2sql")

MAX_PARSE_FAILURES = 2
STREAM_SECTIONS = ("reasoning", "user_facing")

PROTOCOL = XmlTurnProtocol(
    stream_sections=STREAM_SECTIONS,
    reprint_prompt=prompts.text("reprint.md"),
    format_note=prompts.text("format_note.md"),
)


class Brain(Protocol):
    """A deterministic planner that answers like a model: one protocol XML response per step."""

    def respond(self, question: str, react: ReactSessionState, transcript: list[dict[str, Any]]) -> str: ...


class Nodes:
    def __init__(self, agent: AgentContext, llm: BaseChatModel | None, brain: Brain | None,
                 confirm_steps: ConfirmMode = "off") -> None:
        self.agent = agent
        self.llm = llm
        self.brain = brain
        self.confirm_steps = confirm_steps
        self.loop: ToolLoop[ToolContext, ReactSessionState] = ToolLoop(
            tools=TOOL_REGISTRY,
            protocol=PROTOCOL,
            prompt=self._prompt,
            context=self._context,
            budget_type=ReactSessionState,
            model=llm,
            planner=self._plan if llm is None else None,
            policy=self._policy,
            confirmation=SqlConfirmation(confirm_steps, agent.dialect, agent.guard),
            on_result=self._on_result,
            call_id_prefix="t2s",
            max_parse_failures=MAX_PARSE_FAILURES,
        )

    # ------------------------------------------------------------------ prepare
    def prepare(self, state: Text2SqlState) -> dict[str, Any]:
        question = state.get("user_input", "").strip()
        opts = self.agent.options
        update = fresh_turn(question, max_calls=opts["max_calls"], min_exploration=opts["min_exploration"])
        cache = self.agent.query_cache
        scope = self.agent.cache_scope(state.get("user_id") or ANONYMOUS)
        hit = cache.get(self.agent.fingerprint, question, scope=scope) if cache is not None else None
        if hit and hit.get("sql") and isinstance(hit.get("table"), dict):
            emit(DecisionEvent("query_cache", "hit", "you asked this before, for the same schema and database",
                               {"sql": hit["sql"]}))
            answer = str(hit.get("answer") or "")
            update.update(status="cache", sql=hit["sql"], table=hit["table"], answer=answer,
                          reply=_reply_for_rows(answer, hit["table"], question, cached=True))
        elif cache is not None:
            emit(DecisionEvent("query_cache", "miss", "no cached answer: running the ReAct loop"))
        return update

    # ------------------------------------------------------------------ loop hooks
    def _prompt(self, state: Mapping[str, Any], react: ReactSessionState) -> list[BaseMessage]:
        # system.xml is an XML template: the schema text (names, comments) is escaped into it
        system = prompts.render("system.xml", dialect=self.agent.dialect, max_calls=react.max_calls,
                                tables=self.agent.tables_overview())
        return [SystemMessage(system), HumanMessage(f"<question>{escape_xml(state['question'])}</question>")]

    def _plan(self, state: Mapping[str, Any], react: ReactSessionState) -> str:
        assert self.brain is not None
        return self.brain.respond(state["question"], react, list(state.get("transcript", [])))

    def _context(self, state: Mapping[str, Any], react: ReactSessionState) -> ToolContext:
        return ToolContext(self.agent, state["question"], last_error=react.last_error,
                           user_id=state.get("user_id") or ANONYMOUS)

    def _policy(self, step: ReactStep, react: ReactSessionState, state: Mapping[str, Any]) -> Rewrite | None:
        return maybe_rewrite_tool_call_for_policy(step=step, state=react, question=state["question"],
                                                  sql_key=self.agent.sql_key)

    def _on_result(self, done: ActResult[ToolContext, ReactSessionState]) -> dict[str, Any]:
        name, params, result, react = done.call.name, done.call.parameters, done.result, done.budget
        assert isinstance(result, ToolResult)
        if name == "explain" and result.ok and result.data.get("risks"):
            emit(DecisionEvent("explain_risk", "warn", "; ".join(result.data["risks"]), dict(result.data)))
        sql_param = params.get("sql", "") if name in SQL_TOOLS else ""
        react.note_sql(name, ok=result.ok, sql_key=self.agent.sql_key(sql_param), sql=sql_param if result.ok else "")
        react.last_error = done.ctx.last_error
        update: dict[str, Any] = {}
        if name == "explain" and result.ok:
            update["explain"] = dict(result.data)
        if name == "submit_sql" and result.ok:
            update.update(status="submitted", sql=result.sql, table=result.table, answer=done.step.user_facing)
        return update

    # ------------------------------------------------------------------ finish
    def finish(self, state: Text2SqlState) -> dict[str, Any]:
        status = state.get("status", "running")
        if status in ("cache", "cancelled"):
            return {"reply": state.get("reply", "")}
        if status == "submitted":
            table = state.get("table") or {"columns": [], "rows": []}
            self._remember(state["question"], str(state.get("sql") or ""), table, state.get("answer", ""),
                           user_id=state.get("user_id") or ANONYMOUS)
            return {"reply": _reply_for_rows(state.get("answer", ""), table, state["question"])}
        react = ReactSessionState.from_dict(state.get("react"))
        if status == "answered":
            reply = state.get("answer") or "이 질문은 SQL로 답할 수 없어요."
        elif status == "budget":
            reply = phrase("budget", state.get("question", ""), n=react.max_calls)
        elif status == "steps":
            reply = "처리 단계가 너무 많아 이번 질문은 여기서 마무리했어요. 질문을 나눠서 다시 말씀해 주시겠어요?"
        else:
            reply = "모델 응답을 해석하지 못해 이번 질문을 마치지 못했어요. 다시 시도해 주세요."
        return {"reply": reply}

    def _remember(self, question: str, sql: str, table: dict[str, Any], answer: str, *, user_id: str) -> None:
        """Fill the query cache and the similar-query memory, both scoped to the user and database;
        neither may fail the turn."""
        cache = self.agent.query_cache
        if cache is not None and not table.get("truncated"):
            try:
                cache.put(self.agent.fingerprint, question, {"sql": sql, "table": table, "answer": answer},
                          scope=self.agent.cache_scope(user_id))
            except Exception as exc:
                log.warning("text2sql query cache put failed: %s", exc)
        try:
            self.agent.memory.record(self.agent.fingerprint, question, sql, success=True,
                                     scope=self.agent.memory_scope(user_id))
        except Exception as exc:
            log.warning("text2sql memory record failed: %s", exc)


def _reply_for_rows(answer: str, table: dict[str, Any], question: str, *, cached: bool = False) -> str:
    """The answer first (a value, or the first rows), then how it was understood, in the question's
    language."""
    rows = table.get("rows") or []
    columns = table.get("columns") or []
    if not rows:
        summary = phrase("no_rows", question)
    elif len(rows) == 1 and len(columns) == 1:
        summary = f"{columns[0]}: {_fmt(rows[0][0])}"
    else:
        shown = [f"{i}. " + " · ".join(_fmt(v) for v in row) for i, row in enumerate(rows[:5], 1)]
        more = "\n" + phrase("more_rows", question, n=len(rows) - 5) if len(rows) > 5 else ""
        truncated = phrase("truncated", question) if table.get("truncated") else ""
        summary = phrase("rows", question, n=len(rows), truncated=truncated) + "\n" + "\n".join(shown) + more
    source = "\n" + phrase("cached", question) if cached else ""
    head = answer.strip()
    return f"{summary}\n\n{head}{source}" if head else f"{summary}{source}"


def _fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def route_after_prepare(state: Text2SqlState) -> str:
    return "finish" if state.get("status") == "cache" else "think"
