"""The search team: picks its tools from the task (plan scopes, or the query when the plan gave
none) and runs them in parallel: law retrieval, market prices via the text2sql sub-agent, and the
loan calculator."""

from __future__ import annotations

import re
import time
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from graphagents.events import DecisionEvent, ToolCallEvent, ToolResultEvent, emit

from ..aggregate import citation_artifact, loan_artifacts, market_artifacts
from ..analysis.market import restrict_to_complex
from ..context import SupervisorContext
from ..offline.lexicon import lexicon, normalise
from ..state import TeamInput, TeamOutput, merge_or_reset
from ..tools.loans import LoanQuery, calculate
from ..tools.market import run_market
from .base import TeamState, digest, run_record, team_output

TOOLS = ("laws", "market", "loans")
_TENANCY = re.compile(r"세입자|임차|임대|전세|월세|보증금|갱신|집주인")


class SearchState(TeamState, total=False):
    tools: list[str]
    found: Annotated[dict[str, Any], merge_or_reset]


def loan_query(entities: dict[str, Any], query: str) -> dict[str, Any]:
    """The calculator's inputs from the entities; only what the user said (or analysis supplies)."""
    from .. import entities as ent

    text = normalise(query)
    purpose = "전세" if entities.get("deal_type") == "전세" or re.search(r"전세 ?(자금 ?)?대출", text) else "매매"
    region = entities.get("region") or {}
    params: dict[str, Any] = {"purpose": purpose, "sido": region.get("sido"), "sigungu": region.get("sigungu"),
                              "buyer": entities.get("buyer"), "income_manwon": ent.amount(entities, "income"),
                              "price_manwon": ent.amount(entities, "price"),
                              "deposit_manwon": ent.amount(entities, "deposit")}
    if params["price_manwon"] is not None:
        params["price_source"] = "사용자 제시"
    if "대출 없" in text or "대출은 없" in text:
        params["other_debt_service_manwon"] = 0
    return params


def build_search_team(ctx: SupervisorContext) -> Any:
    def select_tools(state: SearchState) -> dict[str, Any]:
        task = state["task"]
        scopes = [s for s in task.get("scopes") or [] if s in TOOLS]
        why = "계획이 정한 검색 범위"
        if not scopes:
            text = normalise(state.get("query", ""))
            scopes = [s for s, pat in lexicon().scopes.items() if pat.search(text)] or ["laws"]
            why = "질문 표현으로 고른 검색 범위"
        emit(DecisionEvent("tool_selection", ",".join(scopes), why, {"task": task["id"]}))
        return {"tools": scopes, "found": None, "started": time.perf_counter()}

    def fan_out(state: SearchState) -> list[Send]:
        return [Send(tool, state) for tool in state["tools"]]

    def laws(state: SearchState) -> dict[str, Any]:
        task = state["task"]
        keywords = list(task.get("keywords") or [])
        emit(ToolCallEvent("law_search", {"query": state["query"], "keywords": keywords,
                                          "broaden": bool(task.get("broaden"))}, task["id"]))
        entities = (state.get("intent") or {}).get("entities") or {}
        sale_only = entities.get("deal_type") == "매매" and not _TENANCY.search(normalise(state["query"]))
        result = ctx.laws.search(state["query"], keywords, broaden=bool(task.get("broaden")), sale_only=sale_only)
        emit(ToolResultEvent("law_search", True, f"조문 {len(result['hits'])}건 (관련 {result['relevant']}건)",
                             {"ids": [h["id"] for h in result["hits"]]}, task["id"]))
        return {"found": {"laws": result}}

    def market(state: SearchState) -> dict[str, Any]:
        task = state["task"]
        # A broader search keeps the complex: another complex's or the district's rows are not its prices.
        entities = (state.get("intent") or {}).get("entities") or {}
        emit(ToolCallEvent("market_prices", {"entities": entities}, task["id"]))
        try:
            result = run_market(ctx.market_agent, ctx.market_source, state["query"], entities)
        except Exception as exc:  # the sub-agent failing must not sink the team
            result = {"status": "error", "error": f"{type(exc).__name__}: {exc}", "rows": 0, "table": None,
                      "source": ctx.market_source.describe()}
        if entities.get("complex") and result.get("status") != "error":
            result = restrict_to_complex(result, str(entities["complex"]))
        emit(ToolResultEvent("market_prices", result["status"] not in ("error", "budget"),
                             f"{result.get('question', '')}: {result['rows']}행 ({result['status']})",
                             {"sql": result.get("sql")}, task["id"]))
        return {"found": {"market": result}}

    def loans(state: SearchState) -> dict[str, Any]:
        task = state["task"]
        params = loan_query((state.get("intent") or {}).get("entities") or {}, state["query"])
        emit(ToolCallEvent("loan_calculator", params, task["id"]))
        result = calculate(LoanQuery(**params), ctx.loan_rules, ctx.loan_products)
        result["query"] = params
        emit(ToolResultEvent("loan_calculator", True,
                             f"최대 {result['max_loan_manwon']:,}만원" if result.get("max_loan_manwon")
                             else "한도 계산에 필요한 정보 부족", {"missing": result["missing"]}, task["id"]))
        return {"found": {"loans": result}}

    def finish(state: SearchState) -> dict[str, Any]:
        task, found = state["task"], dict(state.get("found") or {})
        info: list[str] = []
        parts: list[str] = []
        count = 0
        errors: list[str] = []
        if "laws" in found:
            hits = found["laws"]["hits"]
            info += [f"law:{h['id']}" for h in hits]
            count += int(found["laws"]["relevant"])
            parts.append(f"법령 {len(hits)}건(관련 {found['laws']['relevant']}건)")
        if "market" in found:
            m = found["market"]
            if m.get("status") == "error":
                errors.append(f"market: {m.get('error')}")
            rows = (m.get("table") or {}).get("rows") or []
            info += [f"market:{digest(r)}" for r in rows]
            count += len(rows)
            parts.append(f"시세 {len(rows)}건")
        if "loans" in found:
            lo = found["loans"]
            products = [p for p in lo.get("products", []) if p.get("amount_manwon") is not None]
            info += [f"loan:{p['id']}:{p['amount_manwon']}" for p in products]
            info += [f"loan:limit:{lim['kind']}:{lim['amount_manwon']}" for lim in lo.get("limits", [])]
            count += len(products)
            parts.append(f"대출 한도 {len(lo.get('limits', []))}건·상품 {len(products)}건")
        status = "error" if errors and count == 0 else "ok" if count else "empty"
        record = run_record(task, status=status, count=count, info=info, summary=", ".join(parts) or "결과 없음",
                            output=found, seconds=time.perf_counter() - state.get("started", time.perf_counter()),
                            error="; ".join(errors))
        laws_found = (found.get("laws") or {}).get("hits", [])
        live = [citation_artifact(h) for h in laws_found if h.get("relevant")] + market_artifacts(found.get("market"))
        live += loan_artifacts(found.get("loans"))
        return team_output(record, live)

    g = StateGraph(SearchState, input_schema=TeamInput, output_schema=TeamOutput)
    g.add_node("select_tools", select_tools)
    g.add_node("laws", laws)
    g.add_node("market", market)
    g.add_node("loans", loans)
    g.add_node("finish", finish)
    g.add_edge(START, "select_tools")
    g.add_conditional_edges("select_tools", fan_out, list(TOOLS))
    for tool in TOOLS:
        g.add_edge(tool, "finish")
    g.add_edge("finish", END)
    return g.compile()
