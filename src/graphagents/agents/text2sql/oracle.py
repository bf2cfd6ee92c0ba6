"""Deterministic drivers of the ReAct loop that speak the XML protocol like a model would.

* :class:`OracleChatModel` is a :class:`~graphagents.testing.FunctionChatModel` whose function knows
  the gold SQL of each question. It explores, explains, previews and submits the gold through the
  whole pipeline (protocol parsing, policy, guard, execution, result formatting), so
  ``eval --llm oracle`` measures the pipeline: anything below 100% is a bug in our code, not in a
  model.
* :class:`OfflineBrain` is the no-LLM planner: it drives the same tools through the same policy,
  composing SQL with :mod:`.offline` (schema and value linking) and refusing plainly when it cannot.

(They live here and not in ``offline.py`` because the ``offline/`` package owns that name.)
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import unescape

from langchain_core.messages import BaseMessage

from graphagents.llm.xml_protocol import render_response
from graphagents.testing.models import FunctionChatModel

from .agent_context import AgentContext
from .state import EXPLORATION_TOOLS, ReactSessionState

_QUESTION = re.compile(r"<question>(.*?)</question>", re.S)
_OBSERVATION = re.compile(r'<observation tool="([^"]+)" status="(ok|error)">')


def question_key(question: str) -> str:
    return " ".join(question.split()).casefold()


def _history(messages: list[BaseMessage]) -> tuple[str, list[tuple[str, bool]]]:
    """The question and the (tool, ok) of every observation so far, read back from the prompt."""
    question, seen = "", []
    for message in messages:
        content = str(message.content)
        if not question and (m := _QUESTION.search(content)):
            question = unescape(m.group(1), {"&quot;": '"', "&apos;": "'"})
        if (o := _OBSERVATION.match(content.lstrip())) is not None:
            seen.append((o.group(1), o.group(2) == "ok"))
    return question, seen


def next_gold_step(question: str, sql: str, seen: list[tuple[str, bool]]) -> str:
    """Explore, explain, preview, submit: the order the policy asks of a well-behaved model."""
    tools = [t for t, _ in seen]
    if not any(t in EXPLORATION_TOOLS for t in tools):
        return render_response(reasoning="먼저 관련 테이블을 확인합니다.", user_facing="관련 테이블을 찾는 중입니다.",
                               tool="search_tables", parameters={"query": question})
    if not any(t == "explain" and ok for t, ok in seen) and tools.count("explain") < 2:
        return render_response(reasoning="제출 전에 실행 계획을 검사합니다.", user_facing="SQL을 검증하고 있습니다.",
                               tool="explain", parameters={"sql": sql})
    if "execute_sql_preview" not in tools:
        return render_response(reasoning="결과 몇 행을 미리 봅니다.", user_facing="결과를 미리 확인합니다.",
                               tool="execute_sql_preview", parameters={"sql": sql})
    return render_response(reasoning="검증된 SQL을 제출합니다.", user_facing="검증된 SQL로 결과를 가져왔어요.",
                           tool="submit_sql", parameters={"sql": sql})


@dataclass(frozen=True)
class GoldReplies:
    """The oracle's reply function: the next gold step of the question found in the prompt."""

    gold: Mapping[str, str]

    def __call__(self, messages: list[BaseMessage]) -> str:
        question, seen = _history(messages)
        sql = self.gold.get(question_key(question))
        if sql is None:
            return render_response(reasoning="정답 SQL이 없는 질문입니다.",
                                   user_facing="이 질문의 정답 SQL을 알지 못해요.")
        return next_gold_step(question, sql, seen)


class OracleChatModel(FunctionChatModel):
    """Answers each known question with its gold SQL, step by step; unknown ones it declines."""

    chunk_size: int = 48

    @classmethod
    def from_pairs(cls, pairs: Mapping[str, str] | list[tuple[str, str]]) -> OracleChatModel:
        items = pairs.items() if isinstance(pairs, Mapping) else pairs
        return cls(function=GoldReplies({question_key(q): sql for q, sql in items}))

    @property
    def _llm_type(self) -> str:
        return "oracle"


# ---------------------------------------------------------------------------------- offline brain


class OfflineBrain:
    """Schema linking, value linking and SQL composition without a model, through the same tools."""

    def __init__(self, agent: AgentContext, *, cache_size: int = 256) -> None:
        self.agent = agent
        self._composed: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    def compose(self, question: str) -> Any:
        with self._lock:
            if question in self._composed:
                return self._composed[question]
        from .offline import compose

        result = compose(question, self.agent.compose_context())
        with self._lock:
            self._composed[question] = result
            while len(self._composed) > self._cache_size:
                self._composed.popitem(last=False)
        return result

    def respond(self, question: str, react: ReactSessionState, transcript: list[dict[str, Any]]) -> str:
        done = [(e.get("tool", ""), bool(e.get("ok"))) for e in transcript]
        tools = [t for t, _ in done]
        if not any(t in EXPLORATION_TOOLS for t in tools):
            return render_response(reasoning=f"질문 {question!r}에 관련된 테이블을 먼저 찾습니다.",
                                   user_facing="관련 테이블을 찾는 중입니다.",
                                   tool="search_tables", parameters={"query": question})
        result = self.compose(question)
        sql = result.sql
        if not sql:
            reason = result.reason or "질문을 테이블과 컬럼에 연결하지 못했습니다"
            return render_response(reasoning=f"SQL을 만들 수 없습니다: {reason}",
                                   user_facing=f"이 질문으로는 SQL을 만들 수 없어요. 이유: {reason}. "
                                               "테이블이나 값의 이름을 넣어 다시 물어봐 주세요.")
        explanation = result.reason or "질문을 스키마에 연결해 SQL을 만들었습니다."
        links = list(result.value_links)
        if links and "search_column_values" not in tools and react.remaining_tool_calls > 3:
            link = links[0]
            column = f"{link.table}.{link.column}"
            return render_response(reasoning=f"값 {link.natural!r}이(가) {column}에 실제로 있는지 확인합니다.",
                                   user_facing=f"'{link.natural}' 값을 데이터에서 확인합니다.",
                                   tool="search_column_values",
                                   parameters={"column": column, "keyword": str(link.natural)})
        explains = [ok for t, ok in done if t == "explain"]
        if not any(explains):
            if explains:  # the composed SQL failed explain: say so rather than guess again
                error = next((e["observation"] for e in reversed(transcript) if e.get("tool") == "explain"), "")
                return render_response(reasoning="만든 SQL이 검증을 통과하지 못했습니다.",
                                       user_facing=f"만든 SQL이 검증을 통과하지 못해 답을 드리지 못해요. {error[:200]}")
            return render_response(reasoning=f"{explanation} 제출 전에 실행 계획을 검사합니다.",
                                   user_facing="SQL을 만들었고, 실행 계획을 검사합니다.",
                                   tool="explain", parameters={"sql": sql})
        if "execute_sql_preview" not in tools:
            return render_response(reasoning="결과 몇 행을 미리 봅니다.", user_facing="결과를 미리 확인합니다.",
                                   tool="execute_sql_preview", parameters={"sql": sql})
        return render_response(reasoning="검증된 SQL을 제출합니다.", user_facing=explanation,
                               tool="submit_sql", parameters={"sql": sql})
