"""The offline entity extractor: region, complex, property and deal type, size, amounts with
their roles, percentages, dates, periods and the buyer's situation.

Numbers come from the core Korean parsers (amounts, areas); this module only decides what
each number *is* in a real-estate question ("보증금 3억" is a deposit, "연봉 6천" an income) and
how a spoken size maps onto the 전용면적 the data holds.
"""

from __future__ import annotations

import re
from typing import Any

from graphagents.korean import PYEONG_M2, find_amounts, find_dates, parse_area

from ..tools.loan_rules import SEOUL_GU
from .complexes import named_complex
from .debt import read_senior_debt
from .lexicon import normalise
from .parties import extract_parties

# Neighbourhoods people name instead of the 구 (the data and the loan rules are per 구).
_AREA_NAMES: dict[str, str] = {
    "강남": "강남구", "대치": "강남구", "압구정": "강남구", "개포": "강남구", "도곡": "강남구", "청담": "강남구",
    "삼성동": "강남구", "역삼": "강남구", "서초": "서초구", "반포": "서초구", "방배": "서초구", "잠원": "서초구",
    "송파": "송파구", "잠실": "송파구", "문정": "송파구", "가락": "송파구", "마포": "마포구", "공덕": "마포구",
    "상암": "마포구", "노원": "노원구", "상계": "노원구", "중계": "노원구", "성동": "성동구", "성수": "성동구",
    "옥수": "성동구", "금호": "성동구", "용산": "용산구", "이촌": "용산구", "목동": "양천구", "여의도": "영등포구",
}
_COMPLEX = re.compile(r"가상단지\s*([a-d])\s*(?:\((\w+구)\))?", re.I)
_PROPERTY = {"아파트": "아파트", "오피스텔": "오피스텔", "빌라": "빌라", "다세대": "빌라", "연립": "빌라",
             "단독": "단독주택", "원룸": "원룸"}
_DEAL = (("월세", re.compile(r"월세|월차임|반전세")), ("전세", re.compile(r"전세|보증금")),
         ("매매", re.compile(r"매매|매수|매도|사려|살 ?때|구입|사서|산다|분양|집값|아파트값")))
_ROLE_BEFORE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("income", re.compile(r"(연봉|연소득|소득|월급|수입)\s*(은|이|이|는)?\s*$")),
    ("senior_debt", re.compile(r"(근저당|선순위|채권최고액|융자|빚|담보)\s*(이|가|은|는)?\s*(잡힌|설정된|있는)?\s*$")),
    ("monthly_rent", re.compile(r"(월세|월차임|차임)\s*(은|는|이|가|를|도)?\s*$")),
    ("deposit", re.compile(r"(보증금|전세금|전세 ?보증금|전세)\s*(은|는|이|가|을|를|도)?\s*$")),
    ("price", re.compile(r"(매매가|매매 ?가격|가격|집값|시세|매매대금|매매)\s*(은|는|이|가|을|를|도)?\s*$")),
    ("loan", re.compile(r"(대출|주담대|대출금)\s*(은|는|이|가|을|를|도)?\s*$")),
)
_ROLE_AFTER = (("price", re.compile(r"^\s*(짜리|아파트|집(?!값|주인)|주택)")),
               ("income", re.compile(r"^\s*(연봉|소득)")))
_CONVERTED_AFTER = re.compile(r"^\s*(을|를)?\s*월세로")
_BARE_THOUSANDS = re.compile(r"(연봉|연소득|소득|수입)\s*(\d+(?:\.\d+)?)\s*천(?!만)")
# "근저당 9천", "보증금 8천에": a bare 천 after a housing amount's role word is 천만원 too
_HOUSING_THOUSANDS = re.compile(
    r"(근저당|선순위|채권\s?최고액|최고액|설정액|대출|융자|보증금|전세금?|매매가?|집값|시세)"
    r"[^\d,.]{0,10}?(\d+)\s?천(?!만|원|\d)")
EXCLUSIVE_PER_PYEONG = PYEONG_M2 * 0.755
"""전용면적 per 평형 (공급면적 평): the "84㎡ = 34평형" convention (전용률 about 75.5%)."""
_TOLERANCE = 0.05
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(%|퍼센트|프로)")
_LEFT = re.compile(r"(\d+|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s*(개월|달)\s*(정도\s*)?남")
_KOREAN_COUNT = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
_MONTHS = re.compile(r"최근\s*(\d+)\s*(개월|달)|최근\s*(1|한)\s*년")
_BUYER = (("first_home", re.compile(r"생애 ?최초|첫 ?집|처음 (집|주택)")),
          ("multi_home", re.compile(r"다주택|2주택|두 채|집이 두")),
          ("one_home_disposal", re.compile(r"1주택|한 채 (있|보유)|갈아타")),
          ("no_home", re.compile(r"무주택|집이 없")))


_OLD = (re.compile(r"(나는|저는|제가|내|원래|기존|현재|지금)\s*\S*\s*$"), re.compile(r"^\s*\S{0,2}(이었|였|이던|인데)"))
_NEW = re.compile(r"^\s*\S{0,2}\s*(다른 ?사람|새 ?(임차인|세입자)|새로)")


