"""Postal addresses inside a sentence, as written; neighbourhood words without a number, and numbers
that count something, are not addresses."""

from __future__ import annotations

import pytest

from graphagents.korean import find_addresses


@pytest.mark.parametrize(("text", "expected"), [
    ("집 주소는 서울특별시 관악구 신림동 1422-7번지 3층이에요", "서울특별시 관악구 신림동 1422-7번지 3층"),
    ("광주 북구 용봉동 99 그린빌 2동 304호에 살아요", "광주 북구 용봉동 99 그린빌 2동 304호"),
    ("목적물: 경기 고양시 일산동구 장항동 864, 보증금 2억", "경기 고양시 일산동구 장항동 864"),
    ("세종시 한누리대로 2130 101동 1201호", "세종시 한누리대로 2130 101동 1201호"),
    ("서울 용산구 한강대로92길 15 B01호", "서울 용산구 한강대로92길 15"),
    ("망원동 45-2의 반지하 집", "망원동 45-2"),
    ("제주 제주시 노형동 산 3-1번지", "제주 제주시 노형동 산 3-1번지"),
])
def test_addresses(text: str, expected: str) -> None:
    assert [a.text for a in find_addresses(text)] == [expected]


@pytest.mark.parametrize("text", ["망원동에 살아요", "신림동 2년 살았어요", "장항동 3억 아파트", "공동 2명이 계약",
                                  "관리비 3개월 밀렸어요", "강남구 30평대", "수리 2번 했어요"])
def test_no_address(text: str) -> None:
    assert find_addresses(text) == []


def test_the_span_is_the_written_text() -> None:
    text = "주소 부산 수영구 광안동 12-34 5층."
    (a,) = find_addresses(text)
    assert text[a.start:a.end] == a.text == "부산 수영구 광안동 12-34 5층"
