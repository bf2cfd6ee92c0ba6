"""Collecting the team outputs into one picture: what to cite, the numbers, the draft, what is
missing and where the data came from; and the typed artifacts the CLI and the page render."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphagents.artifacts import (
    Artifact,
    ChartArtifact,
    CitationArtifact,
    DocumentArtifact,
    IntermediateTableArtifact,
    SqlArtifact,
    TableArtifact,
)

MAX_LAW_CITATIONS = 3
SELF_CITING = frozenset({"jeonse_risk", "registry_checks", "brokerage_fee"})
_PERMIT_AREA = re.compile(r"토지거래 ?허가|허가 ?구역")
PERMIT_AREA_MISSING = ("토지거래허가구역 지정 현황(국토교통부·시도지사 지정 공고) — 데이터에 없어 "
                       "해당 여부를 확인하지 않았습니다; 지정 공고로 확인하세요")
EXTERNAL_HINTS = ("시행령", "시행규칙", "조례", "대통령령")


def latest(runs: list[dict[str, Any]], team: str) -> dict[str, Any] | None:
    ok = [r for r in runs if r["team"] == team and r["status"] != "error"]
    return ok[-1]["output"] if ok else None


def _search_parts(runs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any] | None,
                                                       dict[str, Any] | None]:
    """Law hits over every search run (a broadened re-run adds to the first), latest market and loans."""
    laws: dict[str, dict[str, Any]] = {}
    market = loans = None
    for r in runs:
        if r["team"] != "search":
            continue
        out = r["output"]
        for hit in (out.get("laws") or {}).get("hits", []):
            laws.setdefault(hit["id"], hit)
        market = out.get("market") or market
        loans = out.get("loans") or loans
    return list(laws.values()), market, loans


def collect(state: Mapping[str, Any], articles: Mapping[str, Any]) -> dict[str, Any]:
    runs = list(state.get("team_runs") or [])
    hits, market, loans = _search_parts(runs)
    analysis = latest(runs, "analysis")
    document = latest(runs, "document")
    redone = next((c["result"] for c in (analysis or {}).get("computations") or [] if c["kind"] == "loan"), None)
    if redone is not None:  # analysis recomputed the loan at the market price: that one is the answer
        loans = redone
    # Every article the question or the plan names is cited (a gold plan naming five loses none); found
    # articles fill the rest up to the cap.
    named = [h["id"] for h in hits if h.get("match") == "named"]
    found = [h["id"] for h in hits if h.get("relevant") and h.get("match") != "named"]
    comps = (analysis or {}).get("computations") or []
    if any(c["kind"] in SELF_CITING for c in comps):
        # the computation is the answer and names its own articles: a lease article that merely shares
        # the words 전세 or 보증금 with the question is not quoted beside it
        own = {a for c in comps for a in c.get("articles", [])}
        found = [a for a in found if a in own]
    cited: list[str] = named + found[:max(0, MAX_LAW_CITATIONS - len(named))]
    for source in ((analysis or {}).get("computations") or []):
        cited += [a for a in dict.fromkeys(source.get("articles", [])) if a not in cited]
    cited += [a for a in dict.fromkeys((document or {}).get("articles", [])) if a not in cited]
    by_id = {h["id"]: h for h in hits}
    citations = []
    for aid in cited:
        hit = by_id.get(aid)
        art = articles.get(aid)
        if hit is not None:
            citations.append(hit)
        elif art is not None:
            citations.append({"id": aid, "citation": art.citation, "law": art.law, "article_no": art.article_no,
                              "title": art.title, "text": art.text, "match": "used", "effective": art.effective,
                              "url": art.url})
    missing: list[str] = []
    groups = ((analysis or {}).get("missing"), (loans or {}).get("missing"), (document or {}).get("missing_items"),
              (market or {}).get("missing"))
    for group in groups:
        missing += [m for m in group or [] if m not in missing]
    from .offline.compose import delegated_notes

    # the fee table ships with the package: 제32조's delegated rates are not missing when it was used
    fee = any(c["kind"] == "brokerage_fee" for c in (analysis or {}).get("computations") or [])
    missing += [n for n in delegated_notes(str(state.get("query", "")), citations)
                if n not in missing and not (fee and "공인중개사법 제32조" in n)]
    if _PERMIT_AREA.search(str(state.get("query", ""))):  # a designation lives in public notices, not in our data
        missing.append(PERMIT_AREA_MISSING)
    sources = []
    if market:
        sources.append(market.get("source") or {})
    if loans:
        synthetic = any(p.get("synthetic") for p in loans.get("products", []))
        sources.append({"kind": "loans", "synthetic": synthetic, "as_of": loans.get("as_of"),
                        "label": "대출 규제 규칙 파일(" + str(loans.get("as_of")) + " 기준)"
                                 + (" + 합성(가상) 대출 상품" if synthetic else ""), "caveat": loans.get("caveat"),
                        "unverified": loans.get("unverified") or []})
    return {"intent": (state.get("planning_state") or {}).get("analyzed_intent") or {}, "laws": hits,
            "citations": citations, "market": market, "loans": loans, "analysis": analysis, "document": document,
            "missing": missing, "sources": sources, "teams_run": [r["id"] for r in runs],
            "followup": (state.get("planning_state") or {}).get("followup"),
            "english_gloss": (state.get("planning_state") or {}).get("english_gloss"),
            "finish_reason": state.get("finish_reason") or "plan_complete"}


def artifacts(agg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Typed artifacts (as dicts, which every checkpointer stores): citations, the sub-agent's SQL
    and rows, statistics, a trend chart, the loan limits and the draft."""
    out: list[Artifact] = [citation_artifact(c) for c in agg["citations"]]
    out += market_artifacts(agg.get("market"))
    out += analysis_artifacts(agg.get("analysis"))
    out += loan_artifacts(agg.get("loans"))
    if agg.get("document"):
        out += document_artifacts(agg["document"])
    return [a.to_dict() for a in out]


