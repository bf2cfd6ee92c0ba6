"""Replies to "이 정보가 맞으신가요?" across the scenario's confirmation groups."""

from __future__ import annotations

import pytest

from graphagents.agents.slotfill.nlu import (
    ConfirmationResult,
    FieldInfo,
    SlotSpec,
    SlotValue,
    classify_confirmation,
)
from graphagents.korean import classify_repair, extract_phone

NAME = SlotSpec("customer_name", "person_name", ("이름", "성함", "성명"))
PHONE = SlotSpec("customer_phone", "phone", ("연락처", "번호", "전화번호", "휴대폰", "핸드폰"))
BASIC = {"customer_name": NAME, "customer_phone": PHONE}
BASIC_NOW = {"customer_name": "김철수", "customer_phone": "010-1234-5678"}

MEDIUM = SlotSpec(
    "security_medium", "enum", ("보안매체",),
    {"OTP": ["otp", "오티피"], "보안카드": ["보안 카드"], "모바일OTP": ["모바일 otp", "모바일 오티피"]},
)
PER_TIME = SlotSpec("transfer_limit_per_time", "amount_krw", ("1회 이체한도", "1회 한도", "1회", "건당"))
PER_DAY = SlotSpec("transfer_limit_per_day", "amount_krw", ("1일 이체한도", "하루 한도", "1일", "하루"))
IB = {"security_medium": MEDIUM, "transfer_limit_per_time": PER_TIME, "transfer_limit_per_day": PER_DAY}
IB_NOW = {"security_medium": "OTP", "transfer_limit_per_time": 3_000_000, "transfer_limit_per_day": 5_000_000}

ALERTS = {
    "important_transaction_alert": SlotSpec("important_transaction_alert", "boolean", ("중요거래 알림", "중요거래")),
    "withdrawal_alert": SlotSpec("withdrawal_alert", "boolean", ("출금 알림", "출금")),
    "overseas_ip_restriction": SlotSpec("overseas_ip_restriction", "boolean", ("해외 IP 차단", "해외 아이피")),
}
ALERTS_NOW = {"important_transaction_alert": True, "withdrawal_alert": True, "overseas_ip_restriction": False}

