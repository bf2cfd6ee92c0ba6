"""Which computations a query needs, run over the inputs the analysis team was handed.

The choice reads the query's words and entities; every computation runs only on numbers that
were really given (by the user or by another team's output) and reports what it lacked.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping
from typing import Any

from graphagents.korean import format_krw

from .. import entities as ent
from ..offline.lexicon import normalise
from ..records import Transaction
from ..units import format_manwon
from . import fees, lease, market, risk

LoanCalculator = Callable[[dict[str, Any]], dict[str, Any]]
_INCREASE = re.compile(r"올리|올려|올릴|올린|인상|증액|올라")
_RENEWAL = re.compile(r"갱신|재계약|만료")
_TERMINATE = re.compile(r"해지")
_CONVERT = re.compile(r"월세로 ?(돌리|돌려|바꾸|바꿔|전환)|전환")
_DAMAGES = re.compile(r"손해 ?배상")
_RISK = re.compile(r"깡통|위험|안전|보증 ?보험|사기|근저당|선순위|채권 ?최고액")
_RATIO = re.compile(r"전세가율|전세 ?비율")
_TREND = re.compile(r"추이|오르|내리|상승|하락|흐름|변동")
_LISTING = re.compile(r"내역|목록|리스트")
_RECENT = re.compile(r"최근 ?(\d+) ?(개월|달)|최근 ?(1|한) ?년")


def _months(text: str, entities: Mapping[str, Any]) -> int | None:
    if entities.get("months"):
        return int(entities["months"])
    m = _RECENT.search(text)
    if not m:
        return None
    return int(m.group(1)) if m.group(1) else 12


def _market_rows(inputs: Mapping[str, Any]) -> tuple[list[Transaction], dict[str, Any]]:
    found = (inputs.get("search") or {}).get("market") or {}
    table = found.get("table") or {}
    txs = market.to_transactions(table.get("columns") or [], table.get("rows") or [])
    return txs, found


def run_analysis(query: str, entities: Mapping[str, Any], inputs: Mapping[str, Any], focus: str = "",
                 *, loan_calculator: LoanCalculator | None = None) -> dict[str, Any]:
    """Computations with their numbers, plain-language insights, and what was missing.

    ``loan_calculator`` recomputes the search team's loan figures at the market median price
    when the user gave no price (the loan rules live with the tool, not in state)."""
    text = normalise(f"{query} {focus}")
    computations: list[dict[str, Any]] = []
    missing: list[str] = []
    sources: list[dict[str, Any]] = []
    txs, market_found = _market_rows(inputs)
    median_sale: int | None = None
    basis = ""
    if txs:
        sources.append(market_found.get("source") or {})
        median_sale, basis = _market(text, entities, txs, computations, missing)
    elif market_found and not market_found.get("complex_missing"):
        missing.append("조건에 맞는 거래 데이터(시세 계산에 필요)")
    _lease(text, entities, computations, missing)
    median_label = ("시세 중앙값(합성 데이터" if (market_found.get("source") or {}).get("synthetic")
                    else "시세 중앙값(사용자 지정 거래 테이블") + (f": {basis})" if basis else ")")
    _jeonse_risk(text, entities, median_sale, computations, missing, median_label)
    loans = (inputs.get("search") or {}).get("loans")
    if loans:
        _loan(loans, median_sale, computations, loan_calculator, median_label)
    if fees.FEE.search(text):
        computations.append(fees.brokerage_fee(text, entities))
    for c in computations:
        missing.extend(m for m in c.get("missing", []) if m not in missing)
    return {"computations": computations, "missing": missing, "data_sources": sources,
            "insights": [line for c in computations if (line := _insight(c))]}


def _market(text: str, entities: Mapping[str, Any], txs: list[Transaction],
            out: list[dict[str, Any]], missing: list[str]) -> tuple[int | None, str]:
    """The statistics the question asks for; returns the sale median (the price other figures may
    use when the user gave none) and which rows it is the median of."""
    deal = entities.get("deal_type") if entities.get("deal_type") in ("매매", "전세") else None
    wants_ratio = bool(_RATIO.search(text))
    region = (entities.get("region") or {}).get("sigungu")
    area = ent.area_range(entities)
    months = _months(text, entities)
    chosen, applied = market.select(txs, deal_type=None if wants_ratio else deal, sigungu=region,
                                    area_range=area, months=months)
    relaxed: list[str] = []
    if entities.get("area"):
        relaxed.append(str(entities["area"].get("basis") or ""))
    if any(not t.deal_type for t in chosen):
        relaxed.append("거래 유형(매매/전세) 열이 없는 테이블이라 유형을 구분하지 않았습니다")
    if len(chosen) < 3 and months:
        chosen, applied = market.select(txs, deal_type=None if wants_ratio else deal, sigungu=region,
                                        area_range=area)
        relaxed.append(f"최근 {months}개월 거래가 3건 미만이라 기간 조건을 뺐습니다")
    if not chosen:
        if not _RISK.search(text):  # a risk check needs only the sale price, looked up below
            missing.append("조건(지역·면적·기간)에 맞는 거래")
        return _sale_price(txs, region, area, entities)
    by = "period" if _TREND.search(text) else "size"
    stats = market.price_stats(chosen, by=by)
    out.append({"kind": "price_stats", "title": "가격 통계", "result": {"groups": stats, "filters": applied,
                "relaxed": relaxed, "rows_used": len(chosen)},
                "numbers": f"거래 {len(chosen)}건 (조건: {applied})", "articles": [], "missing": []})
    if _TREND.search(text) or months:
        tr = market.trend(chosen)
        if tr is not None:
            out.append({"kind": "trend", "title": "가격 추이", "result": tr, "numbers": tr["numbers"],
                        "articles": [], "missing": []})
    if wants_ratio or _RISK.search(text):
        both, _ = market.select(txs, sigungu=region, area_range=area)
        jr = market.jeonse_ratio(both)
        if jr is not None:
            out.append({"kind": "jeonse_ratio", "title": "전세가율", "result": jr, "numbers": jr["numbers"],
                        "articles": [], "missing": []})
        elif wants_ratio:
            missing.append("같은 단지·면적의 매매와 전세 거래가 모두 있어야 전세가율을 계산할 수 있습니다")
    return _sale_price(txs, region, area, entities)


def _sale_price(txs: list[Transaction], region: str | None, area: tuple[float, float] | None,
                entities: Mapping[str, Any]) -> tuple[int | None, str]:
    """The price other figures may use: the median sale of the same place and size band, else of the
    place (said), with which rows it is the median of."""
    rows, _ = market.select(txs, deal_type="매매", sigungu=region, area_range=area)
    said = str((entities.get("area") or {}).get("text", "")).replace("m2", "㎡")
    size = f"{said} " if rows and area and said else ""
    if not rows:
        rows, _ = market.select(txs, deal_type="매매", sigungu=region)
        size = "면적 무관 " if area else ""
    rows = [t for t in rows if t.deal_type == "매매"]
    if not rows:
        return None, ""
    places = sorted({t.complex or t.sigungu for t in rows})
    where = places[0] if len(places) == 1 else (region or "조회된 지역")
    return round(statistics.median(t.amount_manwon for t in rows)), f"{where} {size}매매 {len(rows)}건"


def _lease(text: str, entities: Mapping[str, Any], out: list[dict[str, Any]], missing: list[str]) -> None:
    deposit = ent.amount(entities, "deposit")
    rent = ent.amount(entities, "monthly_rent")
    percents = entities.get("percents") or []
    if _DAMAGES.search(text):
        old, new = ent.old_and_new(entities, "monthly_rent")
        result = lease.renewal_refusal_damages(old, new, ent.old_and_new(entities, "deposit")[0])
        out.append({"kind": "damages", "title": "갱신거절 손해배상액(제6조의3⑥)", "result": result,
                    "numbers": "; ".join(p["numbers"] for p in result["parts"]), "articles": result["articles"],
                    "missing": result["missing"]})
    elif _CONVERT.search(text):
        converted = ent.amount(entities, "converted") or ent.amount(entities, "other")
        if converted is None and len(ent.amounts(entities, "deposit")) > 1:
            converted = ent.amounts(entities, "deposit")[1]
        if converted is None:
            missing.append("월세로 전환하는 보증금 액수")
        else:
            base = float(percents[0]) if percents else None
            result = lease.conversion_rent(converted, base)
            out.append({"kind": "conversion", "title": "월차임 전환 상한(제7조의2)", "result": result,
                        "numbers": result.get("numbers", result["formula"]), "articles": result["articles"],
                        "missing": result["missing"]})
    elif _INCREASE.search(text) and (deposit or rent or percents):
        base_amount, kind = (deposit, "보증금") if deposit or not rent else (rent, "월차임")
        if "월세" in text and not deposit:
            kind = "월차임"
        result = lease.increase_cap(base_amount, float(percents[0]) if percents else None, kind=kind)
        out.append({"kind": "increase_cap", "title": "증액 상한(제7조②)", "result": result,
                    "numbers": result["numbers"], "articles": result["articles"], "missing": result["missing"]})
    if entities.get("months_left") is not None and _RENEWAL.search(text):
        result = lease.renewal_status(int(entities["months_left"]))
        out.append({"kind": "renewal_status", "title": "갱신요구 가능 시기", "result": result,
                    "numbers": result["numbers"], "articles": result["articles"], "missing": []})
    day = ent.first_date(entities)
    if day is not None and _RENEWAL.search(text) and not _TERMINATE.search(text):
        result = lease.renewal_window(day)
        out.append({"kind": "renewal_window", "title": "갱신요구 기간", "result": result,
                    "numbers": result["numbers"], "articles": result["articles"], "missing": []})
    elif day is not None and _TERMINATE.search(text):
        result = lease.termination_effective(day)
        out.append({"kind": "termination", "title": "해지 효력 발생일(제6조의2②)", "result": result,
                    "numbers": result["numbers"], "articles": result["articles"], "missing": []})


def _jeonse_risk(text: str, entities: Mapping[str, Any], median_sale: int | None,
                 out: list[dict[str, Any]], missing: list[str], median_label: str = "시세 중앙값") -> None:
    given = bool(ent.amount(entities, "deposit") and ent.amount(entities, "price") and entities.get("senior_debt"))
    if not (_RISK.search(text) or given):  # deposit, debt and price given: the ratio is what they compute
        return
    deposit = ent.amount(entities, "deposit")
    price = ent.amount(entities, "price")
    source = "사용자 제시" if price else median_label if median_sale else ""
    price = price or median_sale
    checklist = risk.registry_checklist()
    if deposit is None or price is None:
        if deposit is None:
            missing.append("전세 보증금(깡통전세 위험 계산에 필요)")
        if price is None:
            missing.append("매매가 또는 시세(깡통전세 위험 계산에 필요) — 매매가를 함께 알려 주시면 계산합니다")
        out.append({"kind": "registry_checks", "title": "등기부·계약 전 확인 사항",
                    "result": {"checks": checklist, "method": risk.method_lines()},
                    "numbers": "", "articles": sorted({a for c in checklist for a in c["articles"]}), "missing": []})
        return
    result = risk.jeonse_risk(deposit, price, entities.get("senior_debt"), price_source=source)
    result["checks"] = checklist
    out.append({"kind": "jeonse_risk", "title": "깡통전세 위험", "result": result, "numbers": result["numbers"],
                "articles": result["articles"] + sorted({a for c in checklist for a in c["articles"]}),
                "missing": result["missing"]})


def _loan(loans: Mapping[str, Any], median_sale: int | None, out: list[dict[str, Any]],
          calculator: LoanCalculator | None, median_label: str = "시세 중앙값") -> None:
    """The search team's loan figures; when it lacked a price, redo them at the market median."""
    result = dict(loans)
    note = ""
    if (calculator is not None and loans.get("purpose") == "매매" and loans.get("price_manwon") is None
            and median_sale is not None):
        params = {**(loans.get("query") or {}), "price_manwon": median_sale,
                  "price_source": median_label}
        result = calculator(params)
        note = f"매매가를 몰라 {median_label} {format_manwon(median_sale)}으로 계산했습니다"
    out.append({"kind": "loan", "title": "대출 가능 금액", "result": result, "numbers": _loan_numbers(result),
                "articles": [], "missing": list(result.get("missing", [])), **({"note": note} if note else {})})


