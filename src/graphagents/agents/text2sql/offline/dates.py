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
    month_to: int | None = None  # "10월부터 12월까지": last month of a month span (inclusive)
    week: int | None = None  # "첫째 주", "first week": 1..4, or -1 for the last week
    column_hint: str | None = None  # "birth" for "1990년대생": the range is about a birth date
    hour: tuple[str, int] | None = None  # ("since", 15) for "after 3pm": needs a time-of-day column
    spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def relative(self) -> bool:
        return self.year_rel is not None or self.month_rel is not None or self.last_n is not None or (
            self.year is None and self.start is None
        )

    @property
    def has_period(self) -> bool:
        """False when only a time of day was said ("after 3pm"): no date range to add."""
        return any(v is not None for v in (self.year, self.year_rel, self.month, self.month_rel, self.day,
                                           self.quarter, self.half, self.last_n, self.start, self.end,
                                           self.week))

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
        if month is not None and self.month_to is not None:
            start = date(year, month, 1)
            end = _add_months(date(year if self.month_to >= month else year + 1, self.month_to, 1), 1)
        elif self.week is not None:
            start, end = _week(year, month, self.week)
        elif month is not None and self.day is not None:
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


def _week(year: int, month: int | None, week: int) -> tuple[date, date]:
    """Week n of a month (or of a year) counted from its first day: days 1-7, 8-14, ...; -1 is the last 7 days."""
    first = date(year, month or 1, 1)
    last = _add_months(first, 1 if month else 12)
    if week < 0:
        return last - timedelta(days=7), last
    start = first + timedelta(days=7 * (week - 1))
    return start, min(start + timedelta(days=7), last)


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
_KO_YEAR = re.compile(r"(\d{4})\s*년(?:도)?(?!\s*\d{1,2}\s*월)")
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


_BIRTH_KO = re.compile(
    r"(\d{4}|\d{2})\s*년대\s*생|(\d{4}|\d{2})\s*년?\s*(?:~|-|–|부터)\s*(\d{4}|\d{2})\s*년\s*생|(\d{4}|\d{2})\s*년\s*생")
_BIRTH_EN = re.compile(
    r"\bborn\s+(?:in\s+)?(?:the\s+)?(?:(\d{4})s|(?:between\s+|from\s+)?(\d{4})\s*(?:-|–|and|to|through)\s*(\d{4})"
    r"|(\d{4}))\b", re.I)
_YEAR_RANGE = re.compile(
    r"(?:between\s+|from\s+)?((?:19|20)\d{2})\s*(?:년\s*)?(?:~|–|-|부터|에서|and|to|through)\s*((?:19|20)\d{2})\s*"
    r"(?:년\s*)?(?:까지|사이)?", re.I)
_KO_MONTH_RANGE = re.compile(
    r"(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(?:부터|~|-|–|에서)\s*(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(?:까지|사이)?")
_EN_MONTH_RANGE = re.compile(
    r"\b(?:from|between)\s+(" + "|".join(_EN_MONTHS) + r")\s*(\d{4})?\s*(?:-|–|and|to|through|until)\s*("
    + "|".join(_EN_MONTHS) + r")\s*,?\s*(\d{4})?", re.I)
_WEEK_KO = re.compile(r"(첫|첫째|둘째|셋째|넷째|마지막)\s*(?:째\s*)?주(?![가-힣])")
_WEEK_EN = re.compile(r"\b(first|second|third|fourth|last|final)\s+week(?:\s+of)?\b", re.I)
_WEEK_N = {"첫": 1, "첫째": 1, "둘째": 2, "셋째": 3, "넷째": 4, "마지막": -1, "first": 1, "second": 2, "third": 3,
           "fourth": 4, "last": -1, "final": -1}
_EN_ISO_SIDE = re.compile(rf"\b(on or after|on or before|after|since|from|before|until|through|by)\s+{_ISO}", re.I)
_EN_QUARTER = re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b", re.I)
_QUARTER_N = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_HOUR = re.compile(
    r"(?:(오전|오후)\s*(\d{1,2})\s*시|(\d{1,2})\s*시)\s*(이후|부터|이전|전|까지)?"
    r"|\b(after|before|since|until|from)?\s*(\d{1,2})\s*(?::00)?\s*(am|pm|o'clock)\b", re.I)


