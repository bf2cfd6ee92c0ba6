"""Calendar dates as Korean users write them: "2025년 8월 31일", "2026.2.28", "2026-10-15",
"26년 3월 1일", "2025년 8월 말", "3월 31일" (no year).

Only what is written is read: a date without a year keeps ``year=None`` (a document must not invent
one), relative dates ("지난달 말", "다음 주") are not dates here, and an impossible day ("2월 30일")
is no match rather than a guess. "말" / "말일" is the month's last day, which is what people mean.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

from ._text import normalize

__all__ = ["DateMatch", "find_dates"]

_YEAR = r"(?P<y>(?:19|20)\d{2}|\d{2})"
_NUMERIC = re.compile(
    r"(?<![\d.])(?P<y>(?:19|20)\d{2})\s*(?P<sep>[.\-/])\s*(?P<m>\d{1,2})\s*(?P=sep)\s*(?P<d>\d{1,2})(?:\s*\.)?(?![\d])")
_WORDS = re.compile(
    rf"(?<!\d)(?:{_YEAR}\s*년\s*)?(?<!\d)(?P<m>\d{{1,2}})\s*월\s*(?:(?P<d>\d{{1,2}})\s*일|(?P<end>말일|말)(?![가-힣]))")


@dataclass(frozen=True, slots=True)
class DateMatch:
    """A date found in text; ``start``/``end`` index the normalised text."""

    year: int | None
    month: int
    day: int
    start: int
    end: int

    @property
    def value(self) -> date | None:
        """The date, when the year was written."""
        return date(self.year, self.month, self.day) if self.year is not None else None

    def korean(self) -> str:
        """"2025년 8월 31일", or "8월 31일" when no year was written."""
        head = f"{self.year}년 " if self.year is not None else ""
        return f"{head}{self.month}월 {self.day}일"


def _valid(year: int | None, month: int, day: int) -> bool:
    if not 1 <= month <= 12:
        return False
    last = calendar.monthrange(year if year is not None else 2024, month)[1]  # 2024: leap, "2월 29일" may be valid
    return 1 <= day <= last


def find_dates(text: str) -> list[DateMatch]:
    """Every written date in ``normalize(text)``, in reading order."""
    text = normalize(text)
    found: list[DateMatch] = []
    taken: list[tuple[int, int]] = []
    for m in _NUMERIC.finditer(text):
        y, mo, d = int(m.group("y")), int(m.group("m")), int(m.group("d"))
        if _valid(y, mo, d):
            found.append(DateMatch(y, mo, d, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    for m in _WORDS.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        year: int | None = int(m.group("y")) if m.group("y") else None
        if year is not None and year < 100:
            year += 2000
        month = int(m.group("m"))
        if m.group("end"):
            if not 1 <= month <= 12:
                continue
            day = calendar.monthrange(year if year is not None else 2023, month)[1]
        else:
            day = int(m.group("d"))
        if _valid(year, month, day):
            found.append(DateMatch(year, month, day, m.start(), m.end()))
    return sorted(found, key=lambda d: d.start)
