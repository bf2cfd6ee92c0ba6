"""Date phrases ("2024년 3월", "작년 상반기", "최근 3개월", "Q1 2024") as half-open date ranges.

Relative words are resolved against the *latest date in the data*, not against today's clock: a
demo or archive database that ends in 2024 would otherwise answer "올해" with an empty 2026, and
the same question would change its answer from one day to the next. The reason text names the
anchor so a user sees which year "작년" meant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from . import date_patterns as P

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


def _year(text: str) -> int:
    """'90' -> 1990, '05' -> 2005: two-digit birth years as Koreans write them ('90년생')."""
    y = int(text)
    return y if y >= 100 else (1900 + y if y > 30 else 2000 + y)


def _birth(text: str) -> DateExpr | None:
    """'1990년대생', '1955~1956년생', '90년생', 'born in the 1990s': a range on a birth-date column."""
    m = P.BIRTH_KO.search(text) or P.BIRTH_EN.search(text)
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
    m = P.HOUR.search(text)
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


def _day_range(text: str) -> DateExpr | None:
    """'1월 1일부터 7일까지', 'January 1-7' (year from elsewhere in the question): an inclusive day span."""
    if m := P.KO_DAY_RANGE.search(text):
        year_text, m1, d1, m2, d2 = m[1], int(m[2]), int(m[3]), m[4], int(m[5])
    elif m := P.EN_DAY_RANGE.search(text):
        m1, d1, d2 = P.EN_MONTHS[m[1].lower()], int(m[2]), int(m[4])
        m2 = str(P.EN_MONTHS[m[3].lower()]) if m[3] else None
        year_text = m[5]
    else:
        return None
    year_hit = year_text or (P.ANY_YEAR.search(text) or [None, None])[1]
    if year_hit is None:
        return None
    year = int(year_hit)
    d = DateExpr(start=date(year, m1, d1), end=date(year, int(m2) if m2 else m1, d2) + timedelta(days=1))
    d.spans.append(m.span())
    for y in P.ANY_YEAR.finditer(text):  # the year said elsewhere is part of the same expression
        d.spans.append(y.span())
    return d


def find_dates(text: str) -> DateExpr | None:
    """Find at most one date expression; the spans let the parser mask these words out.

    Whole expressions first (a birth range, a day span); then an hour of the day; then the
    one-shot forms (ISO bounds, year and month ranges, ISO days, "최근 3개월"), any of which ends the
    search; last the calendar words that combine ("2024년" + "3분기", "작년" + "상반기", a week).
    """
    whole = _birth(text) or _day_range(text)
    if whole is not None:
        return whole
    d = DateExpr()
    text = _take_hour(d, text)
    if _iso_side(d, text) or _year_range(d, text) or _month_range(d, text):
        return d
    text = _take_week(d, text)
    if _iso_range(d, text) or _iso_day(d, text) or _last_n(d, text):
        return d
    _year_or_relative(d, text)
    _month(d, text)
    _quarter_or_half(d, text)
    if d.week is not None and d.month is None and d.year is None and d.year_rel is None:
        d.year_rel = 0  # "첫째 주" alone: of this year
    return d if d.spans else None


def _blank(text: str, span: tuple[int, int]) -> str:
    return text[: span[0]] + " " * (span[1] - span[0]) + text[span[1]:]


def _take_hour(d: DateExpr, text: str) -> str:
    if hit := _hour(text):
        d.hour, span = hit
        d.spans.append(span)
        return _blank(text, span)
    return text


def _take_week(d: DateExpr, text: str) -> str:
    """'첫째 주', 'the last week of': which week; the month or year comes from the other words."""
    if (w := P.WEEK_KO.search(text)) or (w := P.WEEK_EN.search(text)):
        d.week = P.WEEK_N[w[1].lower()]
        d.spans.append(w.span())
        return _blank(text, w.span())
    return text


def _iso_side(d: DateExpr, text: str) -> bool:
    """'after 2024-06-30', 'on or before 2024-01-05': one open side."""
    if not (m := P.EN_ISO_SIDE.search(text)):
        return False
    day = date(int(m[2]), int(m[3]), int(m[4]))
    side = m[1].lower()
    if side == "after":
        d.start = day + timedelta(days=1)
    elif side in ("since", "from", "on or after"):
        d.start = day
    elif side == "before":
        d.end = day
    else:
        d.end = day + timedelta(days=1)
    d.spans.append(m.span())
    return True


def _year_range(d: DateExpr, text: str) -> bool:
    """'2022~2023년', 'between 2021 and 2023': whole years, both inclusive."""
    if not (m := P.YEAR_RANGE.search(text)):
        return False
    d.start, d.end = date(int(m[1]), 1, 1), date(int(m[2]) + 1, 1, 1)
    d.spans.append(m.span())
    return True


def _month_range(d: DateExpr, text: str) -> bool:
    """'2023년 10월부터 12월까지', 'from March to May 2023'; without a year, this year."""
    if (m := P.KO_MONTH_RANGE.search(text)) is not None:
        months, years = [int(m[2]), int(m[4])], (m[1], m[3])
    elif (m := P.EN_MONTH_RANGE.search(text)) is not None:
        months, years = [P.EN_MONTHS[m[1].lower()], P.EN_MONTHS[m[3].lower()]], (m[2], m[4])
    else:
        return False
    d.month, d.month_to = months
    d.spans.append(m.span())
    year_text = years[0] or years[1] or (P.ANY_YEAR.search(text) or [None, None])[1]
    if year_text:
        d.year = int(year_text)
        d.spans += [y.span() for y in P.ANY_YEAR.finditer(text)]
    else:
        d.year_rel = 0
    return True


def _iso_range(d: DateExpr, text: str) -> bool:
    """'2024-01-05부터 2024-01-09까지', 'between 2024-01-05 and 2024-01-09': both days inclusive."""
    if not (m := P.RANGE_ISO.search(text)):
        return False
    d.start = date(int(m[1]), int(m[2]), int(m[3]))
    d.end = date(int(m[4]), int(m[5]), int(m[6])) + timedelta(days=1)
    d.spans.append(m.span())
    return True


def _iso_day(d: DateExpr, text: str) -> bool:
    """'2024-03-01', '2024-03-01 이후', '2024-03-01까지': one day or one open side of it."""
    if not (m := P.SINGLE_ISO.search(text)):
        return False
    day = date(int(m[1]), int(m[2]), int(m[3]))
    side = P.OPEN_KO.get(m[4] or "")
    if side == "since":
        d.start = day
    elif side == "before":
        d.end = day
    elif side == "until":
        d.end = day + timedelta(days=1)
    else:
        d.start, d.end = day, day + timedelta(days=1)
    d.spans.append(m.span())
    return True


def _last_n(d: DateExpr, text: str) -> bool:
    """'최근 3개월', 'past 2 weeks': relative to the data's latest date."""
    if not (m := P.LAST_N.search(text)):
        return False
    d.last_n = (int(m[1]), _unit(m[2]))
    d.spans.append(m.span())
    return True


