"""Doses with units, in Korean and English: "500mg", "1정", "10 mg", "하루 두 번", "1일 3회",
"twice a day", "8시간마다".

A cached answer about "타이레놀 500mg" must not serve "1000mg", and "하루 두 번" differs from "하루
세 번": the semantic cache and the RAG profile key on these, so each dose is read into a value,
a canonical unit and, for frequencies, a period. Ranges ("2~3정") are not guessed into one value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ._text import fold

__all__ = ["Dose", "parse_doses"]

Period = Literal["day", "week", "month"]
DoseKind = Literal["strength", "count", "frequency", "interval"]

_NATIVE = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "네": 4, "넷": 4, "다섯": 5,
           "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "반": 0.5}
_ENGLISH = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "half": 0.5, "a": 1, "an": 1}
_MASS = {"mg": "mg", "밀리그램": "mg", "밀리그람": "mg", "미리그램": "mg", "g": "g", "그램": "g", "그람": "g",
         "milligrams": "mg", "milligram": "mg", "grams": "g", "gram": "g", "mcg": "mcg", "μg": "mcg",
         "micrograms": "mcg", "microgram": "mcg", "milliliters": "ml", "millilitres": "ml", "µg": "mcg",
         "ug": "mcg", "마이크로그램": "mcg", "ml": "ml", "밀리리터": "ml",
         "미리리터": "ml", "cc": "ml", "iu": "IU", "units": "IU", "unit": "IU", "단위": "IU"}
_COUNTERS = {"정": "정", "알": "정", "tablet": "정", "tablets": "정", "tab": "정", "tabs": "정", "pill": "정",
             "pills": "정", "캡슐": "캡슐", "capsule": "캡슐", "capsules": "캡슐", "포": "포", "packet": "포",
             "packets": "포", "sachet": "포", "sachets": "포", "방울": "방울", "drop": "방울", "drops": "방울",
             "스푼": "스푼", "teaspoon": "스푼", "teaspoons": "스푼", "spoon": "스푼", "spoons": "스푼",
             "퍼프": "퍼프", "puff": "퍼프", "puffs": "퍼프", "patch": "장", "patches": "장"}
_PERIODS = {"하루": "day", "하루에": "day", "1일": "day", "일일": "day", "매일": "day", "일": "day",
            "day": "day", "daily": "day", "일주일": "week", "일주일에": "week", "주": "week", "1주": "week",
            "매주": "week", "week": "week", "weekly": "week", "한달": "month", "한 달": "month", "한달에": "month",
            "한 달에": "month", "1개월": "month", "매달": "month", "month": "month", "monthly": "month"}
_TIMES_EN = {"once": 1, "twice": 2, "thrice": 3}

_N = r"\d+(?:,\d{3})*(?:\.\d+)?"
_WORD_NUM = "|".join(sorted(_NATIVE, key=len, reverse=True))
_EN_NUM = "|".join(sorted(_ENGLISH, key=len, reverse=True))

_MASS_UNITS = "|".join(sorted(map(re.escape, _MASS), key=len, reverse=True))
_COUNT_UNITS = "|".join(sorted(map(re.escape, _COUNTERS), key=len, reverse=True))
_STRENGTH = re.compile(rf"(?<![\w.~-])(?P<n>{_N})\s?(?P<u>{_MASS_UNITS})(?![a-z])")
_COUNT = re.compile(
    rf"(?:(?<![\w.~-])(?P<n>{_N})|(?<![가-힣~-])(?P<w>{_WORD_NUM})|\b(?P<e>{_EN_NUM}))\s?"
    rf"(?P<u>{_COUNT_UNITS})(?P<half>\s?반)?"
    r"(?=$|[^a-z가-힣]|씩|을|를|은|는|이|가|도|만|에|으로|로|요|정도|짜리)",
)
_KO_PERIOD = r"(?P<p>하루에?|1일|일일|매일|일주일에?|1주|매주|주|한\s?달에?|1개월|매달)"
_KO_FREQ = re.compile(
    rf"{_KO_PERIOD}\s?(?:에\s?)?(?:(?P<n>\d+)|(?P<w>{_WORD_NUM}))\s?"
    r"(?:번|회|차례)(?!째|호|지)"
)
_EN_FREQ = re.compile(
    rf"\b(?:(?P<t>once|twice|thrice)|(?:(?P<n>\d+)|(?P<e>{_EN_NUM}))\s?times?)\s(?:a|per|each|every)?\s?"
    r"(?P<p>day|week|month)\b|\b(?P<t2>once|twice|thrice)\s(?P<p2>daily|weekly|monthly)\b"
)
_INTERVAL = re.compile(
    r"(?:매\s?)?(?<![\d.])(?P<n>\d+)\s?시간\s?(?:마다|간격)|\bevery\s(?P<e>\d+)\s?(?:hours|hrs|h)\b|\bq(?P<q>\d+)h\b"
)


@dataclass(frozen=True, slots=True)
class Dose:
    """One dose: 500 mg (strength), 1 정 (count), 2 회 per day (frequency), every 8 h (interval).

    ``unit`` is canonical ("mg", "g", "mcg", "ml", "IU", "정", "캡슐", "포", "방울", "회", "h"), so
    "1알" and "one tablet" both read 1 정; ``start``/``end`` index the folded, normalised text."""

    value: float
    unit: str
    per: Period | None = None
    start: int = 0
    end: int = 0

    @property
    def kind(self) -> DoseKind:
        if self.unit == "회":
            return "frequency"
        if self.unit == "h":
            return "interval"
        return "strength" if self.unit in _MASS.values() else "count"

    @property
    def key(self) -> str:
        """A canonical string for comparing doses and building cache signatures: "500mg", "1정",
        "2회/day", "8h"."""
        value = f"{self.value:g}"
        return f"{value}{self.unit}/{self.per}" if self.per else f"{value}{self.unit}"


def _value(n: str | None, w: str | None = None, e: str | None = None) -> float | None:
    if n:
        return float(n.replace(",", ""))
    if w:
        return float(_NATIVE[w])
    if e:
        return float(_ENGLISH[e])
    return None


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def parse_doses(text: str) -> list[Dose]:
    """Every dose in ``text``, in reading order: "타이레놀 500mg 한 알씩 하루 세 번" ->
    500 mg, 1 정, 3 회/day."""
    low = fold(text)
    found: list[Dose] = []
    taken: list[tuple[int, int]] = []

    def add(dose: Dose) -> None:
        if dose.value > 0 and not _overlaps((dose.start, dose.end), taken):
            found.append(dose)
            taken.append((dose.start, dose.end))

    for m in _KO_FREQ.finditer(low):
        value = _value(m["n"], m["w"])
        period = _PERIODS[re.sub(r"\s", "", m["p"]).removesuffix("에") or "하루"]
        if value is not None:
            add(Dose(value, "회", period, m.start(), m.end()))  # type: ignore[arg-type]
    for m in _EN_FREQ.finditer(low):
        times = m["t"] or m["t2"]
        value = float(_TIMES_EN[times]) if times else _value(m["n"], None, m["e"])
        period = _PERIODS[m["p"] or m["p2"]]
        if value is not None:
            add(Dose(value, "회", period, m.start(), m.end()))  # type: ignore[arg-type]
    for m in _INTERVAL.finditer(low):
        hours = float(m["n"] or m["e"] or m["q"])
        add(Dose(hours, "h", None, m.start(), m.end()))
    for m in _STRENGTH.finditer(low):
        add(Dose(float(m["n"].replace(",", "")), _MASS[m["u"]], None, m.start(), m.end()))
    for m in _COUNT.finditer(low):
        value = _value(m["n"], m["w"], m["e"])
        if value is not None:
            add(Dose(value + (0.5 if m["half"] else 0), _COUNTERS[m["u"]], None, m.start(), m.end()))
    return sorted(found, key=lambda d: d.start)
