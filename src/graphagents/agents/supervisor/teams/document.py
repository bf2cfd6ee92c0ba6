"""The document team: a Markdown draft from a template, filled from what the user said, with the
statute articles behind each item and the missing items listed."""

from __future__ import annotations

import time
from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.events import ToolCallEvent, ToolResultEvent, emit

from ..aggregate import document_artifacts
from ..context import SupervisorContext
from ..documents import compose_document
from ..state import TeamInput, TeamOutput
from .base import TeamState, digest, run_record, team_output


def build_document_team(ctx: SupervisorContext) -> Any:
    def draft(state: TeamState) -> dict[str, Any]:
        started = time.perf_counter()
        task = state["task"]
        entities = (state.get("intent") or {}).get("entities") or {}
        inputs = state.get("inputs") or {}
        emit(ToolCallEvent("draft_document", {"inputs": sorted(inputs), "focus": task.get("focus", "")}, task["id"]))
        doc = compose_document(state["query"], entities, inputs, task.get("focus", ""), cite=ctx.cite)
        if doc is None:
            emit(ToolResultEvent("draft_document", False, "요청에 맞는 문서 양식이 없음", None, task["id"]))
            record = run_record(task, status="empty", count=0, info=[], summary="맞는 문서 양식 없음",
                                output={"missing_items": [], "articles": []}, seconds=time.perf_counter() - started)
            return team_output(record)
        emit(ToolResultEvent("draft_document", True, f"{doc['title']} — 항목 {len(doc['clauses'])}개, "
                             f"미기재 {len(doc['missing_items'])}개", {"template": doc["template"]}, task["id"]))
        record = run_record(task, status="ok", count=len(doc["clauses"]),
                            info=[f"doc:{doc['template']}:{digest(doc['markdown'])}"],
                            summary=f"{doc['title']} 초안(근거 조문 {len(doc['articles'])}개)", output=doc,
                            seconds=time.perf_counter() - started)
        return team_output(record, document_artifacts(doc))

    g = StateGraph(TeamState, input_schema=TeamInput, output_schema=TeamOutput)
    g.add_node("draft", draft)
    g.add_edge(START, "draft")
    g.add_edge("draft", END)
    return g.compile()
