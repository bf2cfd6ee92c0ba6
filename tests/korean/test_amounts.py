"""Korean won amounts: the numeral grammar, boundaries inside sentences, and formatting."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphagents.korean import find_amounts, format_krw, parse_amount, parse_number


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("삼백만원", 3_000_000),
        ("300만원", 3_000_000),
        ("3백만원", 3_000_000),
        ("1억 2천만원", 120_000_000),
        ("1억2천만원", 120_000_000),
        ("5,000,000원", 5_000_000),
        ("500만", 5_000_000),
        ("오백만 원", 5_000_000),
        ("천만원", 10_000_000),
        ("이천오백만원", 25_000_000),
        ("1.5억", 150_000_000),
        ("백만원", 1_000_000),
        ("5천만원", 50_000_000),
        ("십만원", 100_000),
        ("일억", 100_000_000),
        ("3,000만원", 30_000_000),
        ("만원", 10_000),
        ("만 원", 10_000),
        ("300 만원", 3_000_000),
        ("2천5백만원", 25_000_000),
        ("2.5만원", 25_000),
        ("1만 5천원", 15_000),
        ("만 오천원", 15_000),
        ("1만5천원", 15_000),
        ("12만 3천 4백원", 123_400),
        ("구백구십구만 구천구백구십구원", 9_999_999),
        ("1조 2천억", 1_200_000_000_000),
        ("1억 5000원", 100_005_000),
        ("오천원", 5_000),
        ("5000원", 5_000),
        ("5,000", 5_000),
        ("사백만", 4_000_000),
        ("일천만원", 10_000_000),
        ("삼천만", 30_000_000),
        ("１００만원", 1_000_000),  # full-width digits from some keyboards
    ],
)
def test_amount_forms(text: str, expected: int) -> None:
    assert parse_amount(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1회 이체한도는 300만원으로 해주세요", 3_000_000),
        ("하루에 오백만원까지요", 5_000_000),
        ("한도는 삼백만이요", 3_000_000),  # 이요 is a copula, not the digit 2
        ("500만 이상으로", 5_000_000),
        ("오백만원 이하로 해주세요", 5_000_000),
        ("한도는오백만원", 5_000_000),
        ("대략 천만 원 정도요", 10_000_000),
        ("만들 때 한도는 백만원", 1_000_000),
    ],
)
def test_amount_inside_sentence(text: str, expected: int) -> None:
    assert parse_amount(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "안녕하세요",
        "1회 이체",
        "일일 한도",
        "이체 한도를 바꾸고 싶어요",
        "통장 만들래요",
        "만약에 안 되면요",
        "천천히 말씀해 주세요",
        "천만에요",
        "010-1234-5678",
        "01012345678",
        "2024년 3월",
        "한도 조정해주세요",
        "오백",  # no unit: could be anything
        "300",
        "이것만 원해요",
        "회사백만원",  # 사백 glued to a word is not a numeral
        "0원",
    ],
)
def test_not_an_amount(text: str) -> None:
    assert parse_amount(text) is None


def test_find_all_amounts_with_spans() -> None:
    text = "하루 500만 1회 300만"
    found = find_amounts(text)
    assert [m.value for m in found] == [5_000_000, 3_000_000]
    assert [text[m.start:m.end] for m in found] == ["500만", "300만"]


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        (3_000_000, "300만원"),
        (120_000_000, "1억 2,000만원"),
        (5_000, "5,000원"),
        (12_345, "1만 2,345원"),
        (100_000_000, "1억원"),
        (0, "0원"),
        (1_000_000_000_005, "1조 5원"),
        (25_000_000, "2,500만원"),
    ],
)
def test_format_krw(amount: int, expected: str) -> None:
    assert format_krw(amount) == expected


@pytest.mark.parametrize("amount", [5_000, 3_000_000, 120_000_000, 12_345, 1_500_000_000])
def test_format_round_trips(amount: int) -> None:
    assert parse_amount(format_krw(amount)) == amount


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-300만원", -3_000_000),
        ("마이너스 300만원", -3_000_000),
        ("마이너스300만원", -3_000_000),
        ("\u2212300만원", -3_000_000),  # a typographic minus sign
        ("1회 -500만원으로 해주세요", -5_000_000),
        ("300만-500만원", 3_000_000),  # a range, not a sign
    ],
)
def test_negative_amounts_are_read_as_negative(text: str, expected: int) -> None:
    """Defect: "-300만원" read as 10,000 (the 만원 after the digits) and "마이너스 300만원" as 3,000,000."""
    assert parse_amount(text) == expected


def test_format_negative_amounts() -> None:
    assert format_krw(-3_000_000) == "-300만원"
    assert parse_amount(format_krw(-120_000_000)) == -120_000_000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3억 5천", 350_000_000),
        ("3억5천", 350_000_000),
        ("2억 5천만원", 250_000_000),
        ("1조 2천", 1_200_000_000_000),
        ("3억 5천원", 300_005_000),  # said with 원, the 천 is taken literally
        ("1만 5천", 15_000),
        ("보증금 3억 5천에 월세 80만원", 350_000_000),  # a particle after the unsaid 만
        ("3억 5천으로 올려 달래요", 350_000_000),
        ("전세 보증금 3억인데 갱신할 때", 300_000_000),  # the copula 인 after a big unit
    ],
)
def test_the_unsaid_man_after_eok(text: str, expected: int) -> None:
    assert parse_amount(text) == expected


@pytest.mark.parametrize(
    ("text", "approximate"),
    [("이천만원쯤", True), ("약 300만원", True), ("300만원 정도요", True), ("한 500만원", True),
     ("300만원", False), ("300만원으로 해주세요", False)],
)
def test_hedged_amounts_are_marked_approximate(text: str, approximate: bool) -> None:
    (match,) = find_amounts(text)
    assert match.approximate is approximate


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3천5백만", 35_000_000), ("2.5천", 2_500), ("1,500", 1_500), ("30", 30), ("삼십", 30), ("0", 0),
     ("-5", -5), ("1.5", 1.5), ("3백만원", 3_000_000), ("삼백만원", 3_000_000)],
)
def test_parse_number_reads_a_whole_number(text: str, expected: float) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize("text", ["", "3천 상품", "abc", "만들래요", "300원짜리"])
def test_parse_number_declines_what_is_not_only_a_number(text: str) -> None:
    assert parse_number(text) is None


_DIGITS = "_일이삼사오육칠팔구"


def _spell(n: int) -> str:
    """Sino-Korean spelling of ``n`` ("삼백만", "이천오백만"), written independently of the parser."""

    def small(k: int) -> str:
        out = ""
        for unit, name in ((1000, "천"), (100, "백"), (10, "십")):
            q, k = divmod(k, unit)
            if q:
                out += ("" if q == 1 else _DIGITS[q]) + name
        return out + (_DIGITS[k] if k else "")

    out = []
    for unit, name in ((10**12, "조"), (10**8, "억"), (10**4, "만")):
        q, n = divmod(n, unit)
        if q:
            out.append(small(q) + name)
    if n:
        out.append(small(n))
    return " ".join(out)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=10**15))
def test_format_and_parse_round_trip(amount: int) -> None:
    assert parse_amount(format_krw(amount)) == amount
    assert parse_amount(format_krw(-amount)) == -amount


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=10**15))
def test_spelled_in_hangul_round_trips(amount: int) -> None:
    assert parse_amount(_spell(amount) + "원") == amount


def test_eok_without_its_one() -> None:
    """"억원" and "억오천만원" are said without the 일; words that start with 억 are no amounts."""
    assert [m.value for m in find_amounts("1회 이천만원 아니 억원")] == [20_000_000, 100_000_000]
    assert [m.value for m in find_amounts("일억오천만원")] == [150_000_000]
    assert [m.value for m in find_amounts("삼억칠천")] == [370_000_000]
    assert find_amounts("억울해요 억지로 했어요") == []
    assert find_amounts("하루 억") == []
