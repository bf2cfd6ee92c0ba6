"""The normalisation policy, and the guard that keeps Kiwi alive whatever text comes in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphagents.korean import compact, get_kiwi, morphemes, normalize, scrub, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("０１０－１２３４－５６７８", "010-1234-5678"),  # full-width digits and hyphen from a Korean IME
        ("010\u20101234\u20135678", "010-1234-5678"),  # typographic dashes
        ("\u2212300만원", "-300만원"),  # a minus sign
        ("84㎡", "84m2"),
        ("500㎎", "500mg"),
        ("안녕\u00a0하세요\u3000 네", "안녕 하세요 네"),
        ("인터\u200b넷뱅킹", "인터넷뱅킹"),  # zero-width space
        ("ㅇㅇ", "ㅇㅇ"),  # compatibility jamo are kept: NFKC would make them unreadable as yes
        ("ㄴㄴ 싫어요", "ㄴㄴ 싫어요"),
        ("안녕\x00하세요", "안녕 하세요"),
        ("a\ud800b", "a b"),
        ("  네  \n\n\n 맞아요 ", "네\n\n맞아요"),
        ("OTP", "OTP"),  # case is kept; matchers fold it
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_compact_folds_case_spacing_and_punctuation() -> None:
    assert compact("모바일 OTP로요!") == compact("모바일otp로요") == "모바일otp로요"


def test_scrub_keeps_offsets() -> None:
    text = "안\ud800녕\x00"
    assert len(scrub(text)) == len(text)
    assert scrub(text) == "안 녕 "


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "안녕\u0000", "\ud83d", "네\ud800 맞아요"])
def test_kiwi_never_crashes(text: str) -> None:
    """Issue 8, defect 7: "\\ud800" made kiwipiepy raise UnicodeDecodeError."""
    get_kiwi().tokenize(text)
    get_kiwi().analyze(text)
    get_kiwi().split_into_sents(text)
    tokenize(text)
    morphemes(text)


# hypothesis leaves surrogates out of characters(); broken clients send them, so they are mixed in.
text_with_anything = st.text(
    alphabet=st.one_of(
        st.characters(), st.sampled_from(["\ud800", "\udfff", "\x00", "\u200b", "ㅇ", "㎡", "\n", "가"])
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(text_with_anything)
def test_normalize_is_idempotent_and_safe(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once
    assert "\x00" not in once and not any("\ud800" <= ch <= "\udfff" for ch in once)
    once.encode("utf-8")  # always encodable: PostgreSQL and JSON accept it


@settings(max_examples=200, deadline=None)
@given(text_with_anything)
def test_any_text_goes_through_kiwi(text: str) -> None:
    get_kiwi().tokenize(text)
    tokenize(text)


def test_one_analyser_per_process() -> None:
    from kiwipiepy import Kiwi

    assert get_kiwi() is get_kiwi()
    assert isinstance(get_kiwi(), Kiwi)
