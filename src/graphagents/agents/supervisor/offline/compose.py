"""The template composer: the Korean answer without a model, built only from the team outputs.

It quotes the statute paragraph that best matches the question (never paraphrases the law into
something it does not say), shows each computation with its numbers, says plainly when the
market or loan data is synthetic, and lists what is missing instead of filling it in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graphagents.korean import format_krw

from ..aggregate import SELF_CITING
from ..tools.laws import expand
from ..units import format_manwon
from .lexicon import normalise
from .scope import not_covered_text

QUOTED_ARTICLES = 3
_DELEGATED_AMOUNT = re.compile(r"대통령령으로 정하는 (금액|비율|이율)")
_DELEGATED = re.compile(r"대통령령으로 정하는 (금액|비율|이율)|대통령령으로 정한다|국토교통부령으로 정하는 범위|조례")
_ASKS_AMOUNT = re.compile(r"얼마|금액|기준|최우선|소액|요율|비율|상한|몇")

GREETING = ("안녕하세요! 부동산 상담 도우미입니다. 임대차·매매 관련 법 조문 검색, 아파트 시세(합성 데이터) 분석, "
            "대출 한도 계산, 계약 체크리스트나 내용증명 같은 문서 초안을 도와드려요. 무엇이 궁금하신가요?")
OUT_OF_SCOPE = ("죄송해요, 저는 부동산 임대차·매매, 시세, 대출, 계약 문서에 관한 질문만 도와드릴 수 있어요. "
                "예: \"전세 계약 갱신청구권이 뭐야?\", \"강남구 30평대 아파트 매매 시세 알려줘\"")


def _bigrams(text: str) -> set[str]:
    t = re.sub(r"\s+", "", text)
    return {t[i:i + 2] for i in range(len(t) - 1)}


def best_paragraph(text: str, query: str) -> str:
    """The paragraph (①, ②, ...) of an article that shares the most with the question."""
    paragraphs = [p.strip() for p in re.split(r"\n(?=[①-⑳])", text) if p.strip()]
    if len(paragraphs) <= 1:
        return text.strip()
    wanted = _bigrams(" ".join([query, *expand(normalise(query), broaden=True)]))
    return max(paragraphs, key=lambda p: (len(_bigrams(p) & wanted) / (len(_bigrams(p)) ** 0.5 or 1.0)))


def quoted_citations(citations: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The articles an answer quotes: found by the search (not only used by a draft), at most three."""
    return [c for c in citations if c.get("match") != "used"][:QUOTED_ARTICLES] or list(citations[:1])


def delegated_notes(query: str, citations: Sequence[Mapping[str, Any]]) -> list[str]:
    """Missing facts for quoted articles whose amount or condition lives in a decree we do not hold."""
    notes = []
    for c in quoted_citations(citations):
        para = best_paragraph(c["text"], query)
        if _DELEGATED_AMOUNT.search(para) or (_DELEGATED.search(c["text"]) and _ASKS_AMOUNT.search(normalise(query))):
            notes.append(f"{c['citation']}이 위임한 시행령·시행규칙의 구체적 금액·비율(데이터에 없음)")
    return notes


