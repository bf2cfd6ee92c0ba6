"""Floor areas as Korean property talk says them: "84㎡", "84m2", "34평", "30평대", "25~30평".

Listings give square metres, people say 평 (1평 = 400/121 m², about 3.3058 m²); both read into
one ``Area`` in square metres. "30평대" is a range (30 up to 40평), kept as a range rather than
guessed into one number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ._amounts import parse_number
from ._text import normalize

__all__ = ["PYEONG_M2", "Area", "m2_to_pyeong", "parse_area", "pyeong_to_m2"]

PYEONG_M2 = 400 / 121
"""Square metres in one 평 (the legal definition: 1평 = 400/121 m²)."""

_NUM = r"(?<![\d.])\d+(?:\.\d+)?|(?<![가-힣\d])[일이삼사오육칠팔구십백]+"
_M2 = r"(?:m2|㎡|제곱\s?미터|평방\s?미터|sqm|square\s?met(?:er|re)s?)"
# What may follow 평: a particle, 형/짜리/대, or the end of a word; never 평생, 평일, 평균, 평가.
_AFTER_PYEONG = (r"(?=$|[^가-힣]|(?:은|는|이|가|을|를|도|에|으로|로|의|짜리|형|정도|쯤|요|이요|이상|이하|미만|초과|인|"
                 r"이에요|입니다))")
_RANGE = re.compile(rf"(?P<a>{_NUM})\s?(?:평\s?)?(?:~|-|에서|부터)\s?(?P<b>{_NUM})\s?평{_AFTER_PYEONG}")
_DECADE = re.compile(r"(?<![\d.])(?P<a>\d+)\s?평\s?대(?=$|[^가-힣]|의|에|로|으로|는|은|가|이|를|을|도|면|라|인|예|요)")
_PYEONG = re.compile(rf"(?P<a>{_NUM})\s?평{_AFTER_PYEONG}")
_SQM = re.compile(rf"(?<![\d.])(?P<a>\d+(?:\.\d+)?)\s?{_M2}(?![a-z0-9])", re.IGNORECASE)


def pyeong_to_m2(pyeong: float) -> float:
    return pyeong * PYEONG_M2


def m2_to_pyeong(m2: float) -> float:
    return m2 / PYEONG_M2


@dataclass(frozen=True, slots=True)
class Area:
    """An area in square metres: exact when ``min_m2 == max_m2``, else the range said ("30평대").

    ``unit`` is the unit the user spoke in, so a reply can answer in it; ``start``/``end`` index
    the normalised text."""

    min_m2: float
    max_m2: float
    unit: Literal["m2", "pyeong"]
    start: int = 0
    end: int = 0

    @property
    def exact(self) -> bool:
        return self.min_m2 == self.max_m2

    @property
    def m2(self) -> float:
        """The area (the middle of a range)."""
        return (self.min_m2 + self.max_m2) / 2

    @property
    def pyeong(self) -> float:
        return m2_to_pyeong(self.m2)

    def contains(self, m2: float) -> bool:
        """Whether an area of ``m2`` square metres fits what was said (a range includes its lower end only)."""
        if self.exact:
            return abs(m2 - self.min_m2) < 0.5
        return self.min_m2 <= m2 < self.max_m2


def _number(text: str) -> float | None:
    value = parse_number(text)
    return None if value is None or value <= 0 else float(value)


def parse_area(text: str) -> Area | None:
    """The first area in ``text``, or None: "84㎡" -> 84 m²; "34평" -> 112.4 m²; "30평대" ->
    99.2..132.2 m²; "25~30평" -> 82.6..99.2 m²."""
    text = normalize(text)
    found: list[Area] = []
    for m in _RANGE.finditer(text):
        a, b = _number(m["a"]), _number(m["b"])
        if a is not None and b is not None and a < b:
            found.append(Area(pyeong_to_m2(a), pyeong_to_m2(b), "pyeong", m.start(), m.end()))
    for m in _DECADE.finditer(text):
        a = _number(m["a"])
        if a is not None and a % 10 == 0:
            found.append(Area(pyeong_to_m2(a), pyeong_to_m2(a + 10), "pyeong", m.start(), m.end()))
    for m in _PYEONG.finditer(text):
        a = _number(m["a"])
        if a is not None:
            found.append(Area(pyeong_to_m2(a), pyeong_to_m2(a), "pyeong", m.start(), m.end()))
    for m in _SQM.finditer(text):
        a = _number(m["a"])
        if a is not None:
            found.append(Area(a, a, "m2", m.start(), m.end()))
    if not found:
        return None
    # The earliest match, and the widest one where matches overlap ("25~30평" over "30평").
    return min(found, key=lambda area: (area.start, -(area.end - area.start)))
