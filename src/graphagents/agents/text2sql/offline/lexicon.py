"""Words the offline composer understands, and the two tokenisers it reads questions with.

Everything here is language knowledge, not schema knowledge: no table or column of any database is
named in this file, so the composer stays usable on a schema it has never seen. Cue lists are
plain tuples so that a reviewer can see exactly which words trigger which SQL construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ....korean import tokenize

__all__ = [
    "AggFunc",
    "Tok",
    "english_tokens",
    "is_hangul",
    "korean_tokens",
]

AggFunc = Literal["count", "sum", "avg", "max", "min"]

@dataclass(frozen=True)
class Tok:
    """A morpheme or English word with its offset, so cue spans can be masked out of the text."""

    form: str
    tag: str  # Sejong tag for Korean, "EN" for an English word, "SN" for a number
    start: int
    end: int


def is_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in text)


def korean_tokens(text: str) -> list[Tok]:
    """Kiwi morphemes with spans, from the core analyser (``graphagents.korean.tokenize``)."""
    return [Tok(m.form, m.tag, m.start, m.end) for m in tokenize(text)]


_EN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*|\d+(?:\.\d+)?")


def english_tokens(text: str) -> list[Tok]:
    return [
        Tok(m.group(0), "SN" if m.group(0)[0].isdigit() else "EN", m.start(), m.end())
        for m in _EN_WORD.finditer(text)
    ]


def singular(word: str) -> str:
    """Crude English singular: enough to match 'orders' to 'order' and 'categories' to 'category'."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


# --- numbers -----------------------------------------------------------------------------------
# Korean amounts ("3백만", "3천5백만", "삼백만") are read by graphagents.korean.parse_number.

_NATIVE = {
    "한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5, "여섯": 6,
    "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "스무": 20,
}  # fmt: skip
_EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twenty": 20,
}  # fmt: skip


def native_number(word: str) -> int | None:
    return _NATIVE.get(word) or _EN_NUMBERS.get(word.lower())


def as_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


# --- cues --------------------------------------------------------------------------------------
# Each cue is matched on the raw question (Korean) or on lower-cased words (English).

KO_AGG: tuple[tuple[str, AggFunc], ...] = (
    # longest first: "평균 가격" must not fall to "가격"'s sum reading, "총 몇" is a count.
    ("몇 개", "count"), ("몇 명", "count"), ("몇 건", "count"), ("몇 곳", "count"), ("몇개", "count"),
    ("몇명", "count"), ("몇건", "count"), ("몇 종", "count"), ("몇 가지", "count"), ("건수", "count"),
    ("개수", "count"), ("갯수", "count"), ("인원", "count"), ("숫자", "count"), ("몇", "count"),
    ("평균", "avg"), ("합계", "sum"), ("총합", "sum"), ("합산", "sum"), ("총액", "sum"), ("합", "sum"),
    ("최댓값", "max"), ("최대값", "max"), ("최고", "max"), ("최대", "max"), ("가장 높은", "max"),
    ("가장 비싼", "max"), ("가장 큰", "max"), ("가장 늦은", "max"), ("최근", "max"),
    ("최솟값", "min"), ("최소값", "min"), ("최저", "min"), ("최소", "min"), ("가장 낮은", "min"),
    ("가장 싼", "min"), ("가장 저렴한", "min"), ("가장 작은", "min"), ("가장 이른", "min"),
)  # fmt: skip
# "수" counts only right after a noun ("고객 수", "주문수"), never inside a word such as "수원".
KO_COUNT_SUFFIX = re.compile(r"(?<=[가-힣])\s?수(?=[는은가이를을와과도만]|\s|\?|$|[.,])")
KO_TOTAL = ("총", "전체", "모두", "통틀어")  # make an implicit sum/count explicit; never a filter
EN_AGG: tuple[tuple[str, AggFunc], ...] = (
    ("how many", "count"), ("number of", "count"), ("count of", "count"), ("count", "count"),
    ("average", "avg"), ("mean", "avg"), ("avg", "avg"), ("sum of", "sum"), ("total", "sum"),
    ("sum", "sum"), ("maximum", "max"), ("highest", "max"), ("max", "max"), ("largest", "max"),
    ("most expensive", "max"), ("latest", "max"), ("minimum", "min"), ("lowest", "min"),
    ("min", "min"), ("smallest", "min"), ("cheapest", "min"), ("earliest", "min"),
)  # fmt: skip

VALUE_AGG: tuple[tuple[str, AggFunc], ...] = (
    ("최댓값", "max"), ("최대값", "max"), ("최고값", "max"), ("최고액", "max"), ("최솟값", "min"),
    ("최소값", "min"), ("최저값", "min"), ("최저액", "min"),
)  # fmt: skip

# Group-by: "지역별", "카테고리마다", "per region", "by category", "for each store", "each store".
KO_GROUP = re.compile(r"([가-힣A-Za-z0-9_]+)\s?(?:별로|별|마다|단위로|기준으로)(?![가-힣])")
EN_GROUP = re.compile(r"\b(?:per|by|for each|for every|each|grouped by)\s+([a-z_]+(?:\s+[a-z_]+)?)", re.I)

