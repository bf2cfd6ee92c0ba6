"""Self-corrections inside one utterance, enum paraphrases with the most specific match winning."""

from __future__ import annotations

import pytest

from graphagents.agents.slotfill.nlu import (
    SlotSpec,
    SlotValue,
    extract_slots,
    extract_value,
    match_enum,
)
from graphagents.agents.slotfill.nlu.slots import retract_corrected
from graphagents.korean import classify_yes_no

PER_TIME = SlotSpec("per_time", "amount_krw", ("1회 이체한도", "1회"))
PER_DAY = SlotSpec("per_day", "amount_krw", ("1일 이체한도", "하루"))
PHONE = SlotSpec("phone", "phone", ("번호",))
MEDIUM = {
    "OTP": ["otp", "실물 otp", "otp 기계", "otp 단말기"],
    "보안카드": ["보안 카드", "카드", "번호 적힌 카드"],
    "모바일OTP": ["모바일 otp", "휴대폰 otp", "otp 앱", "스마트폰 앱", "폰으로 인증", "모바일"],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1회 한도는 삼백만... 아니 오백만원으로 해주세요", {"per_time": 5_000_000}),
        ("1회 300만원 말고 500만원이요", {"per_time": 5_000_000}),
        ("1회는 삼백만원, 아 정정할게요 사백만원이요", {"per_time": 4_000_000}),
        # "아니" right after a value takes it back, whatever comes next: 300만원 may have been meant for
        # 하루, so the per-transfer limit is asked again rather than read back (issue 23)
        ("1회는 300만원 아니 하루는 500만원", {"per_day": 5_000_000}),
        ("1회 300만원 하루 500만원", {"per_time": 3_000_000, "per_day": 5_000_000}),
        ("1회 300만원 아니면 500만원", {"per_time": 3_000_000, "per_day": 5_000_000}),  # 아니면 = or
    ],
)
def test_amount_self_correction(text: str, expected: dict[str, SlotValue]) -> None:
    assert extract_slots(text, [PER_TIME, PER_DAY]) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("010-1111-2222 아니 010-3333-4444", "010-3333-4444"),
        ("010-1111-2222 말고 010-3333-4444로 해주세요", "010-3333-4444"),
        ("공일공 일일일일 이이이이 아니 공일공 삼삼삼삼 사사사사요", "010-3333-4444"),
        ("010-1111-2222요", "010-1111-2222"),
    ],
)
def test_phone_self_correction(text: str, expected: str) -> None:
    assert extract_slots(text, [PHONE]) == {"phone": expected}
    assert extract_value(PHONE, text) == expected


def test_retract_keeps_values_a_cue_separates() -> None:
    text = "1회 300만원 아니 하루 500만원"
    assert retract_corrected(text, [(3, 8), (15, 20)], [(12, 14)]) == [0, 1]
    assert retract_corrected(text, [(3, 8), (15, 20)]) == [1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OTP로... 아 아니다 보안카드로 할게요", "보안카드"),
        ("보안카드 아니 그게 아니라 OTP요", "OTP"),
        ("스마트폰 앱으로 하는 OTP로 할게요", "모바일OTP"),
        ("휴대폰 OTP 앱이요", "모바일OTP"),
        ("폰으로 인증하는 거요", "모바일OTP"),
        ("실물 OTP 기계요", "OTP"),
        ("OTP 단말기로 주세요", "OTP"),
        ("번호 적힌 카드로 할게요", "보안카드"),
        ("모바일 OTP 말고 그냥 OTP로 할게요", "OTP"),
        ("OTP랑 모바일OTP 중에 OTP요", "OTP"),
        ("OTP 아니 모바일 OTP로", "모바일OTP"),
    ],
)
def test_enum_corrections_and_specific_paraphrases(text: str, expected: str) -> None:
    assert match_enum(text, MEDIUM) == expected


@pytest.mark.parametrize("text", ["어...", "잠깐만요", "어… 잠깐만요", "음...", "어... 모바일OTP로요"])
def test_hesitation_is_never_yes(text: str) -> None:
    assert classify_yes_no(text) is None


@pytest.mark.parametrize("text", ["어... 네", "어 할게요"])
def test_yes_after_hesitation_still_yes(text: str) -> None:
    assert classify_yes_no(text) == "yes"


@pytest.mark.parametrize("text", ["네 근데 필요 없어요", "다 끌게요", "알림 전부 필요 없어요", "신청은 안 할게요"])
def test_negation_wins(text: str) -> None:
    assert classify_yes_no(text) == "no"
