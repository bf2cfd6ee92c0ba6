"""Confirmation intents without fields: confirmed, needs a change, or unclear."""

from __future__ import annotations

import pytest

from graphagents.korean import confirmation_cues, confirmation_intent


@pytest.mark.parametrize(
    "text", ["네", "네 맞아요", "맞습니다", "수정할 거 없어요", "그대로 진행해 주세요", "어 맞아요", "ㅇㅇ"]
)
def test_confirmed(text: str) -> None:
    assert confirmation_intent(text) == "confirmed"


@pytest.mark.parametrize("text", ["아니요", "틀렸어요", "네 근데 번호가 틀렸어요", "다시 알려드릴게요", "바꿔 주세요"])
def test_needs_correction(text: str) -> None:
    assert confirmation_intent(text) == "needs_correction"


@pytest.mark.parametrize("text", ["어...", "잠깐만요", "맞나요?", "네 근데 하나 물어볼게요", "날씨 좋네요"])
def test_unclear(text: str) -> None:
    assert confirmation_intent(text) == "unclear"


def test_cues_report_both_sides() -> None:
    cues = confirmation_cues("네 근데 번호가 틀렸어요")
    assert cues.confirms and cues.corrects
