"""Doses with units: strengths, counts, frequencies and intervals, in Korean and English."""

from __future__ import annotations

import pytest

from graphagents.korean import parse_doses


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("500mg", ["500mg"]),
        ("10 mg", ["10mg"]),
        ("1,000mg", ["1000mg"]),
        ("0.5g", ["0.5g"]),
        ("500㎎", ["500mg"]),
        ("500 밀리그램", ["500mg"]),
        ("1정", ["1정"]),
        ("한 알", ["1정"]),
        ("반 알", ["0.5정"]),
        ("한 알 반", ["1.5정"]),
        ("2 tablets", ["2정"]),
        ("one capsule", ["1캡슐"]),
        ("하루 두 번", ["2회/day"]),
        ("하루에 2번", ["2회/day"]),
        ("1일 3회", ["3회/day"]),
        ("일주일에 한 번", ["1회/week"]),
        ("twice a day", ["2회/day"]),
        ("three times a day", ["3회/day"]),
        ("once daily", ["1회/day"]),
        ("8시간마다", ["8h"]),
        ("every 6 hours", ["6h"]),
        ("타이레놀 500mg 한 알씩 하루 세 번 먹어요", ["500mg", "1정", "3회/day"]),
        ("Take 1 tablet of 500 mg twice a day", ["1정", "500mg", "2회/day"]),
        ("인슐린 10단위", ["10IU"]),
    ],
)
def test_doses(text: str, keys: list[str]) -> None:
    assert [d.key for d in parse_doses(text)] == keys


def test_kinds() -> None:
    doses = parse_doses("500mg 1정 하루 두 번 8시간마다")
    assert [d.kind for d in doses] == ["strength", "count", "frequency", "interval"]


@pytest.mark.parametrize(
    "text",
    ["네 알겠습니다", "두 번째 질문이요", "2~3정", "500~1000mg", "하루 2~3번", "세 시간 뒤에", "번호가 틀렸어요",
     "1일", "한 개"],
)
def test_not_a_dose(text: str) -> None:
    assert parse_doses(text) == []


def test_a_different_dose_gives_a_different_key() -> None:
    """The semantic cache keys on these: 500mg and 1000mg must never share an answer."""
    assert parse_doses("타이레놀 500mg 하루 몇 번?")[0].key != parse_doses("타이레놀 1000mg 하루 몇 번?")[0].key