def _time(text: str, start: int, end: int) -> str | None:
    """"나는 월세 80만원이었는데" is the old rent, "월세 100만원에 다른 사람을" the new one."""
    before, after = text[max(0, start - 16):start], text[end:end + 12]
    if _NEW.search(after):
        return "new"
    if _OLD[0].search(before) or _OLD[1].search(after):
        return "old"
    return None


def _role(text: str, start: int, end: int) -> str:
    """The role word right before an amount wins ("보증금 2억 집"), except "X을 월세로" (a converted
    part of it); then what follows ("6억짜리 아파트", "2억 연봉")."""
    before, after = text[max(0, start - 14):start], text[end:end + 8]
    if _CONVERTED_AFTER.search(after):
        return "converted"
    for role, pat in _ROLE_BEFORE:
        if pat.search(before):
            return role
    for role, pat in _ROLE_AFTER:
        if pat.search(after):
            return role
    return "other"


def extract_entities(query: str) -> dict[str, Any]:
    """Everything the planner and the teams may use; only what the text states."""
    text = normalise(query)
    out: dict[str, Any] = {}
    region = _region(text)
    if region:
        out["region"] = region
    if m := _COMPLEX.search(text):
        gu = m.group(2) or (region or {}).get("sigungu")
        out["complex"] = f"가상단지{m.group(1).upper()}" + (f"({gu})" if gu else "")
    elif named := named_complex(text):  # a real complex by name: the answer is about it or says it is absent
        out["complex"] = named
        out["complex_named"] = True
    for word, kind in _PROPERTY.items():
        if word in text:
            out["property_type"] = kind
            break
    for deal, pat in _DEAL:
        if pat.search(text):
            out["deal_type"] = deal
            break
    amounts: list[dict[str, Any]] = []
    for match in find_amounts(text):
        manwon = match.value // 10_000
        if manwon <= 0:
            continue
        item: dict[str, Any] = {"role": _role(text, match.start, match.end), "manwon": manwon,
                "text": text[match.start:match.end], "at": match.start}
        if when := _time(text, match.start, match.end):
            item["time"] = when
        amounts.append(item)
    for m in _BARE_THOUSANDS.finditer(text):  # "연봉 6천" means 6천만원 in this domain
        if not any(a["at"] <= m.start(2) < a["at"] + len(a["text"]) for a in amounts):
            amounts.append({"role": "income", "manwon": int(float(m.group(2)) * 1000), "text": m.group(0),
                            "at": m.start(2)})
    for m in _HOUSING_THOUSANDS.finditer(text):
        if not any(a["at"] <= m.start(2) < a["at"] + len(a["text"]) for a in amounts):
            amounts.append({"role": _role(text, m.start(2), m.end()), "manwon": int(m.group(2)) * 1000,
                            "text": text[m.start(2):m.end()], "at": m.start(2)})
    amounts.sort(key=lambda a: a["at"])
    if (debt := read_senior_debt(text, amounts)) is not None:
        out["senior_debt"] = debt
    if amounts:
        out["amounts"] = [{k: v for k, v in a.items() if k != "at"} for a in amounts]
    if (area := _area(text)) is not None:
        out["area"] = area
    percents = [float(m.group(1)) for m in _PERCENT.finditer(text)]
    if percents:
        out["percents"] = percents
    dates = [d.value.isoformat() for d in find_dates(text) if d.value is not None]
    if dates:
        out["dates"] = dates
    out.update(extract_parties(query))  # names, address and the role of each date, for documents
    if m := _MONTHS.search(text):
        out["months"] = int(m.group(1)) if m.group(1) else 12
    if m := _LEFT.search(text):
        out["months_left"] = int(m.group(1)) if m.group(1).isdigit() else _KOREAN_COUNT[m.group(1)]
    for buyer, pat in _BUYER:
        if pat.search(text):
            out["buyer"] = buyer
            break
    return out


def _region(text: str) -> dict[str, str] | None:
    for gu in sorted(SEOUL_GU, key=len, reverse=True):
        if gu in text:
            return {"sido": "서울특별시", "sigungu": gu, "text": gu}
    for name, gu in _AREA_NAMES.items():
        if name in text:
            return {"sido": "서울특별시", "sigungu": gu, "text": name}
    return None


def _area(text: str) -> dict[str, Any] | None:
    """The 전용면적 band a spoken size means: ㎡ are 전용 already (±5%); 평 are 평형 (공급), converted."""
    area = parse_area(text)
    if area is None:
        return None
    said = text[area.start:area.end]
    if area.unit == "m2":
        low, high = area.min_m2 * (1 - _TOLERANCE), area.max_m2 * (1 + _TOLERANCE)
        basis = f"{said}: 전용면적 {low:.0f}~{high:.0f}㎡로 봄"
    else:
        pyeong_low, pyeong_high = area.min_m2 / PYEONG_M2, area.max_m2 / PYEONG_M2
        low = pyeong_low * EXCLUSIVE_PER_PYEONG * (1 - _TOLERANCE)
        high = pyeong_high * EXCLUSIVE_PER_PYEONG * (1 if not area.exact else 1 + _TOLERANCE)
        basis = f"{said}(공급면적 기준 평형): 전용면적 약 {low:.0f}~{high:.0f}㎡로 봄"
    return {"min_m2": round(low, 1), "max_m2": round(high, 1), "text": said, "basis": basis}
