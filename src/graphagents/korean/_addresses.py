"""Korean postal addresses inside a sentence: "서울 마포구 성산동 123-4번지 201호", "경기도 성남시
분당구 정자동 178 파크뷰 102동 1503호", "서울시 강서구 화곡로15길 20", "합정동 123".

An address is anchored on a street or neighbourhood word followed by a lot or building number
("성산동 123-4번지", "화곡로15길 20"), optionally preceded by the province and city or district
and followed by a building name, 단지, 동 and 호. The span is returned as written, so a document
quotes the user's own address. A neighbourhood without a number ("합정동에 살아요") is not an
address; neither is a number that counts something ("성산동 2년", "정자동 3억").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._text import normalize

__all__ = ["AddressMatch", "find_addresses"]

_SIDO = (r"(?:서울(?:특별시|시)?|부산(?:광역시|시)?|대구(?:광역시|시)?|인천(?:광역시|시)?|광주(?:광역시|시)?|"
         r"대전(?:광역시|시)?|울산(?:광역시|시)?|세종(?:특별자치시|시)?|경기(?:도)?|강원(?:특별자치도|도)?|"
         r"충청북도|충북|충청남도|충남|전북특별자치도|전라북도|전북|전라남도|전남|경상북도|경북|경상남도|경남|"
         r"제주(?:특별자치도|도)?)")
_SIGUNGU = r"[가-힣]{1,6}(?:시|군|구)"
_STREET = r"[가-힣]{1,8}(?:\d{1,3}(?:번)?)?(?:동|읍|면|리|가|로|길)(?:\s?\d{1,3}(?:번)?길)?"
_LOT = r"(?:산\s?)?\d{1,5}(?:-\d{1,5})?(?:\s?번지)?"
_UNIT = r"(?:\d{1,4}(?:단지|동|호|층))"
_BUILDING = r"[가-힣A-Za-z][가-힣A-Za-z0-9]{0,14}"
_ADDRESS = re.compile(
    rf"(?:(?:{_SIDO})\s+)?(?:(?:{_SIGUNGU})\s+){{0,2}}"
    rf"(?P<street>{_STREET})\s?(?P<lot>{_LOT})"
    rf"(?P<rest>(?:,?\s(?:{_UNIT}|{_BUILDING}(?=\s{_UNIT})))*)"
    # what may follow: an ending, punctuation, a particle or an honorific copula, never a counter
    r"(?=$|[\s,.)(]|(?:에|의|이고|이며|이에요|예요|입니다|인데|로|으로|이|가|은|는|을|를)(?![가-힣]))")
_COUNTER_AFTER = re.compile(r"^\s?(?:년|개월|달|월|일|명|개|건|회|번|세|살|평|억|만|천|원|%|퍼센트|㎡|m)")
_HANGUL_HEAD = re.compile(r"[가-힣]+")
_NOT_STREETS = frozenset((
    "공동", "행동", "활동", "이동", "자동", "변동", "노동", "운동", "아동", "연동", "작동", "동동",
    "도로", "경로", "진로", "통로", "이로", "그리", "거리", "관리", "처리", "대리", "수리", "정리",
    "권리", "원리", "추가", "평가", "증가", "시가", "주가", "단가", "물가", "이면",
))


@dataclass(frozen=True, slots=True)
class AddressMatch:
    """An address found in text; ``text`` is the span as written (normalised spacing)."""

    text: str
    start: int
    end: int


def find_addresses(text: str) -> list[AddressMatch]:
    """Every address in ``normalize(text)``, in reading order."""
    text = normalize(text)
    out: list[AddressMatch] = []
    for m in _ADDRESS.finditer(text):
        head = _HANGUL_HEAD.match(m.group("street"))
        if head is not None and head.group() in _NOT_STREETS:
            continue
        if _COUNTER_AFTER.match(text[m.end("lot"):]) and not m.group("rest"):
            continue
        span = text[m.start():m.end()].rstrip(" ,")
        out.append(AddressMatch(span, m.start(), m.start() + len(span)))
    return out