def _year_or_relative(d: DateExpr, text: str) -> None:
    """'2024년 3월 5일', '2024년(부터)', else '작년' / '지난달', else an English year ('since 2023')."""
    if m := P.KO_YMD.search(text):
        d.year, d.month = int(m[1]), int(m[2])
        d.day = int(m[3]) if m[3] else None
        d.spans.append(m.span())
        return
    if m := P.KO_YEAR.search(text):
        d.year = int(m[1])
        d.spans.append(m.span())
        tail = text[m.end():m.end() + 4].strip()
        for word, side in P.OPEN_KO.items():
            if tail.startswith(word) and not P.KO_QUARTER.search(text) and not P.KO_HALF.search(text):
                d.open_side = side
                d.spans.append((m.end(), m.end() + text[m.end():].find(word) + len(word)))
                break
        return
    low = text.lower()
    relative = False
    for words, attr in ((P.KO_REL_YEAR, "year_rel"), (P.KO_REL_MONTH, "month_rel")):
        for word, rel in words.items():
            if (i := low.find(word)) >= 0:
                setattr(d, attr, rel)
                d.spans.append((i, i + len(word)))
                relative = True
                break
    if not relative and d.hour is None and (m := P.EN_YEAR.search(text)):
        d.year = int(m[2])
        d.open_side = {"since": "since", "from": "since", "after": "after", "before": "before",
                       "until": "until"}.get((m[1] or "").lower())
        d.spans.append(m.span())


def _month(d: DateExpr, text: str) -> None:
    """'3월', 'March 2024', 'Mar.' (but not the verb 'may')."""
    if d.month is not None or d.month_rel is not None:
        return
    if m := P.KO_MONTH_ONLY.search(text):
        d.month = int(m[1])
        d.spans.append(m.span())
        return
    for m in P.EN_MONTH_RE.finditer(text):
        name = m[1].lower()
        month = P.EN_MONTHS.get(name) or next(
            (i for full, i in P.EN_MONTHS.items() if len(name) == 3 and full.startswith(name)), None)
        if month is None or name == "may" and not m[2]:
            continue
        d.month = month
        if m[2]:
            d.year = int(m[2])
        d.spans.append(m.span())
        return


def _quarter_or_half(d: DateExpr, text: str) -> None:
    """'3분기', 'Q3', 'third quarter'; else '상반기', 'second half'."""
    if d.month is not None:
        return
    if m := P.KO_QUARTER.search(text) or P.EN_QUARTER.search(text):
        d.quarter = int(m[1] or m[2]) if m.re is P.KO_QUARTER else P.QUARTER_N[m[1].lower()]
        d.spans.append(m.span())
    elif m := P.KO_HALF.search(text):
        d.half = 1 if m[1].lower() in ("상반기", "first half", "h1") else 2
        d.spans.append(m.span())
