"""Closed choices with synonyms: the most specific mention wins, rejected choices do not count."""

from __future__ import annotations

import pytest

from graphagents.agents.slotfill.nlu import match_enum

MEDIUM = {
    "OTP": ["otp", "오티피", "일회용 비밀번호 생성기"],
    "보안카드": ["보안 카드", "카드"],
    "모바일OTP": ["모바일 otp", "모바일오티피", "폰 otp", "스마트 otp"],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OTP로 할게요", "OTP"),
        ("otp요", "OTP"),
        ("오티피로 해주세요", "OTP"),
        ("일회용 비밀번호 생성기요", "OTP"),
        ("보안카드요", "보안카드"),
        ("보안 카드로 할게요", "보안카드"),
        ("카드로 주세요", "보안카드"),
        ("모바일 OTP", "모바일OTP"),
        ("모바일 OTP로 할게요", "모바일OTP"),
        ("모바일otp", "모바일OTP"),
        ("모바일 오티피요", "모바일OTP"),
        ("폰 OTP로", "모바일OTP"),
        ("스마트OTP 쓸게요", "모바일OTP"),
        ("ＯＴＰ요", "OTP"),  # full-width letters
        ("보안카드 말고 OTP로 해주세요", "OTP"),
        ("OTP 말고 보안카드요", "보안카드"),
        ("OTP가 아니라 모바일 OTP요", "모바일OTP"),
        ("OTP랑 보안카드 중에 보안카드로 할게요", "보안카드"),
        ("모바일 OTP로 할게요 보안카드는 없어요", "모바일OTP"),
    ],
)
def test_match_enum(text: str, expected: str) -> None:
    assert match_enum(text, MEDIUM) == expected


@pytest.mark.parametrize("text", ["", "네", "아무거나요", "잘 모르겠어요", "OTP는 안 쓸래요", "보안카드 말고요"])
def test_no_choice(text: str) -> None:
    assert match_enum(text, MEDIUM) is None


def test_short_ascii_synonyms_need_word_boundaries() -> None:
    choices = {"Y": ["y"], "N": ["n"]}
    assert match_enum("y", choices) == "Y"
    assert match_enum("my account", choices) is None


def test_canonical_value_is_its_own_synonym() -> None:
    assert match_enum("일반형으로요", {"일반형": [], "절약형": ["아끼는 거"]}) == "일반형"