CONFIRMED = [
    "네", "예", "네 맞아요", "맞아요", "맞습니다", "응 맞아", "넵", "ㅇㅇ", "오케이", "맞음", "정확해요",
    "다 맞아요", "전부 맞습니다", "확인했습니다", "그렇습니다", "좋아요", "이상 없어요", "문제없습니다",
    "네 그대로 진행해 주세요", "수정할 거 없어요", "바꿀 거 없습니다", "틀린 거 없어요", "괜찮습니다",
    "네 괜찮아요", "다음으로 넘어가 주세요", "네 김민수 맞아요", "이름이랑 번호 둘 다 맞아요", "네 번호 맞습니다",
]
NEEDS_CORRECTION = [
    "아니요", "아뇨", "아니", "아니에요", "틀려요", "틀렸어요", "수정할게요", "수정해 주세요", "변경할게요",
    "잘못됐어요", "정보가 틀렸어요", "아니요 틀렸어요", "다시 알려드릴게요", "다시 말씀드릴게요", "오타 있어요",
    "아닌데요", "ㄴㄴ", "둘 다 틀렸어요", "틀린 것 같아요", "잘못 들어갔어요",
]
# (text, fields the engine should ask again)
FLAGGED = [
    ("번호가 틀렸어요", ("customer_phone",)),
    ("이름이 틀렸어요", ("customer_name",)),
    ("성함이 잘못됐어요", ("customer_name",)),
    ("전화번호가 다릅니다", ("customer_phone",)),
    ("연락처가 바뀌었어요", ("customer_phone",)),
    ("네 근데 번호가 틀렸어요", ("customer_phone",)),
    ("맞는데 번호가 바뀌었어요", ("customer_phone",)),
    ("이름은 맞고 번호가 틀렸어요", ("customer_phone",)),
    ("번호만 틀렸어요", ("customer_phone",)),
    ("번호 끝자리가 틀렸어요", ("customer_phone",)),
    ("이름에 오타가 있어요", ("customer_name",)),
]
SPECIFIC = [
    ("번호가 틀렸어요 010-9876-5432", {"customer_phone": "010-9876-5432"}),
    ("이름은 김철수가 아니라 김민수예요", {"customer_name": "김민수"}),
    ("아니요 010-2222-3333이에요", {"customer_phone": "010-2222-3333"}),
    ("번호는 010 5555 6666이에요", {"customer_phone": "010-5555-6666"}),
    ("제 번호는 공일공 구팔칠육 오사삼이예요", {"customer_phone": "010-9876-5432"}),
    ("김민석이에요", {"customer_name": "김민석"}),
    ("아니요 제 이름은 박지영입니다", {"customer_name": "박지영"}),
    ("이름을 이영희로 바꿔주세요", {"customer_name": "이영희"}),
    ("010-9876-5432로 번호 바꿔주세요", {"customer_phone": "010-9876-5432"}),
    ("연락처 010-1212-3434로 변경해 주세요", {"customer_phone": "010-1212-3434"}),
    ("김철수 말고 김민수요", {"customer_name": "김민수"}),
    ("네 근데 번호는 010-4444-5555예요", {"customer_phone": "010-4444-5555"}),
    ("이름 홍길동으로 고쳐주세요", {"customer_name": "홍길동"}),
    ("아뇨 공일공 일일일일 이이이이요", {"customer_phone": "010-1111-2222"}),
    ("이름은 맞고 번호는 010-2323-4545예요", {"customer_phone": "010-2323-4545"}),
    ("아니요 강다니엘이요", {"customer_name": "강다니엘"}),
]
UNCLEAR = [
    "글쎄요", "음", "배고파요", "오늘 날씨 좋네요?", "날씨 좋네요", "네 근데 하나 물어볼게요", "흠", "ㅋㅋㅋ", "저기요",
]


def _basic(text: str) -> ConfirmationResult:
    return classify_confirmation(text, BASIC, BASIC_NOW)


@pytest.mark.parametrize("text", CONFIRMED)
def test_confirmed(text: str) -> None:
    assert _basic(text).intent == "confirmed"


@pytest.mark.parametrize("text", NEEDS_CORRECTION)
def test_needs_correction(text: str) -> None:
    result = _basic(text)
    assert (result.intent, result.corrections) == ("needs_correction", {})


@pytest.mark.parametrize(("text", "fields"), FLAGGED)
def test_field_named_without_value_is_flagged(text: str, fields: tuple[str, ...]) -> None:
    assert _basic(text) == ConfirmationResult("needs_correction", {}, fields)


@pytest.mark.parametrize(("text", "corrections"), SPECIFIC)
def test_specific_correction(text: str, corrections: dict[str, SlotValue]) -> None:
    result = _basic(text)
    assert (result.intent, result.corrections) == ("specific_correction", corrections)
    assert set(corrections) <= set(result.fields)


@pytest.mark.parametrize("text", UNCLEAR)
def test_unclear(text: str) -> None:
    assert _basic(text).intent == "unclear"


@pytest.mark.parametrize(
    ("text", "intent"),
    [(t, "confirmed") for t in CONFIRMED if " " in t]
    + [(t, "needs_correction") for t in NEEDS_CORRECTION if " " in t]
    + [(t, "specific_correction") for t, _ in SPECIFIC if " " in t],
)
def test_unspaced_stt_output(text: str, intent: str) -> None:
    assert _basic(text.replace(" ", "")).intent == intent


def test_restating_the_current_value_is_not_a_correction() -> None:
    assert _basic("번호는 010-1234-5678 맞아요").intent == "confirmed"
    result = classify_confirmation("이름은 김철수예요", BASIC, BASIC_NOW)
    assert result.corrections == {}