TimeBucket = Literal["year", "quarter", "month", "day"]
KO_BUCKET: dict[str, TimeBucket] = {
    "연도": "year", "연": "year", "년": "year", "년도": "year", "해": "year", "분기": "quarter",
    "월": "month", "달": "month", "일": "day", "일자": "day", "날짜": "day",
}  # fmt: skip
EN_BUCKET: dict[str, TimeBucket] = {
    "year": "year", "yearly": "year", "annual": "year", "quarter": "quarter", "quarterly": "quarter",
    "month": "month", "monthly": "month", "day": "day", "daily": "day", "date": "day",
}  # fmt: skip

# Top-N: "상위 5개", "top 3", "가장 많은 3개", "하위 10", "bottom 5", "5개 상품".
KO_TOP = re.compile(
    r"(상위|하위|top|bottom|TOP|Top|Bottom|베스트|워스트)\s?(\d+|[가-힣]+)\s?(?:개|명|곳|건|위|종|가지)?"
)
KO_COUNTED = re.compile(r"(\d+)\s?(?:개|명|곳|건|종|가지)(?:의|만)?(?=\s|[은는을를이가]|$)")
EN_TOP = re.compile(r"\b(top|bottom|first|last)\s+(\d+|[a-z]+)\b", re.I)
KO_MOST = ("가장 많이", "가장 많은", "제일 많이", "제일 많은", "가장 높은", "제일 높은", "많이 팔린",
           "가장 큰", "제일 큰", "가장 비싼", "제일 비싼", "가장 늦은", "최다", "가장 최근", "최근", "가장 최신",
           "제일 최근")
KO_LEAST = ("가장 적게", "가장 적은", "제일 적은", "가장 낮은", "제일 낮은", "가장 작은", "가장 싼",
            "제일 싼", "가장 저렴한", "가장 이른", "최소", "가장 오래된", "제일 오래된", "가장 먼저")
EN_MOST = ("most expensive", "most recent", "most", "highest", "largest", "biggest", "best", "top", "latest",
           "newest")
EN_LEAST = ("least", "lowest", "smallest", "fewest", "worst", "bottom", "cheapest", "earliest", "oldest")
# Superlatives about time rank by a date column rather than by an amount.
TIME_ADJECTIVES = frozenset({"최근", "최신", "오래된", "먼저", "이른", "늦은", "recent", "latest", "newest",
                             "earliest", "oldest"})
# Left over after parsing, these mean a superlative we did not understand: refuse rather than list.
UNPARSED_SUPERLATIVE = ("가장", "제일", "most", "least")
KO_ORDER_DESC = ("내림차순", "많은 순", "많은순", "높은 순", "높은순", "큰 순", "비싼 순", "최신순")
KO_ORDER_ASC = ("오름차순", "적은 순", "적은순", "낮은 순", "낮은순", "작은 순", "싼 순", "오래된 순")

# Comparisons: the number comes first in Korean ("100만원 이상"), after the cue in English.
KO_CMP: dict[str, str] = {
    "이상": ">=", "이하": "<=", "초과": ">", "미만": "<", "넘는": ">", "넘게": ">", "넘은": ">",
    "보다 큰": ">", "보다 많은": ">", "보다 높은": ">", "보다 작은": "<", "보다 적은": "<",
    "보다 낮은": "<", "보다 비싼": ">", "보다 싼": "<", "인": "=", "짜리": "=",
}  # fmt: skip
EN_CMP: dict[str, str] = {
    "at least": ">=", "no less than": ">=", "or more": ">=", "at most": "<=", "no more than": "<=",
    "or less": "<=", "more than": ">", "greater than": ">", "over": ">", "above": ">",
    "higher than": ">", "less than": "<", "fewer than": "<", "under": "<", "below": "<",
    "lower than": "<", "equal to": "=", "exactly": "=",
}  # fmt: skip

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that ask a question or glue a sentence: never a schema element nor a filter value.
STOP_KO = _words(
    """
    를 을 은 는 이 가 의 에 도 로 와 과
    얼마 무엇 뭐 어디 누구 언제 어느 어떤 알려 보여 목록 리스트 데이터 정보 전부 각각 각 것
    거 중 때 기준 경우 해당 모든 전체 총 대한 관련 동안 기간 이내 사이 부터 까지 값 순
    순서 정렬 내림차순 오름차순 상위 하위 가장 제일 많이 적게 이상 이하 초과 미만 개 명 건
    곳 종 가지 번 위 원 점 수 등 및 또는 그리고 좀 혹시 현재 기록 내역 구분 조회 출력
    표시 확인 계산 집계 구하 찾 알 보이 나열 뽑 비교 분석 통계 결과 명단 제외 빼고 누적
    언제 들 님 분 야 적 고
    """
)
STOP_EN = _words(
    """
    a an the of in on at to for from with and or is are was were be been what which who whom whose how
    many much show list give me tell find get display return all each every per by there that this these
    those do does did have has had number count total average sum top bottom first last most least
    highest lowest than more less over under above below between during within since until please their
    its his her them it as any some maximum minimum max min mean avg biggest largest smallest fewest
    equal exactly value values record records data rank ranked sorted sort descending ascending i we you
    our my can could would should will may might must when where why
    across through into onto via ever being up down out also just currently now together whether
    live lives living lived work works worked working came come comes coming made make makes
    not no never without none except excluding only both either neither nor same
    """
)