def _year(text: str) -> int:
    """'90' -> 1990, '05' -> 2005: two-digit birth years as Koreans write them ('90년생')."""
    y = int(text)
    return y if y >= 100 else (1900 + y if y > 30 else 2000 + y)


def _birth(text: str) -> DateExpr | None:
    """'1990년대생', '1955~1956년생', '90년생', 'born in the 1990s': a range on a birth-date column."""
    m = _BIRTH_KO.search(text) or _BIRTH_EN.search(text)
    if m is None:
        return None
    decade, first, last, single = m[1], m[2], m[3], m[4]
    if decade:
        start, end = _year(decade), _year(decade) + 10
    elif first:
        start, end = _year(first), _year(last) + 1
    else:
        start = _year(single)
        end = start + 1
    d = DateExpr(start=date(start, 1, 1), end=date(end, 1, 1), column_hint="birth")
    d.spans.append(m.span())
    return d


def _hour(text: str) -> tuple[tuple[str, int], tuple[int, int]] | None:
    """'오후 3시 이후', 'after 3pm': an hour of the day, which only a timestamp column can answer."""
    m = _HOUR.search(text)
    if m is None:
        return None
    if m[6]:
        hour = int(m[6]) % 12 + (12 if m[7].lower() == "pm" else 0)
        side = {"after": "since", "since": "since", "from": "since", "before": "before", "until": "before"}.get(
            (m[5] or "").lower(), "at")
    else:
        hour = int(m[2] or m[3]) + (12 if m[1] == "오후" and int(m[2]) < 12 else 0)
        sides = {"이후": "since", "부터": "since", "이전": "before", "전": "before", "까지": "before"}
        side = sides.get(m[4] or "", "at")
    return (side, hour), m.span()


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
    d = _birth(text) or _day_range(text)
    if d is not None:
        return d
    d = DateExpr()
    found = False
    if hit := _hour(text):
        d.hour, span = hit
        d.spans.append(span)
        text = text[: span[0]] + " " * (span[1] - span[0]) + text[span[1]:]
        found = True
    if m := _EN_ISO_SIDE.search(text):
        day = date(int(m[2]), int(m[3]), int(m[4]))
        side = m[1].lower()
        if side in ("after",):
            d.start = day + timedelta(days=1)
        elif side in ("since", "from", "on or after"):
            d.start = day
        elif side == "before":
            d.end = day
        else:
            d.end = day + timedelta(days=1)
        d.spans.append(m.span())
        return d
    if m := _YEAR_RANGE.search(text):
        d.start, d.end = date(int(m[1]), 1, 1), date(int(m[2]) + 1, 1, 1)
        d.spans.append(m.span())
        return d
    if (m := _KO_MONTH_RANGE.search(text)) or (m := _EN_MONTH_RANGE.search(text)):
        months = [int(m[2]), int(m[4])] if m.re is _KO_MONTH_RANGE else [
            _EN_MONTHS[m[1].lower()], _EN_MONTHS[m[3].lower()]]
        years = (m[1], m[3]) if m.re is _KO_MONTH_RANGE else (m[2], m[4])
        d.month, d.month_to = months
        d.spans.append(m.span())
        year_text = years[0] or years[1] or (_ANY_YEAR.search(text) or [None, None])[1]
        if year_text:
            d.year = int(year_text)
            for y in _ANY_YEAR.finditer(text):
                d.spans.append(y.span())
        else:
            d.year_rel = 0
        return d
    if (w := _WEEK_KO.search(text)) or (w := _WEEK_EN.search(text)):
        d.week = _WEEK_N[w[1].lower()]
        d.spans.append(w.span())
        text = text[: w.start()] + " " * (w.end() - w.start()) + text[w.end():]
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
    if d.month is None and (m := _KO_QUARTER.search(text) or _EN_QUARTER.search(text)):
        d.quarter = int(m[1] or m[2]) if m.re is _KO_QUARTER else _QUARTER_N[m[1].lower()]
        d.spans.append(m.span())
        found = True
    if d.month is None and d.quarter is None and (m := _KO_HALF.search(text)):
        word = m[1].lower()
        d.half = 1 if word in ("상반기", "first half", "h1") else 2
        d.spans.append(m.span())
        found = True
    if d.week is not None and d.month is None and d.year is None and d.year_rel is None:
        d.year_rel = 0
    return d if found or d.week is not None else None
