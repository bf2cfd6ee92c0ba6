"""A hesitation is not an answer: it must never move a confirmation or a yes/no question on."""

from __future__ import annotations

import pytest

from graphagents.agents.slotfill.nlu import SlotSpec, classify_confirmation
from graphagents.korean import classify_yes_no

FIELDS = {"customer_name": SlotSpec("customer_name", "person_name", ("이름", "성함"))}


HESITATIONS = ["어...", "어…", "음", "음...", "흠", "어 잠깐만요", "잠시만요",
               "글쎄요", "생각 좀 해볼게요", "잘 모르겠어요", "으음"]


@pytest.mark.parametrize("text", HESITATIONS)
def test_hesitations_are_neither_yes_nor_no_nor_confirmation(text: str) -> None:
    assert classify_yes_no(text) is None
    assert classify_confirmation(text, FIELDS).intent == "unclear"


@pytest.mark.parametrize("text", ["어", "어 맞아요", "어 그래", "어어 좋아요"])
def test_a_casual_eo_is_still_a_yes(text: str) -> None:
    assert classify_yes_no(text) == "yes"
    assert classify_confirmation(text, FIELDS).intent == "confirmed"


@pytest.mark.parametrize("text", ["다시 설정할래요", "다시 고를게요", "다시 선택하고 싶어요"])
def test_wanting_to_set_it_again_is_a_correction(text: str) -> None:
    assert classify_confirmation(text, FIELDS).intent == "needs_correction"
