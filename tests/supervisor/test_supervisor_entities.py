"""The entity extractor: each number gets the role the sentence gives it; sizes map to 전용면적."""

from __future__ import annotations

import pytest

from graphagents.agents.supervisor.entities import old_and_new
from graphagents.agents.supervisor.offline.entities import extract_entities


def roles(query: str) -> list[tuple[str, int]]:
    return [(a["role"], a["manwon"]) for a in extract_entities(query).get("amounts", [])]


@pytest.mark.parametrize(("query", "expected"), [
    ("전세 보증금 3억인데 갱신할 때 얼마까지 올릴 수 있어?", [("deposit", 30_000)]),
    ("보증금 3억 5천에 월세 80만원", [("deposit", 35_000), ("monthly_rent", 80)]),
    ("연봉 6천에 8억짜리 아파트 사려면", [("income", 6_000), ("price", 80_000)]),
    ("근저당 2억 잡힌 집에 보증금 4억 전세", [("senior_debt", 20_000), ("deposit", 40_000)]),
    ("보증금 2억 중 1억을 월세로 돌리려는데", [("deposit", 20_000), ("converted", 10_000)]),
    ("6억짜리 아파트 매매하면 중개보수 상한이 얼마야?", [("price", 60_000)]),
])
def test_amounts_get_their_roles(query: str, expected: list[tuple[str, int]]) -> None:
    assert roles(query) == expected


def test_old_and_new_rent_follow_the_sentence_not_the_order() -> None:
    ents = extract_entities("월세 100만원에 다른 사람을 들였어. 나는 월세 80만원이었는데")
    assert old_and_new(ents, "monthly_rent") == (80, 100)


@pytest.mark.parametrize(("query", "sigungu"), [
    ("강남구 30평대 아파트", "강남구"), ("잠실 아파트 시세", "송파구"), ("반포 전세", "서초구"),
    ("집주인이 안 돌려줘", None),
])
def test_regions_and_neighbourhoods(query: str, sigungu: str | None) -> None:
    assert (extract_entities(query).get("region") or {}).get("sigungu") == sigungu


@pytest.mark.parametrize(("query", "inside", "outside"), [
    ("30평대 아파트", [74.8, 84.9], [59.9, 101.9]),  # 평형 (supply) -> 전용
    ("84㎡ 아파트", [84.9], [74.8, 101.9]),
    ("25평 아파트", [59.9], [74.8]),
])
def test_spoken_sizes_become_exclusive_area_bands(query: str, inside: list[float], outside: list[float]) -> None:
    area = extract_entities(query)["area"]
    for m2 in inside:
        assert area["min_m2"] <= m2 <= area["max_m2"]
    for m2 in outside:
        assert not area["min_m2"] <= m2 <= area["max_m2"]
    assert "전용면적" in area["basis"]


def test_dates_percentages_periods_and_buyer() -> None:
    ents = extract_entities("생애최초로 사는데 최근 6개월, 계약 만료일이 2026년 9월 30일, 10% 인상, 5개월 남았어")
    assert ents["dates"] == ["2026-09-30"] and ents["percents"] == [10.0]
    assert ents["months"] == 6 and ents["months_left"] == 5 and ents["buyer"] == "first_home"
    assert "dates" not in extract_entities("2026년 2월 30일")  # not a date
