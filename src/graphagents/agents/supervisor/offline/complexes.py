"""An apartment complex the user names ("헬리오시티 84㎡", "은마아파트", "잠실 리센츠"), so that
a market answer is about that complex or says it is not in the data — never the district's rows
counted in its place.

A name is recognised by where it stands, not from a list of complexes: right before 아파트 or
단지, right before a size, after a neighbourhood, or by the brand words complexes carry (래미안,
자이, 힐스테이트, ...). Regions, sizes and ordinary words ("신축 아파트", "우리 아파트") are not
names.
"""

from __future__ import annotations

import re

from graphagents.korean import tokenize

from ..tools.loan_rules import SEOUL_GU


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_BRAND_WORDS = _words("""
    래미안 자이 푸르지오 힐스테이트 아이파크 롯데캐슬 e편한세상 이편한세상 더샵 센트레빌 꿈에그린 데시앙 위브 아크로
    리센츠 트리지움 헬리오시티 파크리오 타워팰리스 주공 시영 현대 한신 우성 삼성 대림
""")
_BRAND_SUFFIXES = _words("캐슬 팰리스 파크 타워 시티 하이츠 맨션 빌리지 스테이트 포레 리버 뷰 써밋 아너스빌")
_BRANDS = re.compile("|".join(_BRAND_WORDS) + "|[가-힣]+(?:" + "|".join(_BRAND_SUFFIXES) + ")$", re.I)
_GENERIC = frozenset(_words("""
    신축 구축 새 오래된 소형 중형 대형 우리 저희 이 그 저 이런 그런 주변 근처 동네 역세권 재건축 신혼 단지 전용
    공급 국평 국민평형 아파트 빌라 오피스텔 주택 집 서울 서울시 수도권 경기 한강 강변 대단지 나홀로 브랜드 고층
    저층 로열층 탑층 복층 판상형 타워형 매매 전세 월세 시세 최근 요즘 평균 가격 거래 실거래 내 제 부모님 살고 사는
    있는 사려는 보고 있던 같은 다른 모든 어느 무슨 어떤 해당 가상단지 가상 인기 학군 초품아 m2 평대
"""))
_AREA_WORDS = _words("""
    강남 대치 압구정 개포 도곡 청담 삼성동 역삼 서초 반포 방배 잠원 송파 잠실 문정 가락 마포 공덕 상암 노원 상계
    중계 성동 성수 옥수 금호 용산 이촌 목동 여의도
""")
_NAME = r"(?<![가-힣A-Za-z0-9])([가-힣A-Za-z][가-힣A-Za-z0-9]{1,14})"
_BEFORE_APT = re.compile(_NAME + r"\s?(?:아파트|apt)(?![가-힣])", re.I)
_BEFORE_SIZE = re.compile(_NAME + r"\s(?:전용\s?)?\d+(?:\.\d+)?\s?(?:㎡|m2|제곱미터|평)")
_BEFORE_DANJI = re.compile(_NAME + r"\s?(?:\d+\s?)?단지(?![가-힣])")
_AFTER_AREA = re.compile(
    "(?:" + "|".join(_AREA_WORDS) + r")(?:동)?\s" + _NAME +
    r"(?=\s?(?:\d|전용|매매|전세|월세|시세|실거래|최근|거래|아파트|단지|의|은|는|이|가|가격|값|평균))")
# "잠실엘스", "도곡렉슬", "반포자이": a neighbourhood glued to a name; "잠실동", "강남역", "잠실에서" are not
_GLUED_AREA = re.compile(
    "(?<![가-힣A-Za-z0-9])(?:" + "|".join(w for w in _AREA_WORDS if not w.endswith("동")) +
    ")(?!동|구|역|로|길|에|은|는|이|가|의|쪽|근처|사거리|구청|일대|권)([가-힣A-Za-z]{2,8})(?![가-힣A-Za-z0-9])")
_MODIFIER = re.compile(r"^[가-힣]{1,2}(?:은|는|운|던|된|한|인|할|을|진|린|긴)$")
_PARTICLE = re.compile(r"(?:은|는|을|를|의|도|에|에서|랑|하고|와|과)$")  # not 이/가: 반포자이 ends in 이


def _is_place(word: str) -> bool:
    return (word in SEOUL_GU or word in _AREA_WORDS or word.rstrip("구동시") in _AREA_WORDS
            or word.endswith(("구", "시")))


def _clean(word: str, *, positional: bool = True) -> str | None:
    stem = _PARTICLE.sub("", word) if len(word) > 3 else word
    if stem in _GENERIC or _is_place(stem) or stem.startswith("가상단지") or stem.isdigit():
        return None
    if re.fullmatch(r"\d+평대?|\d+㎡", stem) or len(stem) < 2:
        return None
    # "가까운 아파트", "새로 지은 아파트": a verb or adjective before 아파트 describes it, it does not name it
    if positional and (_MODIFIER.search(stem) or any(m.tag.startswith(("V", "E", "XS", "J", "M"))
                                                     for m in tokenize(stem))):
        return None
    return stem


def named_complex(text: str) -> str | None:
    """The complex the question names (as written), or None."""
    for pattern in (_BEFORE_APT, _AFTER_AREA, _BEFORE_SIZE, _BEFORE_DANJI):
        for m in pattern.finditer(text):
            name = _clean(m.group(1))
            if name is not None:
                return name
    if glued := _GLUED_AREA.search(text):
        word = text[glued.start():glued.end()]
        stem = _PARTICLE.sub("", word) if len(word) > 4 else word
        if _clean(stem, positional=False) is not None and not _PARTICLE.fullmatch(glued.group(1)):
            return stem
    for word in re.findall(r"[가-힣A-Za-z0-9]{2,}", text):
        stem = _PARTICLE.sub("", word)
        if _BRANDS.search(stem) and _clean(stem, positional=False) is not None:
            return stem
    return None
