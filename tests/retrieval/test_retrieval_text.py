from __future__ import annotations

import pytest

from graphagents.retrieval import chunk_text, sentences, terms


def test_english_terms_are_lowercased_words_without_stopwords() -> None:
    assert terms("What are the Symptoms of Type 2 Diabetes?") == ["what", "symptoms", "type", "2", "diabetes"]
    assert terms("COVID-19 in the U.S.") == ["covid", "19"]


def test_korean_terms_are_content_morphemes() -> None:
    got = terms("당뇨병 환자의 공복혈당이 180이에요")
    assert {"당뇨병", "환자", "공복", "혈당", "180"} <= set(got)
    assert not {"의", "이", "에요"} & set(got)
    assert terms("당뇨병이") == terms("당뇨병은") == ["당뇨병"]


def test_mixed_text_gives_english_words_the_same_terms() -> None:
    assert {"metformin", "부작용"} <= set(terms("Metformin의 부작용"))
    assert "metformin" in terms("side effects of metformin")
    assert {"500", "mg"} <= set(terms("타이레놀 500mg"))


def test_sentences_respect_abbreviations_and_lines() -> None:
    text = "Dr. Kim saw him, e.g. on Monday. It was fine! Next?\n\n두 번째 문단입니다. 끝."
    assert sentences(text) == ["Dr. Kim saw him, e.g. on Monday.", "It was fine!", "Next?",
                               "두 번째 문단입니다.", "끝."]


def test_chunks_pack_whole_sentences_with_overlap() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(60))
    chunks = chunk_text(text, max_chars=200, overlap_chars=60)
    assert all(len(c) <= 200 for c in chunks) and len(chunks) > 5
    for c in chunks:
        assert c.startswith("Sentence number") and c.endswith("is here.")  # never a cut sentence
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert a.split(". ")[-1] in b  # the last sentence of a chunk opens the next one
    words = [w for c in chunks for w in c.split()]
    assert all(f"{i}" in words for i in range(60))  # nothing lost


def test_chunks_hard_wrap_an_overlong_sentence() -> None:
    long = "word " * 100
    chunks = chunk_text(long, max_chars=120, overlap_chars=0)
    assert all(len(c) <= 120 for c in chunks) and "".join(chunks).replace(" ", "") == long.replace(" ", "")


def test_chunk_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_text("x", max_chars=100, overlap_chars=60)
    assert chunk_text("short text.") == ["short text."]
    assert chunk_text("   ") == []