def _clip(text: str, limit: int = 220) -> str:
    text = re.sub(r"\s*<(개정|신설)[^>]*>", "", " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def direct_reply(intent: Mapping[str, Any]) -> str:
    """The answer when no team ran: a greeting, a topic our data does not cover (named, with where to
    ask), or a question outside real estate."""
    if intent.get("intent_type") == "greeting":
        return GREETING
    if intent.get("uncovered"):
        return not_covered_text(list(intent["uncovered"]), partial=False)
    return OUT_OF_SCOPE


def scope_note(agg: Mapping[str, Any]) -> str:
    """The first line of an answer to a question that also asks about something we do not cover."""
    topics = (agg.get("intent") or {}).get("uncovered")
    return not_covered_text(list(topics), partial=True) + "\n\n" if topics else ""


def compose(query: str, agg: Mapping[str, Any]) -> str:
    intent = agg.get("intent") or {}
    kind = intent.get("intent_type", "")
    if kind in ("greeting", "out_of_scope"):
        return direct_reply(intent)
    lines: list[str] = []
    missing = list(agg.get("missing") or [])
    citations = list(agg.get("citations") or [])
    quoted = quoted_citations(citations)
    comps_kinds = {c["kind"] for c in ((agg.get("analysis") or {}).get("computations") or [])}
    if comps_kinds & SELF_CITING:  # the computation is the answer; its articles are listed below it
        quoted = [c for c in quoted if c.get("match") == "named"]
    for c in quoted:
        lines.append(f"- {c['citation']}({c['title']}): 「{_clip(best_paragraph(c['text'], query))}」")
    if lines:
        lines.insert(0, "관련 법 조문:")
    analysis = agg.get("analysis") or {}
    comps = analysis.get("computations") or []
    if comps:
        lines.append("")
        lines.append("계산 결과:")
        for comp in comps:
            lines += _computation(comp)
    market = agg.get("market")
    absent = (market or {}).get("complex_missing")
    if market and not comps and market.get("rows"):
        lines += ["", f"조회된 거래 {market['rows']}건 (SQL은 아래에 표시)."]
    elif market and not market.get("rows") and not absent:
        lines += ["", "조건에 맞는 거래 데이터를 찾지 못했습니다."]
    loans = agg.get("loans")
    if loans and not any(c["kind"] == "loan" for c in comps):
        lines += ["", "대출:"] + _loan_lines(loans)
    doc = agg.get("document")
    if doc and doc.get("markdown"):
        lines += ["", f"문서: 「{doc['title']}」 초안을 아래에 붙였습니다"
                  + (f" (채워야 할 항목 {len(doc['missing_items'])}개)." if doc.get("missing_items") else ".")]
    if missing:
        lines += ["", "확인이 필요한 정보(데이터에 없거나 질문에 없어 계산·기재하지 않았습니다):"]
        lines += [f"- {m}" for m in missing]
    notes = _source_notes(agg.get("sources") or [])
    if notes:
        lines += [""] + notes
    finish = agg.get("finish_reason")
    if finish == "stall":
        lines += ["", "(다시 찾아도 새로운 정보가 나오지 않아 남은 단계를 생략하고 지금까지의 결과로 답했습니다.)"]
    elif finish in ("round_cap", "step_cap"):
        lines += ["", "(처리 한도에 도달해 일부 단계를 생략하고 지금까지의 결과로 답했습니다.)"]
    if citations:
        lines += ["", "근거 조문: " + ", ".join(c["citation"] for c in citations)]
    if not lines:
        return "관련 자료를 찾지 못했어요. 질문을 조금 더 구체적으로(지역, 금액, 계약 상황) 알려 주시겠어요?"
    head = _headline(kind)
    if absent:
        head = complex_absent(absent, (market or {}).get("source") or {})
    elif kind.startswith("market") and not any(c["kind"] == "price_stats" for c in comps) and not (
            market and market.get("rows")):
        head = "요청하신 시세를 조회하지 못했습니다."
    return followup_note(agg) + scope_note(agg) + (head + "\n\n" if head else "") + "\n".join(lines).strip()


def complex_absent(absent: Mapping[str, Any], source: Mapping[str, Any]) -> str:
    """The answer's first line when the named complex has no row: said, not replaced by its district."""
    where = ("이 시세 데이터는 테스트용 합성 데이터라 가상 단지(가상단지A~D)의 거래만 있습니다"
             if source.get("synthetic") else "사용자 지정 거래 테이블에 이 단지의 거래가 없습니다")
    if absent.get("why", "").startswith("같은 이름의 단지가"):
        return (f"{absent['name']}(이)라는 단지는 시세 데이터의 여러 구에 있어 어느 단지의 시세인지 알 수 없습니다 "
                f"({absent['why']}). 여러 단지를 섞은 값으로 계산하지 않았습니다.")
    if absent.get("why", "").startswith("거래 테이블에 단지명 열이 없어"):
        where = absent["why"]
    return (f"{absent['name']}의 거래는 시세 데이터에 없어 이 단지의 시세는 답할 수 없습니다 ({where}). "
            "같은 구의 다른 단지 거래로 대신 계산하지 않았습니다.")


def followup_note(agg: Mapping[str, Any]) -> str:
    """A follow-up says which earlier conditions it carried over (never silently)."""
    out = ""
    if agg.get("english_gloss"):
        out += (f"(The statutes and data are Korean, so this answer is in Korean. 영어 질문의 핵심어를 "
                f"「{agg['english_gloss']}」(으)로 읽었습니다.)\n\n")
    fu = agg.get("followup")
    if fu:
        out += f"(앞 질문의 조건({', '.join(fu['said'])})을 이어받아 「{fu['query']}」(으)로 이해했습니다.)\n\n"
    return out


def _headline(kind: str) -> str:
    return {"legal": "질문하신 내용과 관련된 법 조문을 찾았습니다.",
            "legal_calc": "법 조문과 계산 결과를 정리했습니다.",
            "market_analysis": "거래 데이터로 시세를 계산했습니다.",
            "market_lookup": "거래 내역을 조회했습니다.",
            "loan_info": "대출 규칙과 상품을 정리했습니다.",
            "loan_calc": "대출 한도를 계산했습니다.",
            "market_loan": "시세와 대출 한도를 함께 계산했습니다.",
            "risk_check": "전세 위험을 점검했습니다.",
            "document": "요청하신 문서 초안과 근거 조문입니다.",
            "comprehensive": "검색·분석·문서 결과를 종합했습니다."}.get(kind, "")


def _computation(comp: Mapping[str, Any]) -> list[str]:
    r = comp["result"]
    kind = comp["kind"]
    if kind == "price_stats":
        out = [f"- {g['deal_type']} {g['group']}: {g['count']}건, 중앙값 {format_manwon(g['median'])}, "
               f"평균 {format_manwon(g['mean'])} (최저 {format_manwon(g['min'])} ~ 최고 {format_manwon(g['max'])}), "
               f"3.3㎡당 {format_manwon(g['per_3_3m2_median'])}" for g in r["groups"][:6]]
        out += [f"  ({note})" for note in r.get("relaxed", [])]
        return out
    if kind == "trend":
        return [f"- 추이: ㎡당 가격 {r['direction']} ({r['change_pct']:+.1f}%, {r['numbers']})"]
    if kind == "jeonse_ratio":
        return [f"- 전세가율 중앙값 {r['median_ratio_pct']}% ({r['numbers']})"]
    if kind == "increase_cap":
        if "max_after_manwon" in r:
            line = (f"- {r['kind']} 증액 상한: {r['numbers']} → 최대 {format_manwon(r['max_after_manwon'])}")
        else:
            line = f"- {r['kind']} 증액 상한: 약정 금액의 1/20(5%)"
        if "requested_pct" in r:
            verdict = "상한(5%)을 넘습니다" if r["exceeds_cap"] else "상한(5%) 이내입니다"
            line += f"; 요구받은 {r['requested_pct']:g}% 인상은 {verdict}"
        return [line] + [f"  ({n})" for n in r["notes"]]
    if kind == "renewal_status":
        return [f"- {comp['title']}: {r['verdict']} ({r['numbers']})"]
    if kind in ("renewal_window", "termination"):
        return [f"- {comp['title']}: {r['numbers']}"] + [f"  ({n})" for n in r.get("notes", [])]
    if kind == "conversion":
        line = f"- {comp['title']}: {r['formula']}"
        if "partial_note" in r:
            line += f" — {r['numbers']}"
        return [line]
    if kind == "damages":
        out = [f"- {p['item']}: {format_manwon(p['amount_manwon'])} ({p['numbers']})" for p in r["parts"]]
        return out + [f"  ({n})" for n in r.get("notes", [])]
    if kind == "jeonse_risk":
        return _risk_lines(r)
    if kind == "registry_checks":
        return [f"- {line}" for line in r.get("method", [])] + [f"- 확인: {c['item']}" for c in r["checks"][:5]]
    if kind == "loan":
        return _loan_lines(r) + ([f"  ({comp['note']})"] if comp.get("note") else [])
    if kind == "brokerage_fee":
        if not r.get("fee_won"):
            return ["- 중개보수 상한: " + "; ".join(comp.get("missing") or ["계산에 필요한 정보가 없습니다"])]
        checked = "" if r["verification"] == "official_text" else ", 법령 원문 대조 전·2차 출처로 확인한 요율"
        out = [f"- 중개보수 상한: {format_krw(r['fee_won'])} ({comp['numbers']})",
                f"  (요율: {'매매' if r['kind'] == 'sale' else '임대차'} {r['band']} 구간 {r['rate']} — "
                f"{r['source']}, {r['effective']} 시행{checked})",
                "  (실제 중개보수는 이 상한 안에서 시·도 조례와 중개사와의 협의로 정해집니다)"]
        return out + ([f"  ({r['note']})"] if r.get("note") else [])
    return []


_VERIFIED = {"official_text": "", "secondary_source": ", 2차 출처로만 확인", "unverified": ", 미검증",
             "arithmetic": "", "convention": ""}


def _risk_lines(r: Mapping[str, Any]) -> list[str]:
    """The ratio with its inputs, the highest band it reaches (with its basis), the notes on the debt
    and the registry items to check."""
    bound = "최소 " if r.get("lower_bound") else ""
    out = [f"- 깡통전세 점검(전세보증금 반환보증 방식, (보증금 + 선순위 채권) ÷ 주택가격): {r['numbers']}"
           + (" — 비율은 이보다 높을 수 있음(하한)" if bound else "")]
    if r["flags"]:
        top = r["flags"][0]
        shown = "(하한 기준) " if bound else ""
        out.append(f"  → {shown}{top['label']} [근거: {top['source']}{_VERIFIED.get(top.get('verification', ''), '')}]")
        out += [f"  (함께 넘은 기준: {f['label']})" for f in r["flags"][1:2]]
    else:
        out.append("  → 아래 기준선(70%, graphagents 기본값) 아래입니다")
    out += [f"  ※ {n}" for n in r.get("notes", [])]
    return out + [f"  확인: {c['item']}" for c in r.get("checks", [])[:4]]


def _loan_lines(loans: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    if loans.get("purpose") == "전세":
        for p in loans.get("products", []):
            if p.get("amount_manwon") is not None:
                out.append(f"- {p['name']}: 최대 {format_manwon(p['amount_manwon'])} ({p['numbers']}), "
                           f"연 {p['rate_annual']:.1%}")
            else:
                out.append(f"- {p['name']}: 조건 {p['eligibility']}, 연 {p['rate_annual']:.1%}")
    else:
        area = loans.get("area") or {}
        for lim in loans.get("limits", []):
            flag = "" if lim.get("verification") == "official_text" else f", {lim.get('verification_label', '미검증')}"
            out.append(f"- {lim['kind']} 기준 {format_manwon(lim['amount_manwon'])} "
                       f"({lim['numbers']}; {lim['source']}, {lim['date']}{flag})")
        if loans.get("max_loan_manwon"):
            binding: Mapping[str, Any] = next(
                (lim for lim in loans.get("limits", []) if lim["kind"] == loans.get("binding")), {})
            if binding.get("verification") == "official_text" and not loans.get("unverified"):
                out.append(f"- 규칙상 최대 대출 가능 금액: {format_manwon(loans['max_loan_manwon'])} "
                           f"({loans['binding']} 기준, {area.get('label', '')}, {loans.get('buyer_label', '')})")
            else:  # never stated as fact: the rule behind it was not checked against the official text
                out.append(f"- 규칙 파일 기준 추정 최대 대출 가능 금액: {format_manwon(loans['max_loan_manwon'])} "
                           f"({loans['binding']} 기준, {area.get('label', '')}, {loans.get('buyer_label', '')}) — "
                           "공식 발표 원문과 대조하지 못한 규칙에 따른 추정치로, 확정된 한도가 아닙니다")
        for p in loans.get("products", [])[:3]:
            if loans.get("max_loan_manwon"):
                out.append(f"- {p['name']}: {format_manwon(p['amount_manwon'])}, 연 {p['rate_annual']:.1%}, "
                           f"{p['term_years']}년 월 상환 약 {format_manwon(int(p['monthly_payment_manwon']))}")
            else:  # no regulatory limit could be computed: the product's own ceiling is not what one can borrow
                out.append(f"- {p['name']}: 상품 자체 상한 {format_manwon(p['amount_manwon'])}, "
                           f"연 {p['rate_annual']:.1%} "
                           "(가격·소득을 몰라 규제 한도를 계산하지 못했으므로 대출 가능 금액이 아닙니다)")
    out += [f"  (가정: {a})" for a in loans.get("assumptions", [])]
    return out


def _source_notes(sources: Sequence[Mapping[str, Any]]) -> list[str]:
    notes = []
    for s in sources:
        if s.get("kind") == "market":
            if s.get("fallback"):
                notes.append(f"※ {s['fallback']}.")
            if s.get("synthetic"):
                notes.append("※ 시세 데이터는 테스트용 합성(가상) 거래 데이터입니다. 실제 시세가 아닙니다.")
            else:
                notes.append(f"※ 시세 출처: {s.get('label')} ({s.get('url')})")
        elif s.get("kind") == "loans":
            if s.get("synthetic"):
                notes.append("※ 대출 상품은 합성(가상) 상품입니다. 실제 상품이 아닙니다.")
            unverified = s.get("unverified") or []
            if unverified:
                notes.append(f"※ 대출 규제 수치는 {s.get('as_of')} 기준 규칙 파일에서 가져왔으며, 이 계산에 쓰인 규칙 "
                             f"{len(unverified)}개({', '.join(unverified)})는 공식 발표 원문과 대조하지 못한 미검증 "
                             f"수치입니다. {s.get('caveat') or ''}".strip())
            else:
                notes.append(f"※ 대출 규제는 {s.get('as_of')} 기준 규칙 파일입니다. {s.get('caveat') or ''}".strip())
    return notes
