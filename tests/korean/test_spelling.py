"""Everyday misspellings put back into standard spelling, by sound rather than by a typo list."""

from __future__ import annotations

import pytest

from graphagents.korean import classify_yes_no, confirmation_intent, loose, respell


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("마자요", "맞아요"), ("네 마자요", "네 맞아요"), ("괜차나요", "괜찮아요"), ("조아요", "좋아요"),
        ("시러요", "싫어요"), ("업서요", "없어요"), ("이써요", "있어요"), ("알게써요", "알겠어요"),
        ("해주새요", "해주세요"), ("신청해주새요", "신청해주세요"), ("바꿔주새요", "바꿔주세요"),
        ("해주세여", "해주세요"), ("차단해주새여", "차단해주세요"), ("할께요", "할게요"), ("받을께요", "받을게요"),
        ("됬어요", "됐어요"), ("안되요", "안돼요"),
    ],
)
def test_respell(text: str, expected: str) -> None:
    assert respell(text) == expected


@pytest.mark.parametrize(
    "text", ["맞아요", "김민수예요", "길은호입니다", "010-1234-5678", "OTP로 할게요", "했어요", "여기요", "여보세요"]
)
def test_standard_text_is_left_alone(text: str) -> None:
    assert respell(text) == text


def test_loose_merges_confused_vowels_one_for_one() -> None:
    assert loose("인터넷벵킹") == loose("인터넷뱅킹")
    assert loose("해주새요") == loose("해주세요")
    assert len(loose("인터넷벵킹은 OTP")) == len("인터넷벵킹은 OTP")


def test_respelled_answers_are_understood() -> None:
    assert classify_yes_no(respell("마자요")) == "yes"
    assert confirmation_intent(respell("네 마자요")) == "confirmed"