def test_two_corrections_in_one_reply() -> None:
    result = _basic("이름은 김민수고 번호는 010-2222-3333이에요")
    assert result.corrections == {"customer_name": "김민수", "customer_phone": "010-2222-3333"}


def test_value_and_flag_together() -> None:
    result = _basic("이름은 김민수로 바꾸고 번호도 틀렸어요")
    assert result.intent == "specific_correction"
    assert result.corrections == {"customer_name": "김민수"}
    assert result.fields == ("customer_name", "customer_phone")


@pytest.mark.parametrize(
    ("text", "intent", "corrections"),
    [
        ("네 맞아요", "confirmed", {}),
        ("OTP 맞아요", "confirmed", {}),
        ("보안매체를 보안카드로 바꿔주세요", "specific_correction", {"security_medium": "보안카드"}),
        ("모바일 OTP로 해주세요", "specific_correction", {"security_medium": "모바일OTP"}),
        ("아니요 OTP 말고 보안카드요", "specific_correction", {"security_medium": "보안카드"}),
        ("하루 한도를 천만원으로 올려주세요", "specific_correction", {"transfer_limit_per_day": 10_000_000}),
        ("1회 한도는 100만원으로 낮춰 주세요", "specific_correction", {"transfer_limit_per_time": 1_000_000}),
        (
            "1회 200만원 하루 400만원으로 바꿔주세요",
            "specific_correction",
            {"transfer_limit_per_time": 2_000_000, "transfer_limit_per_day": 4_000_000},
        ),
        ("한도가 틀렸어요", "needs_correction", {}),
        ("보안매체가 틀렸어요", "needs_correction", {}),
        # No label says which limit: the engine must ask, not guess.
        ("이체한도는 500만원으로 바꿔주세요", "needs_correction", {}),
    ],
)
def test_internet_banking_group(text: str, intent: str, corrections: dict[str, SlotValue]) -> None:
    result = classify_confirmation(text, IB, IB_NOW)
    assert (result.intent, result.corrections) == (intent, corrections)


def test_ambiguous_amount_flags_both_limits() -> None:
    result = classify_confirmation("이체한도는 500만원으로 바꿔주세요", IB, IB_NOW)
    assert set(result.fields) == {"transfer_limit_per_time", "transfer_limit_per_day"}


@pytest.mark.parametrize(
    ("text", "intent", "corrections"),
    [
        ("다 맞습니다", "confirmed", {}),
        ("출금 알림은 안 받을게요", "specific_correction", {"withdrawal_alert": False}),
        ("해외 IP 차단도 해주세요", "specific_correction", {"overseas_ip_restriction": True}),
        ("중요거래 알림 빼주세요", "specific_correction", {"important_transaction_alert": False}),
        ("네 근데 출금 알림은 끌게요", "specific_correction", {"withdrawal_alert": False}),
        # "아니에요" says the setting is wrong, not which way: ask again rather than guess.
        ("출금 알림이 틀렸어요", "needs_correction", {}),
        ("출금 알림 아니에요", "needs_correction", {}),
    ],
)
def test_alert_group(text: str, intent: str, corrections: dict[str, SlotValue]) -> None:
    result = classify_confirmation(text, ALERTS, ALERTS_NOW)
    assert (result.intent, result.corrections) == (intent, corrections)


def test_custom_field_info() -> None:
    fields = {"backup_phone": FieldInfo(("비상 연락처", "비상연락처"), extract_phone)}
    result = classify_confirmation("비상 연락처는 010-7777-8888로 바꿔 주세요", fields)
    assert result.corrections == {"backup_phone": "010-7777-8888"}


def test_repair_requests_are_left_to_classify_repair() -> None:
    # The engine checks repair first; confirmation never turns these into a yes.
    for text in ("다시 말해주세요", "상담원 연결해 주세요", "그만할래요"):
        assert classify_repair(text) is not None
        assert _basic(text).intent != "confirmed"
