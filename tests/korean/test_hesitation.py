"""Hesitations hold the turn; an answer that starts with one is still an answer."""

from __future__ import annotations

import pytest

from graphagents.korean import classify_repair, is_hesitation, strip_hesitation


@pytest.mark.parametrize(
    "text", ["어...", "음", "흠", "어 잠깐만요", "잠시만요", "글쎄요", "생각 좀 해볼게요", "잘 모르겠어요",
             "네 잠깐만요", "생각할 시간 좀 주세요", "음... 잠깐만요"],
)
def test_hesitations(text: str) -> None:
    assert is_hesitation(text)


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("아 잠깐, 전화번호 잘못 말했어요", "전화번호 잘못 말했어요"),
        ("잠깐만요, 연락처는 010-1111-2222로 바꿔 주세요", "연락처는 010-1111-2222로 바꿔 주세요"),
        ("잠깐만요 틀린 게 있어요", "틀린 게 있어요"),
        ("음 그냥 다음에 할게요", "그냥 다음에 할게요"),
        ("어 맞아요", "맞아요"),
    ],
)
def test_an_answer_after_a_filler_is_no_hesitation(text: str, rest: str) -> None:
    assert not is_hesitation(text)
    assert strip_hesitation(text) == rest


@pytest.mark.parametrize("text", ["어", "네", "잠깐만요"])
def test_nothing_left_keeps_the_text(text: str) -> None:
    assert strip_hesitation(text) == text


@pytest.mark.parametrize(
    "text",
    ["상담원은 필요 없어요", "아니요 상담원 연결은 안 해도 돼요", "상담원 말고 계속할게요", "상담원 연결 없이 할게요"],
)
def test_declining_a_person_is_no_handoff(text: str) -> None:
    assert classify_repair(text, expecting_yes_no=True) != "handoff"
