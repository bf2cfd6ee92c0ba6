"""Step Confirmation Mode (design note, part 6: 각 스텝 사용자 확인, interactive mode).

With the agent option ``confirm_steps`` the graph stops in the ``confirm`` node before a tool call
that sends SQL to the database (``"all"``: before every tool call) and shows the user the call as it
will really run: after the policy rewrite, so the user never approves one call and gets another.
The user answers yes, no, or with an edited SQL; anything else is asked again at most
``MAX_REASKS`` times, then the question is cancelled, so a user who keeps typing noise still gets a
turn that ends.

An edited SQL only replaces the ``sql`` parameter of the pending call. The call then goes through
``act`` like any other: policy re-check, ``SQLGuard`` and the read-only executor. Confirmation is
an extra gate in front of the safety layer, never a way around it.

The node follows the LangGraph rules for multi-turn waits: one ``interrupt()`` per node run, the
pending call and the re-ask count kept in state, a conditional edge back to itself for a re-ask.
Everything before ``interrupt()`` is a pure function of the state, so the re-run on resume is safe;
events are emitted only after the answer arrived.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import sqlglot
from langgraph.types import interrupt
from sqlglot.errors import ParseError, TokenError

from graphagents.errors import ConfigError
from graphagents.events import DecisionEvent, emit
from graphagents.llm.xml_protocol import ToolCall

from .state import SQL_TOOLS

ConfirmMode = Literal["off", "sql", "all"]
AnswerKind = Literal["yes", "no", "sql", "unclear"]

MAX_REASKS = 2
QUESTION_SQL = "진행할까요? (네 / 아니요 / 또는 수정한 SQL을 보내 주세요)"
QUESTION_PLAIN = "진행할까요? (네 / 아니요)"

_OFF = {"", "0", "false", "no", "off", "none"}
_ON = {"1", "true", "yes", "on", "sql"}

_LABELS = {
    "explain": "실행 계획 검사",
    "execute_sql_preview": "결과 미리보기",
    "submit_sql": "최종 SQL 실행",
    "search_tables": "테이블 검색",
    "search_columns": "컬럼 검색",
    "search_column_values": "컬럼 값 검색",
    "find_similar_query": "비슷한 질문 찾기",
}

# Only text that starts like a statement counts as SQL: sqlglot alone reads "네" or "hello world"
# as a column expression.
_SQL_START = re.compile(
    r"^\(*\s*(?:select|with|values|table|insert|update|delete|merge|replace|upsert|drop|create|alter|"
    r"truncate|grant|revoke|attach|detach|pragma|vacuum|copy|explain|call|set|begin|commit)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_RUN = re.compile(
    r"^(?:진행|실행|계속)(?:해|해요|해줘|해주세요|하세요|합시다|하자|해도돼|해도돼요)?$|^(?:go|run|ㄱㄱ)$"
)
_STOP = re.compile(r"^(?:취소|중단|중지|그만|멈춰|멈춤|cancel|stop|abort|quit)")


def parse_confirm_steps(value: Any) -> ConfirmMode:
    """``False``/``"false"`` -> off, ``True``/``"true"``/``"sql"`` -> SQL tools, ``"all"`` -> every tool."""
    if value is None or value is False:
        return "off"
    if value is True:
        return "sql"
    text = str(value).strip().lower()
    if text in _OFF:
        return "off"
    if text in _ON:
        return "sql"
    if text == "all":
        return "all"
    raise ConfigError(f"confirm_steps must be true, false or 'all', got {value!r}")


def needs_confirmation(mode: ConfirmMode, tool: str) -> bool:
    return mode == "all" or (mode == "sql" and tool in SQL_TOOLS)


@dataclass(frozen=True)
class Answer:
    kind: AnswerKind
    sql: str = ""
    note: str = ""  # why an answer was not understood, shown with the re-ask


def _statement(text: str, dialect: str) -> tuple[str, str]:
    """(sql, "") when ``text`` is one or more SQL statements; ("", problem) when it starts like one
    but does not parse; ("", "") when it is no SQL at all."""
    body = _FENCE.sub("", text.strip()).strip()
    if not _SQL_START.match(body):
        return "", ""
    try:
        trees = sqlglot.parse(body, read=dialect)
    except (ParseError, TokenError) as exc:
        errors = getattr(exc, "errors", None) or [{}]
        why = str(errors[0].get("description") or "").split(" but got ")[0]
        return "", "보내 주신 SQL을 해석하지 못했어요" + (f" ({why[:80]})." if why else ".")
    if not any(t is not None for t in trees):
        return "", ""
    return body.rstrip().rstrip(";").rstrip(), ""


def read_answer(text: str, *, dialect: str, takes_sql: bool) -> Answer:
    """Read the user's answer to "진행할까요?".

    SQL is tried first (a statement is never a yes/no). Yes/no uses the shared Korean classifier
    (``graphagents.korean``): it handles negation winning over positive words ("진행하지 마세요"),
    STT spacing and hesitations, and keeps one definition of "yes" in the project. Its vocabulary is about offers,
    so the imperative words of this question (진행/실행, 취소/중단/그만) are read here first.
    """
    from graphagents.korean import classify_yes_no

    sql, problem = _statement(text, dialect)
    if sql:
        if not takes_sql:
            return Answer("unclear", note="이 단계는 SQL을 받지 않아요.")
        return Answer("sql", sql=sql)
    if problem:
        return Answer("unclear", note=problem)
    compact = re.sub(r"[\s.,!?~…]+", "", text.strip().lower())
    if _STOP.match(compact):
        return Answer("no")
    if _RUN.match(compact):
        return Answer("yes")
    verdict = classify_yes_no(text)
    if verdict == "yes":
        return Answer("yes")
    if verdict == "no":
        return Answer("no")
    return Answer("unclear")


def confirmation_text(pending: dict[str, Any], *, note: str = "") -> str:
    """The question shown to the user: the tool, the policy rewrite if any, the SQL that will run."""
    name = str(pending.get("name", ""))
    params = dict(pending.get("parameters") or {})
    lines = [note] if note else []
    lines.append("다음 단계를 실행하기 전에 확인할게요.")
    label = _LABELS.get(name)
    lines.append(f"도구: {name}" + (f" ({label})" if label else ""))
    rewrite = pending.get("rewrite")
    if rewrite:
        lines.append(f"(정책에 따라 {rewrite['from']} 대신 {rewrite['to']}(으)로 실행해요)")
    takes_sql = name in SQL_TOOLS
    if takes_sql:
        lines.append("SQL:\n" + str(params.get("sql", "")).strip())
    else:
        lines.extend(f"{key}: {value}" for key, value in params.items())
    lines.append(QUESTION_SQL if takes_sql else QUESTION_PLAIN)
    return "\n".join(lines)


def _cancel_reply(tool: str, used_tools: list[str], *, unclear: bool) -> str:
    """Say plainly what did not run; "nothing" only when no SQL reached the database this question."""
    head = "답을 이해하지 못해 여기서 멈출게요." if unclear else "알겠어요, 여기서 멈출게요."
    if not any(t in SQL_TOOLS for t in used_tools):
        what = "이번 질문에서는 데이터베이스에 SQL을 하나도 실행하지 않았어요."
    else:
        what = f"{tool} 단계는 실행하지 않았어요."
    return f"{head} {what} 이어서 하시려면 질문을 다시 보내 주세요."


def confirm_step(state: dict[str, Any], *, dialect: str) -> dict[str, Any]:
    """One confirmation round: ask, read the answer, and say where the graph goes next.

    Returns ``confirmation.result`` "run" (to ``act``), "ask" (to ``confirm`` again) or a
    ``status`` "cancelled" (to ``finish``); an edited SQL leaves a ``note`` that ``act`` appends
    to the call's observation.
    """
    pending = dict(state.get("pending") or {})
    round_ = dict(state.get("confirmation") or {})
    reasks = int(round_.get("reasks", 0))
    name = str(pending.get("name", ""))
    params = dict(pending.get("parameters") or {})
    takes_sql = name in SQL_TOOLS
    text = confirmation_text(pending, note=str(round_.get("note", "")))
    raw = interrupt({"text": text, "tool": name, "sql": params.get("sql", "") if takes_sql else ""})
    reply = raw.get("text", "") if isinstance(raw, dict) else raw
    answer = read_answer(str(reply or ""), dialect=dialect, takes_sql=takes_sql)
    details: dict[str, Any] = {"tool": name, "reasks": reasks}
    used = list((state.get("react") or {}).get("used_tools", []))
    if answer.kind == "yes":
        emit(DecisionEvent("step_confirmation", "yes", "the user approved the call", details))
        return {"confirmation": {"reasks": reasks, "result": "run"}}
    if answer.kind == "sql":
        emit(DecisionEvent("step_confirmation", "edit", "the user replaced the SQL; guard and policy still apply",
                           {**details, "sql": answer.sql}))
        edited = {**pending, "parameters": {**params, "sql": answer.sql}, "edited": True,
                  "note": f"[user] before this call ran, the user replaced its SQL with: {answer.sql}"}
        return {"pending": edited, "confirmation": {"reasks": reasks, "result": "run"}}
    if answer.kind == "no":
        emit(DecisionEvent("step_confirmation", "no", "the user declined the call; nothing was run", details))
        return {"pending": None, "status": "cancelled", "confirmation": None,
                "reply": _cancel_reply(name, used, unclear=False)}
    if reasks >= MAX_REASKS:
        emit(DecisionEvent("step_confirmation", "cancel",
                           f"no clear answer after {MAX_REASKS} re-asks; nothing was run", details))
        return {"pending": None, "status": "cancelled", "confirmation": None,
                "reply": _cancel_reply(name, used, unclear=True)}
    emit(DecisionEvent("step_confirmation", "reask", answer.note or "the answer was neither yes, no nor SQL",
                       details))
    left = MAX_REASKS - reasks - 1
    note = (answer.note or "답을 이해하지 못했어요.") + (
        " 한 번 더 이해하지 못하면 이 단계는 취소돼요." if left == 0 else "")
    return {"confirmation": {"reasks": reasks + 1, "result": "ask", "note": note}}


@dataclass(frozen=True)
class SqlConfirmation:
    """The tool loop's confirmation hook for text2sql (the ``confirm`` node)."""

    mode: ConfirmMode
    dialect: str

    def needs(self, call: ToolCall) -> bool:
        return needs_confirmation(self.mode, call.name)

    def __call__(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return confirm_step(dict(state), dialect=self.dialect)
