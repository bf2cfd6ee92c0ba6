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


def test_search_terms_are_what_retrieval_indexes() -> None:
    """One function for the BM25 terms of every index: retrieval's ``terms`` is this one."""
    from graphagents.korean import search_terms
    from graphagents.retrieval import terms

    assert terms is search_terms
    assert search_terms("Metformin의 부작용은?") == ["metformin", "부작용"]
    assert search_terms("당뇨병이") == search_terms("당뇨병은") == ["당뇨병"]
    assert search_terms("What are the Symptoms of Type 2 Diabetes?") == ["what", "symptoms", "type", "2", "diabetes"]
    assert search_terms("") == [] and search_terms("?!") == []


def test_no_agent_or_core_module_runs_kiwi_by_itself() -> None:
    """Korean morphology lives in graphagents.korean: nobody else calls the analyser directly."""
    import re
    from pathlib import Path

    import graphagents

    root = Path(graphagents.__file__).parent
    own_kiwi = re.compile(r"get_kiwi\(\)\.|kiwipiepy|def \w*morphem")
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.parent.name != "korean" and own_kiwi.search(p.read_text("utf-8"))]
    assert offenders == []
