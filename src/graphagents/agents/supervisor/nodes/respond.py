"""aggregate and generate_response: the team outputs become one answer with citations.

With a model the prose is the model's; the citation line and the data-source notes are added
by code either way, so an answer never loses its articles or its "synthetic data" warning.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.errors import GraphBubbleUp

from graphagents.errors import ModelRequestsBlocked
from graphagents.events import DecisionEvent, emit
from graphagents.llm.answer import stream_answer
from graphagents.llm.degrade import report_degraded

from ..aggregate import artifacts, collect
from ..context import SupervisorContext
from ..offline.compose import _source_notes as source_notes
from ..offline.compose import compose, direct_reply, followup_note, scope_note
from ..prompts import PROMPTS
from ..state import MainSupervisorState
from ..verify import check_answer, delimit


def make_aggregate(ctx: SupervisorContext) -> Any:
    def aggregate(state: MainSupervisorState) -> dict[str, Any]:
        agg = collect(state, ctx.articles)
        return {"current_phase": "aggregate", "aggregated": agg, "artifacts": artifacts(agg),
                "finish_reason": agg["finish_reason"]}

    return aggregate


def _results_for_model(agg: dict[str, Any]) -> str:
    keep = {k: agg.get(k) for k in ("analysis", "loans", "document", "finish_reason")}
    market = agg.get("market") or {}
    keep["market"] = {k: market.get(k) for k in ("question", "sql", "rows", "source")} if market else None
    doc = agg.get("document")
    if doc:
        keep["document"] = {k: doc.get(k) for k in ("title", "missing_items")}
    return json.dumps(keep, ensure_ascii=False, default=str)[:12000]


def make_generate_response(ctx: SupervisorContext) -> Any:
    def generate_response(state: MainSupervisorState) -> dict[str, Any]:
        query = state["query"]
        agg = state.get("aggregated") or {}
        intent = (state.get("planning_state") or {}).get("analyzed_intent") or {}
        if not agg:  # responding directly after planning
            text = direct_reply(intent)
            return {"reply": text, "current_phase": "respond", "finish_reason": "direct", "artifacts": []}
        if ctx.models.responder is None:
            return {"reply": compose(query, agg), "current_phase": "respond"}
        citations = agg.get("citations") or []
        articles = "\n".join(f"- {c['citation']}({c['title']}): {c['text'][:600]}" for c in citations) or "없음"
        # data delimited and escaped: a statute's text or a market row cannot pose as an instruction
        prompt = PROMPTS.render("respond.md", query=delimit("question", query),
                                results=delimit("results", _results_for_model(agg)),
                                articles=delimit("articles", articles),
                                missing=delimit("missing", "\n".join(f"- {m}" for m in agg.get("missing") or [])
                                                or "없음"))
        try:  # streamed: the page and the CLI show the answer as it comes
            text = stream_answer(ctx.models.responder, [HumanMessage(prompt)], korean=True,
                                 limit=ctx.settings.max_model_output_chars).text
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:  # any provider failure: the offline composer still answers
            event = report_degraded("respond", exc)
            emit(DecisionEvent("response", "fallback", f"모델 응답 실패({event.reason})로 템플릿 응답을 씁니다"))
            return {"reply": compose(query, agg), "current_phase": "respond"}
        if not text:  # an empty answer (or only a tool call) falls back like every other decision point
            report_degraded("respond", reason="empty")
            emit(DecisionEvent("response", "fallback", "모델 응답이 비어 있어 템플릿 응답을 씁니다"))
            return {"reply": compose(query, agg), "current_phase": "respond"}
        checked = check_answer(text, query, agg, lambda: compose(query, agg))
        if checked.dropped:  # the model cited an article it was not given, or a figure not in the evidence
            emit(DecisionEvent("response", "replaced" if checked.replaced else "checked",
                               f"근거에 없는 조문·수치가 있는 문장 {len(checked.dropped)}개",
                               {"dropped": [{"sentence": d[:200], "problems": p} for d, p in checked.dropped]}))
            text = checked.text
        footer = source_notes(agg.get("sources") or [])
        if agg.get("missing"):  # said by code too, so a model cannot drop what is missing
            footer.append("확인이 필요한 정보: " + "; ".join(agg["missing"]))
        if citations:
            footer.append("근거 조문: " + ", ".join(c["citation"] for c in citations))
        return {"reply": followup_note(agg) + scope_note(agg) + "\n\n".join([text, "\n".join(footer)]).strip(),
                "current_phase": "respond"}

    return generate_response
