"""Mobile numbers typed or spoken, normalised, and masked for logs."""

from __future__ import annotations

import pytest

from graphagents.korean import (
    extract_phone,
    find_phone_parts,
    find_phones,
    mask_phone,
    mask_phones_in_text,
    with_phone_part,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("010-1234-5678", "010-1234-5678"),
        ("01012345678", "010-1234-5678"),
        ("010 1234 5678", "010-1234-5678"),
        ("010.1234.5678", "010-1234-5678"),
        ("010 - 1234 - 5678", "010-1234-5678"),
        ("공일공 일이삼사 오육칠팔", "010-1234-5678"),
        ("영일영 일이삼사 오육칠팔", "010-1234-5678"),
        ("공일공일이삼사오육칠팔", "010-1234-5678"),
        ("공 일 공 일 이 삼 사 오 육 칠 팔", "010-1234-5678"),
        ("010 일이삼사 5678", "010-1234-5678"),
        ("빵일빵 구팔칠육 오사삼이", "010-9876-5432"),
        ("011-123-4567", "011-123-4567"),
        ("0111234567", "011-123-4567"),
        ("016-1234-5678", "016-1234-5678"),
        ("017 123 4567", "017-123-4567"),
        ("018-9999-0000", "018-9999-0000"),
        ("019-555-1234", "019-555-1234"),
        ("+82 10-1234-5678", "010-1234-5678"),
        ("번호는 공일공 일이삼사 오육칠팔이에요", "010-1234-5678"),
        ("01012345678이에요", "010-1234-5678"),
        ("010-1234-5678 이에요", "010-1234-5678"),
        ("공일공일이삼사오육칠팔이요", "010-1234-5678"),
        ("제 번호는 010-9876-5432입니다", "010-9876-5432"),
        ("김민수, 010-1111-2222", "010-1111-2222"),
        ("번호가 틀렸어요 010-9876-5432", "010-9876-5432"),
        ("공일공 구팔칠육 오사삼이구요", "010-9876-5432"),
    ],
)
def test_extract_phone(text: str, expected: str) -> None:
    assert extract_phone(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "이름은 김민수",
        "02-123-4567",  # a landline, not a mobile number
        "123-4567",
        "010-1234-567",  # a digit short
        "1회 300만원",
        "0101234567",  # 010 numbers always have 11 digits
        "이사 오일 삼사",
    ],
)
def test_no_phone(text: str) -> None:
    assert extract_phone(text) is None


def test_two_numbers_are_found_separately() -> None:
    found = find_phones("010-1111-2222 010-3333-4444")
    assert [m.number for m in found] == ["010-1111-2222", "010-3333-4444"]


@pytest.mark.parametrize(
    ("phone", "masked"),
    [("010-1234-5678", "010-****-5678"), ("01012345678", "010-****-5678"), ("011-123-4567", "011-***-4567")],
)
def test_mask_phone(phone: str, masked: str) -> None:
    assert mask_phone(phone) == masked


def test_mask_phone_rejects_non_numbers() -> None:
    with pytest.raises(ValueError, match="mobile number"):
        mask_phone("hello")


def test_mask_phones_in_text_keeps_everything_else() -> None:
    line = "user=김민수 phone=01012345678 said '공일공 일이삼사 오육칠팔이에요' at 10:00"
    assert mask_phones_in_text(line) == "user=김민수 phone=010-****-5678 said '010-****-5678이에요' at 10:00"
    assert mask_phones_in_text("no numbers here") == "no numbers here"


@pytest.mark.parametrize(
    ("text", "current", "expected"),
    [
        ("뒷자리가 0183이 아니라 0138이에요", "010-1234-0183", "010-1234-0138"),
        ("끝번호 2016이에요", "010-1234-2061", "010-1234-2016"),
        ("끝자리 일이삼사요", "010-9999-5678", "010-9999-1234"),
        ("마지막 네 자리는 5678", "010-9999-1234", "010-9999-5678"),
        ("가운데 번호는 9876이에요", "010-1234-5678", "010-9876-5678"),
        ("뒷자리 오육칠팔이에요", "010-1234-0000", "010-1234-5678"),
    ],
)
def test_a_group_said_on_its_own(text: str, current: str, expected: str) -> None:
    (part,) = find_phone_parts(text)
    assert with_phone_part(current, part) == expected


def test_a_part_that_names_digits_the_number_lacks_is_not_applied() -> None:
    (part,) = find_phone_parts("뒷자리가 0183이 아니라 0138이에요")
    assert with_phone_part("010-1234-5678", part) is None


@pytest.mark.parametrize("text", ["끝번호가 이상해요", "뒷자리 확인해 주세요", "010-1234-5678", "끝번호 12345"])
def test_no_part(text: str) -> None:
    assert find_phone_parts(text) == []
