"""Date phrases ("2024년 3월", "작년 상반기", "최근 3개월", "Q1 2024") as half-open date ranges.

Relative words are resolved against the *latest date in the data*, not against today's clock: a
demo or archive database that ends in 2024 would otherwise answer "올해" with an empty 2026, and
the same question would change its answer from one day to the next. The reason text names the
anchor so a user sees which year "작년" meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

__all__ = ["DateExpr", "find_dates"]


@dataclass
class DateExpr:
    """What the question said about time; :meth:`resolve` turns it into ``[start, end)``."""

    year: int | None = None
    year_rel: int | None = None  # 0 this year, -1 last year
    month: int | None = None
    month_rel: int | None = None  # 0 this month, -1 last month
    day: int | None = None
    quarter: int | None = None
    half: int | None = None
    last_n: tuple[int, str] | None = None  # (3, "month") for "최근 3개월"
    start: date | None = None  # explicit bounds ("2024-01-01부터")
    end: date | None = None  # exclusive
    open_side: str | None = None  # "since" | "before" | "after" | "until" for one-sided years
    spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def relative(self) -> bool:
        return self.year_rel is not None or self.month_rel is not None or self.last_n is not None or (
            self.year is None and self.start is None
        )

    def resolve(self, anchor: date) -> tuple[date | None, date | None, str]:
        """Return (start, end-exclusive, label); ``anchor`` is the data's latest date."""
        if self.start is not None or self.end is not None:
            return self.start, self.end, _label(self.start, self.end)
        if self.last_n is not None:
            n, unit = self.last_n
            end = anchor + timedelta(days=1)
            if unit == "day":
                start = end - timedelta(days=n)
            elif unit == "week":
                start = end - timedelta(days=7 * n)
            elif unit == "year":
                start = _add_months(end, -12 * n)
            else:
                start = _add_months(end, -n)
            return start, end, f"최근 {n}{_UNIT_KO[unit]} ({start} ~ {anchor})"
        year = self.year if self.year is not None else anchor.year + (self.year_rel or 0)
        month: int | None = self.month
        if self.month_rel is not None:
            first = _add_months(date(anchor.year, anchor.month, 1), self.month_rel)
            year, month = first.year, first.month
        if month is not None and self.day is not None:
            start = date(year, month, self.day)
            end = start + timedelta(days=1)
        elif month is not None:
            start = date(year, month, 1)
            end = _add_months(start, 1)
        elif self.quarter is not None:
            start = date(year, 3 * self.quarter - 2, 1)
            end = _add_months(start, 3)
        elif self.half is not None:
            start = date(year, 1 if self.half == 1 else 7, 1)
            end = _add_months(start, 6)
        else:
            start, end = date(year, 1, 1), date(year + 1, 1, 1)
        if self.open_side in ("since",):
            return start, None, _label(start, None)
        if self.open_side == "after":
            return end, None, _label(end, None)
        if self.open_side == "before":
            return None, start, _label(None, start)
        if self.open_side == "until":
            return None, end, _label(None, end)
        return start, end, _label(start, end)


_UNIT_KO = {"day": "일", "week": "주", "month": "개월", "year": "년"}


def _label(start: date | None, end: date | None) -> str:
    last = end - timedelta(days=1) if end else None
    return f"{start or '...'} ~ {last or '...'}"


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


_ISO = r"(\d{4})[-./](\d{1,2})[-./](\d{1,2})"
_RANGE_ISO = re.compile(
    rf"(?:between\s+)?{_ISO}\s*(?:부터|에서|~|-|–|and|to|through)\s*{_ISO}\s*(?:까지|사이)?", re.I
)
_SINGLE_ISO = re.compile(rf"{_ISO}\s*(이후|부터|이전|전|까지|이내)?")
_KO_YMD = re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?")
_KO_YEAR = re.compile(r"(\d{4})\s*년(?:도)?(?!\s*\d)")
_KO_MONTH_ONLY = re.compile(r"(?<![\d년])(\d{1,2})\s*월(?!\s*별)")
_KO_QUARTER = re.compile(r"([1-4])\s*분기|Q([1-4])", re.I)
_KO_HALF = re.compile(r"(상반기|하반기|first half|second half|H([12]))", re.I)
_KO_REL_YEAR = {"재작년": -2, "작년": -1, "지난해": -1, "전년": -1, "올해": 0, "금년": 0, "이번 해": 0,
                "this year": 0, "last year": -1, "previous year": -1}
_KO_REL_MONTH = {"지난달": -1, "지난 달": -1, "전월": -1, "이번 달": 0, "이번달": 0, "this month": 0,
                 "last month": -1, "previous month": -1}
_LAST_N = re.compile(
    r"(?:최근|지난|직전|last|past|previous)\s*(\d+)\s*(개월|달|일|주|년|months?|days?|weeks?|years?)", re.I
)
_OPEN_KO = {"이후": "since", "부터": "since", "이전": "before", "전": "before", "까지": "until"}
_EN_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], 1)}
_EN_MONTH_RE = re.compile(r"\b(" + "|".join(_EN_MONTHS) + r"|[a-z]{3})\b\.?\s*(\d{4})?", re.I)
_EN_YEAR = re.compile(r"\b(in|during|since|after|before|until|from)?\s*((?:19|20)\d{2})\b", re.I)