def _loan_numbers(result: Mapping[str, Any]) -> str:
    limits = result.get("limits", [])
    return "; ".join(f"{lim['kind']} {format_manwon(lim['amount_manwon'])} ({lim['numbers']})" for lim in limits)


def _insight(c: Mapping[str, Any]) -> str:
    r = c["result"]
    kind = c["kind"]
    if kind == "price_stats" and r["groups"]:
        g = max(r["groups"], key=lambda x: x["count"])
        return (f"{g['deal_type']} {g['group']}: {g['count']}건, 중앙값 {format_manwon(g['median'])} "
                f"(평균 {format_manwon(g['mean'])})")
    if kind == "trend":
        return f"㎡당 가격 {r['direction']} ({r['change_pct']:+.1f}%)"
    if kind == "jeonse_ratio":
        return f"전세가율 중앙값 {r['median_ratio_pct']}%"
    if kind == "increase_cap":
        if "max_after_manwon" in r:
            return (f"{r['kind']} 증액 상한 {format_manwon(r['max_increase_manwon'])} → "
                    f"최대 {format_manwon(r['max_after_manwon'])}")
        return f"{r['kind']} 증액 상한 5%" + (" — 요구받은 인상률은 상한 초과" if r.get("exceeds_cap") else "")
    if kind == "renewal_status":
        return r["verdict"]
    if kind == "renewal_window":
        return f"갱신요구 기간 {r['from']} ~ {r['to']}"
    if kind == "termination":
        return f"해지 효력 발생일 {r['effective']}"
    if kind == "jeonse_risk":
        head = f"(보증금+선순위채권)/주택가격 {'최소 ' if r.get('lower_bound') else ''}{r['ratio_pct']}%"
        return head + (f" — {r['flags'][0]['label']}" if r["flags"] else " — 기준선(70%) 아래")
    if kind == "loan" and r.get("max_loan_manwon"):
        return (f"대출 가능 금액(규칙 파일 기준{' 추정, 미검증 규칙 포함' if r.get('unverified') else ''}) "
                f"최대 {format_manwon(r['max_loan_manwon'])}")
    if kind == "brokerage_fee" and r.get("fee_won"):
        return f"중개보수 상한 {format_krw(r['fee_won'])} ({r['rate']})"
    if kind == "damages" and r.get("lower_bound_manwon"):
        return f"손해배상액 하한(보증금 환산분 제외) {format_manwon(r['lower_bound_manwon'])}"
    return ""
