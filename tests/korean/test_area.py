"""Floor areas: square metres and 평, exact values and ranges."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphagents.korean import PYEONG_M2, m2_to_pyeong, parse_area, pyeong_to_m2


@pytest.mark.parametrize(
    ("text", "m2", "unit"),
    [
        ("84㎡", 84.0, "m2"),
        ("84m2", 84.0, "m2"),
        ("84m²", 84.0, "m2"),
        ("전용 84 제곱미터 아파트", 84.0, "m2"),
        ("59.9㎡짜리", 59.9, "m2"),
        ("34평", 34 * PYEONG_M2, "pyeong"),
        ("34평형 매물", 34 * PYEONG_M2, "pyeong"),
        ("아파트34평이요", 34 * PYEONG_M2, "pyeong"),
        ("삼십사평", 34 * PYEONG_M2, "pyeong"),
        ("25.5평", 25.5 * PYEONG_M2, "pyeong"),
    ],
)
def test_exact_areas(text: str, m2: float, unit: str) -> None:
    area = parse_area(text)
    assert area is not None and area.exact
    assert area.m2 == pytest.approx(m2)
    assert area.unit == unit


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [("30평대", 30, 40), ("30평대 아파트", 30, 40), ("20평대로 찾아 주세요", 20, 30), ("25~30평", 25, 30),
     ("25평에서 30평", 25, 30), ("25-30평", 25, 30)],
)
def test_ranges_in_pyeong(text: str, low: float, high: float) -> None:
    area = parse_area(text)
    assert area is not None and not area.exact
    assert (area.min_m2, area.max_m2) == pytest.approx((low * PYEONG_M2, high * PYEONG_M2))
    assert area.contains(low * PYEONG_M2) and not area.contains(high * PYEONG_M2)


@pytest.mark.parametrize("text", ["평생계좌", "평일에 가요", "평균 가격", "30평 대출", "3억", "84", "m2 단위로", ""])
def test_not_an_area(text: str) -> None:
    area = parse_area(text)
    assert area is None or text == "30평 대출" and area.exact  # "30평 대출" is 30평, never "30평대"


def test_34_pyeong_is_about_112_m2() -> None:
    assert pyeong_to_m2(34) == pytest.approx(112.40, abs=0.01)
    assert m2_to_pyeong(84) == pytest.approx(25.41, abs=0.01)


@given(st.floats(min_value=1, max_value=10_000, allow_nan=False))
def test_conversions_round_trip(m2: float) -> None:
    assert pyeong_to_m2(m2_to_pyeong(m2)) == pytest.approx(m2)