def _unit(word: str) -> str:
    w = word.lower()
    if w in ("개월", "달") or w.startswith("month"):
        return "month"
    if w == "일" or w.startswith("day"):
        return "day"
    if w == "주" or w.startswith("week"):
        return "week"
    return "year"


_KO_DAY_RANGE = re.compile(
    r"(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(\d{1,2})\s*일\s*(?:부터|~|-|에서)\s*(?:(\d{1,2})\s*월\s*)?(\d{1,2})\s*일"
    r"\s*(?:까지)?")
_EN_DAY_RANGE = re.compile(
    r"\b(" + "|".join(_EN_MONTHS) + r")\s+(\d{1,2})\s*(?:-|–|to|through)\s*(?:(" + "|".join(_EN_MONTHS)
    + r")\s+)?(\d{1,2})\b(?:,?\s*(\d{4}))?", re.I)
_ANY_YEAR = re.compile(r"((?:19|20)\d{2})")


def _day_range(text: str) -> DateExpr | None:
    """'1월 1일부터 7일까지', 'January 1-7' (year from elsewhere in the question): an inclusive day span."""
    if m := _KO_DAY_RANGE.search(text):
        year_text, m1, d1, m2, d2 = m[1], int(m[2]), int(m[3]), m[4], int(m[5])
    elif m := _EN_DAY_RANGE.search(text):
        m1, d1, d2 = _EN_MONTHS[m[1].lower()], int(m[2]), int(m[4])
        m2 = str(_EN_MONTHS[m[3].lower()]) if m[3] else None
        year_text = m[5]
    else:
        return None
    year_hit = year_text or (_ANY_YEAR.search(text) or [None, None])[1]
    if year_hit is None:
        return None
    year = int(year_hit)
    d = DateExpr(start=date(year, m1, d1), end=date(year, int(m2) if m2 else m1, d2) + timedelta(days=1))
    d.spans.append(m.span())
    for y in _ANY_YEAR.finditer(text):  # the year said elsewhere is part of the same expression
        d.spans.append(y.span())
    return d


def find_dates(text: str) -> DateExpr | None:
    """Find at most one date expression; the spans let the parser mask these words out."""
    if d_range := _day_range(text):
        return d_range
    d = DateExpr()
    found = False
    if m := _RANGE_ISO.search(text):
        d.start = date(int(m[1]), int(m[2]), int(m[3]))
        d.end = date(int(m[4]), int(m[5]), int(m[6])) + timedelta(days=1)
        d.spans.append(m.span())
        return d
    if m := _SINGLE_ISO.search(text):
        day = date(int(m[1]), int(m[2]), int(m[3]))
        side = _OPEN_KO.get(m[4] or "")
        if side in ("since",):
            d.start = day
        elif side == "before":
            d.end = day
        elif side == "until":
            d.end = day + timedelta(days=1)
        else:
            d.start, d.end = day, day + timedelta(days=1)
        d.spans.append(m.span())
        return d
    if m := _LAST_N.search(text):
        d.last_n = (int(m[1]), _unit(m[2]))
        d.spans.append(m.span())
        return d
    low = text.lower()
    if m := _KO_YMD.search(text):
        d.year, d.month = int(m[1]), int(m[2])
        d.day = int(m[3]) if m[3] else None
        d.spans.append(m.span())
        found = True
    elif m := _KO_YEAR.search(text):
        d.year = int(m[1])
        d.spans.append(m.span())
        found = True
        tail = text[m.end():m.end() + 4].strip()
        for word, side in _OPEN_KO.items():
            if tail.startswith(word) and not _KO_QUARTER.search(text) and not _KO_HALF.search(text):
                d.open_side = side
                d.spans.append((m.end(), m.end() + text[m.end():].find(word) + len(word)))
                break
    else:
        for word, rel in _KO_REL_YEAR.items():
            if (i := low.find(word)) >= 0:
                d.year_rel = rel
                d.spans.append((i, i + len(word)))
                found = True
                break
        for word, rel in _KO_REL_MONTH.items():
            if (i := low.find(word)) >= 0:
                d.month_rel = rel
                d.spans.append((i, i + len(word)))
                found = True
                break
        if not found and (m := _EN_YEAR.search(text)):
            d.year = int(m[2])
            side = (m[1] or "").lower()
            d.open_side = {"since": "since", "from": "since", "after": "after", "before": "before",
                           "until": "until"}.get(side)
            d.spans.append(m.span())
            found = True
    if d.month is None and d.month_rel is None:
        if m := _KO_MONTH_ONLY.search(text):
            d.month = int(m[1])
            d.spans.append(m.span())
            found = True
        else:
            for m in _EN_MONTH_RE.finditer(text):
                name = m[1].lower()
                month = _EN_MONTHS.get(name) or next(
                    (i for full, i in _EN_MONTHS.items() if len(name) == 3 and full.startswith(name)), None)
                if month is None or name in ("may",) and not m[2]:
                    continue
                d.month = month
                if m[2]:
                    d.year = int(m[2])
                d.spans.append(m.span())
                found = True
                break
    if d.month is None and (m := _KO_QUARTER.search(text)):
        d.quarter = int(m[1] or m[2])
        d.spans.append(m.span())
        found = True
    if d.month is None and d.quarter is None and (m := _KO_HALF.search(text)):
        word = m[1].lower()
        d.half = 1 if word in ("상반기", "first half", "h1") else 2
        d.spans.append(m.span())
        found = True
    return d if found else None
