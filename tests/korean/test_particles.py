"""Particle choice after a value, and the noun under particles, copulas and endings."""

from __future__ import annotations

import pytest

from graphagents.korean import fix_particles, has_final_consonant, strip_endings, strip_particles


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("연락처을(를) 바꿨어요", "연락처를 바꿨어요"),
        ("성함을(를)", "성함을"),
        ("300만원(으)로", "300만원으로"),
        ("1일(으)로", "1일로"),
        ("URL(으)로", "URL로"),
        ("10(으)로", "10으로"),  # 십: ㅂ final, not ㄹ
        ("OTP은(는)", "OTP는"),
        ("1일 이체한도(300만원)은(는)", "1일 이체한도(300만원)는"),
        ("보안카드이(가)", "보안카드가"),
    ],
)
def test_fix_particles(text: str, expected: str) -> None:
    assert fix_particles(text) == expected


def test_final_consonants() -> None:
    assert has_final_consonant("김") is True and has_final_consonant("수") is False
    assert has_final_consonant("3") is True and has_final_consonant("2") is False
    assert has_final_consonant("!") is None


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("길은호예요", "길은호"), ("길은호입니다", "길은호"), ("이서연이고요", "이서연"), ("김민준이에요", "김민준"),
        ("김민수예요", "김민수"), ("최지우라고 합니다", "최지우"), ("김민수고", "김민수"), ("박지민이요", "박지민"),
        ("김민준이고,", "김민준"), ("홍길동", "홍길동"), ("김하이", "김하이"),
    ],
)
def test_strip_endings(word: str, stem: str) -> None:
    assert strip_endings(word) == stem


@pytest.mark.parametrize(
    ("word", "stem"),
    [("인터넷뱅킹은", "인터넷뱅킹"), ("보안카드로", "보안카드"), ("모바일OTP로", "모바일OTP"),
     ("평생계좌는", "평생계좌"), ("김민수가", "김민수"), ("은", "은")],
)
def test_strip_particles(word: str, stem: str) -> None:
    assert strip_particles(word) == stem
