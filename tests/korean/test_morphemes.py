"""Content morphemes for BM25."""

from __future__ import annotations

from graphagents.korean import morphemes


def test_particles_and_endings_are_dropped() -> None:
    assert morphemes("타이레놀을 먹어도 되나요?") == ["타이레놀", "먹"]
    assert morphemes("타이레놀 복용") == ["타이레놀", "복용"]


def test_numbers_and_units_are_kept() -> None:
    assert morphemes("500mg") == ["500", "mg"]


def test_english_words_are_lower_cased_as_they_are() -> None:
    assert morphemes("COVID Vaccine 부작용") == ["covid", "vaccine", "부작용"]


def test_repeats_are_kept_for_term_frequency() -> None:
    assert morphemes("약 먹고 또 약") == ["약", "먹", "약"]


def test_nothing_from_nothing() -> None:
    assert morphemes("") == [] and morphemes("   ") == []
    assert morphemes("?!.") == []
