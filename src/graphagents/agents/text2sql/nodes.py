"""Graph nodes of the ReAct loop: prepare -> think -> [confirm ->] act -> ... -> finish.

``think`` asks the model (or the offline brain) for one XML step, streams its reasoning and
user_facing sections as tokens and applies the policy, so ``pending`` is the call that will really
run (what confirm mode shows the user); ``confirm`` (only with ``confirm_steps``) asks the user;
``act`` re-checks the policy, runs the tool and turns the result into an observation. Every
failure ends the turn cleanly with a status and a reply.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from graphagents.events import DecisionEvent, ErrorEvent, TokenEvent, ToolCallEvent, ToolResultEvent, emit
from graphagents.llm.context_cache import prompt_caching_for
from graphagents.llm.xml_protocol import (
    REPRINT_PROMPT,
    ParseOutcome,
    ReactStep,
    ToolCall,
    escape_xml,
    parse_with_repair,
    render_observation,
)
from graphagents.llm.xml_stream import StreamingXmlSectionsExtractor

from . import prompts
from .agent_context import AgentContext
from .confirm import ConfirmMode, confirm_step, needs_confirmation
from .policy import maybe_rewrite_tool_call_for_policy
from .state import SQL_TOOLS, ReactSessionState, Text2SqlState, fresh_turn
from .tools import ToolContext, execute_tool

log = logging.getLogger("graphagents.text2sql")

MAX_PARSE_FAILURES = 2
STREAM_SECTIONS = ("reasoning", "user_facing")


class Brain(Protocol):
    """A deterministic planner that answers like a model: one protocol XML response per step."""

    def respond(self, question: str, react: ReactSessionState, transcript: list[dict[str, Any]]) -> str: ...


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p)
    return str(content)


def _clean(text: str) -> str:
    return text.replace("<![CDATA[", "").replace("]]>", "")


class Nodes:
    def __init__(self, agent: AgentContext, llm: BaseChatModel | None, brain: Brain | None,
                 confirm_steps: ConfirmMode = "off") -> None:
        self.agent = agent
        self.llm = llm
        self.brain = brain
        self.confirm_steps = confirm_steps
        # The long XML system prompt is the same every step: let providers that can cache it do so.
        self.prompt_caching = prompt_caching_for(llm) if llm is not None else None

    # ------------------------------------------------------------------ prepare
    def prepare(self, state: Text2SqlState) -> dict[str, Any]:
        question = state.get("user_input", "").strip()
        opts = self.agent.options
        update = fresh_turn(question, max_calls=opts["max_calls"], min_exploration=opts["min_exploration"])
        cache = self.agent.query_cache
        hit = cache.get(self.agent.fingerprint, question) if cache is not None else None
        if hit and hit.get("sql") and isinstance(hit.get("table"), dict):
            emit(DecisionEvent("query_cache", "hit", "this question was answered before for the same schema",
                               {"sql": hit["sql"]}))
            answer = str(hit.get("answer") or "")
            update.update(status="cache", sql=hit["sql"], table=hit["table"], answer=answer,
                          reply=_reply_for_rows(answer, hit["table"], cached=True))
        elif cache is not None:
            emit(DecisionEvent("query_cache", "miss", "no cached answer: running the ReAct loop"))
        return update

    # ------------------------------------------------------------------ think
    def _messages(self, state: Text2SqlState, react: ReactSessionState) -> list[BaseMessage]:
        system = prompts.render("system.xml", dialect=self.agent.dialect, max_calls=react.max_calls,
                                tables=self.agent.tables_overview())
        messages: list[BaseMessage] = [SystemMessage(system),
                                       HumanMessage(f"<question>{escape_xml(state['question'])}</question>")]
        for entry in state.get("transcript", []):
            messages.append(AIMessage(entry["response"]))
            messages.append(HumanMessage(entry["observation"]))
        return messages

    def _stream_text(self, produce: Callable[[], Any], throttle_s: float) -> str:
        extractor = StreamingXmlSectionsExtractor(sections=STREAM_SECTIONS, throttle_s=throttle_s)
        text = ""
        for piece in produce():
            text += piece
            for delta in extractor.feed(piece):
                if delta.text:
                    emit(TokenEvent(_clean(delta.text), section=delta.section))
        for delta in extractor.flush():
            if delta.text:
                emit(TokenEvent(_clean(delta.text), section=delta.section))
        return text

    def _ask_model(self, state: Text2SqlState, react: ReactSessionState) -> ParseOutcome:
        if self.llm is None:
            assert self.brain is not None
            brain, question = self.brain, state["question"]
            raw = brain.respond(question, react, list(state.get("transcript", [])))
            text = self._stream_text(lambda: (raw[i : i + 24] for i in range(0, len(raw), 24)), 0.0)
            return parse_with_repair(text)
        llm = self.llm
        messages = self._messages(state, react)
        kwargs: dict[str, Any] = {}
        if self.prompt_caching is not None:
            messages, kwargs = self.prompt_caching.prepare(messages)
        text = self._stream_text(lambda: (_text(c.content) for c in llm.stream(messages, **kwargs)), 0.05)

        def reprint(bad: str) -> str:
            return _text(llm.invoke([HumanMessage(REPRINT_PROMPT.format(response=bad))]).content)

        return parse_with_repair(text, reprint=reprint)

    def think(self, state: Text2SqlState) -> dict[str, Any]:
        react = ReactSessionState.from_dict(state.get("react"))
        try:
            outcome = self._ask_model(state, react)
        except Exception as exc:  # a model that cannot be reached ends the turn, not the session
            log.warning("text2sql model call failed: %s", exc)
            emit(ErrorEvent(f"model call failed: {type(exc).__name__}: {exc}", code="model"))
            return {"status": "error", "pending": None}
        step = outcome.step
        if outcome.path != "clean":
            emit(DecisionEvent("xml_repair", outcome.path, "; ".join(outcome.problems) or "repaired",
                               {"path": outcome.path}))
        if step.is_error:
            react.parse_failures += 1
            if react.parse_failures >= MAX_PARSE_FAILURES:
                return {"status": "error", "pending": None, "react": react.to_dict()}
            note = ("Your answer could not be parsed. Reply with exactly one <response> element "
                    "holding reasoning, user_facing and one tool_call; wrap SQL in CDATA.")
            entry = {"response": step.raw[:4000], "observation": render_observation("format", False, note),
                     "tool": "format", "ok": False, "data": {}}
            return {"react": react.to_dict(), "pending": None,
                    "transcript": [*state.get("transcript", []), entry]}
        if step.tool_call is None:
            return {"status": "answered", "answer": step.user_facing, "pending": None}
        update: dict[str, Any] = {}
        rewrite = maybe_rewrite_tool_call_for_policy(step=step, state=react, question=state["question"],
                                                     sql_key=self.agent.sql_key)
        if rewrite:
            emit(DecisionEvent("policy_rewrite", rewrite["to"], rewrite["reason"], dict(rewrite)))
            update["rewrites"] = [*state.get("rewrites", []), rewrite]
        call = step.tool_call
        assert call is not None
        update["pending"] = {"name": call.name, "parameters": dict(call.parameters), "rewrite": rewrite,
                             "reasoning": step.reasoning, "user_facing": step.user_facing, "raw": step.raw or "",
                             "confirm": needs_confirmation(self.confirm_steps, call.name)}
        update["confirmation"] = None
        return update

    # ------------------------------------------------------------------ confirm
    def confirm(self, state: Text2SqlState) -> dict[str, Any]:
        return confirm_step(dict(state), dialect=self.agent.dialect)

    # ------------------------------------------------------------------ act
    def act(self, state: Text2SqlState) -> dict[str, Any]:
        pending = state.get("pending") or {}
        question = state["question"]
        react = ReactSessionState.from_dict(state.get("react"))
        step = ReactStep(reasoning=pending.get("reasoning", ""), user_facing=pending.get("user_facing", ""),
                         tool_call=ToolCall(pending["name"], dict(pending.get("parameters", {}))),
                         raw=pending.get("raw", ""))
        rewrites = list(state.get("rewrites", []))
        rewrite = pending.get("rewrite")
        # think already applied the policy; applying it again here means no call, a user-edited one
        # included, reaches the tools without passing it (a no-op unless the state moved meanwhile)
        late = maybe_rewrite_tool_call_for_policy(step=step, state=react, question=question,
                                                  sql_key=self.agent.sql_key)
        if late:
            rewrite = late
            rewrites.append(late)
            emit(DecisionEvent("policy_rewrite", late["to"], late["reason"], dict(late)))
        assert step.tool_call is not None
        name, params = step.tool_call.name, step.tool_call.parameters
        call_id = f"t2s-{len(react.used_tools) + 1}"
        emit(ToolCallEvent(name, dict(params), call_id))
        ctx = ToolContext(self.agent, question, last_error=react.last_error)
        result = execute_tool(name, params, ctx)
        emit(ToolResultEvent(name, result.ok, result.summary, result.data, call_id))
        if name == "explain" and result.ok and result.data.get("risks"):
            emit(DecisionEvent("explain_risk", "warn", "; ".join(result.data["risks"]), dict(result.data)))
        sql_param = params.get("sql", "") if name in SQL_TOOLS else ""
        react.record_tool_use(name, ok=result.ok, sql_key=self.agent.sql_key(sql_param),
                              sql=sql_param if result.ok else "")
        react.last_error = ctx.last_error
        react.iteration += 1
        prefix = (f"[policy] your {rewrite['from']} call was run as {rewrite['to']} ({rewrite['reason']}).\n"
                  if rewrite else "")
        tail = f"\n(remaining tool calls: {react.remaining_tool_calls})"
        if pending.get("edited"):
            tail += f"\n[user] before this call ran, the user replaced its SQL with: {params.get('sql', '')}"
        entry = {"response": step.raw or "", "observation": render_observation(name, result.ok,
                                                                                 prefix + result.content + tail),
                 "tool": name, "ok": result.ok, "data": result.data, "sql": result.sql}
        update: dict[str, Any] = {"react": react.to_dict(), "pending": None, "rewrites": rewrites,
                                  "transcript": [*state.get("transcript", []), entry]}
        if name == "explain" and result.ok:
            update["explain"] = dict(result.data)
        if name == "submit_sql" and result.ok:
            update.update(status="submitted", sql=result.sql, table=result.table, answer=step.user_facing)
        elif react.remaining_tool_calls <= 0:
            emit(DecisionEvent("budget", "stop", f"all {react.max_calls} tool calls used without a submitted SQL"))
            update["status"] = "budget"
        return update

    # ------------------------------------------------------------------ finish
    def finish(self, state: Text2SqlState) -> dict[str, Any]:
        status = state.get("status", "running")
        if status in ("cache", "cancelled"):
            return {"reply": state.get("reply", "")}
        if status == "submitted":
            table = state.get("table") or {"columns": [], "rows": []}
            self._remember(state["question"], str(state.get("sql") or ""), table, state.get("answer", ""))
            return {"reply": _reply_for_rows(state.get("answer", ""), table)}
        react = ReactSessionState.from_dict(state.get("react"))
        if status == "answered":
            reply = state.get("answer") or "이 질문은 SQL로 답할 수 없어요."
        elif status == "budget":
            reply = (f"도구 호출 {react.max_calls}번 안에 SQL을 확정하지 못했어요. "
                     "질문을 조금 더 구체적으로 말씀해 주시겠어요?")
        else:
            reply = "모델 응답을 해석하지 못해 이번 질문을 마치지 못했어요. 다시 시도해 주세요."
        return {"reply": reply}

    def _remember(self, question: str, sql: str, table: dict[str, Any], answer: str) -> None:
        """Fill the query cache and the similar-query memory; neither may fail the turn."""
        cache = self.agent.query_cache
        if cache is not None and not table.get("truncated"):
            try:
                cache.put(self.agent.fingerprint, question, {"sql": sql, "table": table, "answer": answer})
            except Exception as exc:
                log.warning("text2sql query cache put failed: %s", exc)
        try:
            self.agent.memory.record(self.agent.fingerprint, question, sql, success=True)
        except Exception as exc:
            log.warning("text2sql memory record failed: %s", exc)


def _reply_for_rows(answer: str, table: dict[str, Any], *, cached: bool = False) -> str:
    """The answer first (a value, or the first rows), then how it was understood."""
    rows = table.get("rows") or []
    columns = table.get("columns") or []
    if not rows:
        summary = "조건에 맞는 데이터가 없어요."
    elif len(rows) == 1 and len(columns) == 1:
        summary = f"{columns[0]}: {_fmt(rows[0][0])}"
    else:
        shown = [f"{i}. " + " · ".join(_fmt(v) for v in row) for i, row in enumerate(rows[:5], 1)]
        more = f"\n… 외 {len(rows) - 5}행" if len(rows) > 5 else ""
        truncated = " (일부만 표시)" if table.get("truncated") else ""
        summary = f"결과 {len(rows)}행{truncated}:\n" + "\n".join(shown) + more
    source = "\n이전에 같은 질문의 결과를 재사용했어요." if cached else ""
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


def route_after_think(state: Text2SqlState) -> str:
    pending = state.get("pending")
    if pending:
        return "confirm" if pending.get("confirm") else "act"
    return "think" if state.get("status") == "running" else "finish"


def route_after_act(state: Text2SqlState) -> str:
    return "think" if state.get("status") == "running" else "finish"
