"""Calendar dates as written: full, dotted, dashed, two-digit years, month ends, no year; nothing
relative, nothing impossible."""

from __future__ import annotations

from datetime import date

import pytest

from graphagents.korean import find_dates


@pytest.mark.parametrize(("text", "expected"), [
    ("계약은 2024년 12월 31일에 끝나요", [date(2024, 12, 31)]),
    ("만기 2027.1.15 입니다", [date(2027, 1, 15)]),
    ("만기 2027. 1. 15.", [date(2027, 1, 15)]),
    ("2026-07-09부터", [date(2026, 7, 9)]),
    ("2026/7/9", [date(2026, 7, 9)]),
    ("24년 5월 3일에 입주", [date(2024, 5, 3)]),
    ("2024년 2월 말", [date(2024, 2, 29)]),  # a leap year's month end
    ("2025년 2월 말일", [date(2025, 2, 28)]),
    ("2025년 4월 1일부터 2027년 3월 31일까지", [date(2025, 4, 1), date(2027, 3, 31)]),
])
def test_written_dates(text: str, expected: list[date]) -> None:
    assert [d.value for d in find_dates(text)] == expected


def test_a_date_without_a_year_keeps_none() -> None:
    (d,) = find_dates("4월 30일에 나가요")
    assert (d.year, d.month, d.day, d.value, d.korean()) == (None, 4, 30, None, "4월 30일")


@pytest.mark.parametrize("text", ["2025년 2월 29일", "2월 30일", "13월 1일", "지난달 말에 끝났어요", "다음 주 화요일",
                                  "010-2345-6789", "보증금 3.5억", "금리 2.5%", "3년 2개월"])
def test_no_date(text: str) -> None:
    assert find_dates(text) == []


def test_spans_index_the_normalised_text() -> None:
    text = "종료일은 2026.3.31"
    (d,) = find_dates(text)
    assert text[d.start:d.end] == "2026.3.31" and d.korean() == "2026년 3월 31일"