def citation_artifact(c: Mapping[str, Any]) -> Artifact:
    return CitationArtifact(title=f"{c['citation']}({c['title']})", source=c["citation"], text=c["text"],
                            url=c.get("url") or None, ref=c["id"])


def market_artifacts(market: Mapping[str, Any] | None) -> list[Artifact]:
    if not market:
        return []
    out: list[Artifact] = []
    if market.get("sql") and market.get("method") == "fallback":
        fb = market.get("fallback") or {}
        params = ", ".join(repr(p) for p in fb.get("params") or [])
        out.append(SqlArtifact(title=f"시세 조회 (보조 SQL — text2sql이 답하지 못해 직접 조회, 매개변수 {params})",
                               sql=market["sql"]))
    elif market.get("sql"):
        out.append(SqlArtifact(title=f"시세 조회 (text2sql): {market['question']}", sql=market["sql"]))
    table = market.get("table")
    if table:
        synthetic = (market.get("source") or {}).get("synthetic")
        out.append(IntermediateTableArtifact(title="조회된 거래" + (" (합성 데이터)" if synthetic else ""),
                                             columns=table["columns"], rows=table["rows"][:50],
                                             total_rows=len(table["rows"]), step="search: market"))
    return out


def analysis_artifacts(analysis: Mapping[str, Any] | None) -> list[Artifact]:
    out: list[Artifact] = []
    for comp in (analysis or {}).get("computations") or []:
        result = comp["result"]
        if comp["kind"] == "price_stats" and result.get("groups"):
            cols = ["deal_type", "group", "count", "median", "mean", "min", "max", "per_3_3m2_median"]
            out.append(TableArtifact(title="가격 통계 (만원)", columns=cols,
                                     rows=[[g[c] for c in cols] for g in result["groups"]]))
        elif comp["kind"] == "trend":
            values = [{"month": str(m), "median_per_m2": v}
                      for m, v in zip(result["months"], result["median_per_m2"], strict=True)]
            out.append(ChartArtifact(title="㎡당 가격 중앙값 추이 (만원)", spec={
                "mark": "line", "data": {"values": values},
                "encoding": {"x": {"field": "month", "type": "ordinal", "title": "계약년월"},
                             "y": {"field": "median_per_m2", "type": "quantitative", "title": "만원/㎡"}}}))
        elif comp["kind"] == "jeonse_ratio":
            cols = ["complex", "size", "sale_median", "jeonse_median", "ratio_pct"]
            rows = [[p[c] for c in cols] for p in result["pairs"]]
            out.append(TableArtifact(title="전세가율", columns=cols, rows=rows))
    return out


def loan_artifacts(loans: Mapping[str, Any] | None) -> list[Artifact]:
    if not loans or not loans.get("limits"):
        return []
    cols = ["kind", "amount_manwon", "numbers", "source", "date", "verification"]
    return [TableArtifact(title="대출 한도 계산 (만원, 규칙 파일 기준 — 미검증 규칙 포함 시 추정치)", columns=cols,
                          rows=[[lim.get(c, "unverified") for c in cols] for lim in loans["limits"]])]


def document_artifacts(doc: Mapping[str, Any]) -> list[Artifact]:
    if not doc.get("markdown"):
        return []
    return [DocumentArtifact(title=doc["title"], id=doc["template"], text=doc["markdown"],
                             metadata={"format": "markdown", "missing_items": doc.get("missing_items", []),
                                       "articles": doc.get("articles", [])})]
