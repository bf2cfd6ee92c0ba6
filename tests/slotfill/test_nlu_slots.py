"""Several slots from one utterance, attributed by cue words and clauses."""

from __future__ import annotations

import pytest

from graphagents.agents.slotfill.nlu import SlotSpec, SlotValue, extract_slots, extract_value

MEDIUM = SlotSpec(
    "security_medium", "enum", ("보안매체",),
    {
        "OTP": ["otp", "오티피", "일회용 비밀번호 생성기"],
        "보안카드": ["보안 카드", "카드"],
        "모바일OTP": ["모바일 otp", "모바일오티피", "폰 otp", "스마트 otp"],
    },
)
PER_TIME = SlotSpec("transfer_limit_per_time", "amount_krw", ("1회 이체한도", "1회 한도"))
PER_DAY = SlotSpec("transfer_limit_per_day", "amount_krw", ("1일 이체한도", "하루 한도"))
NAME = SlotSpec("customer_name", "person_name", ("이름", "성함"))
PHONE = SlotSpec("customer_phone", "phone", ("연락처", "번호", "전화번호", "휴대폰"))
IMPORTANT = SlotSpec("important_transaction_alert", "boolean", ("중요거래 알림", "중요 거래 알림", "중요거래"))
WITHDRAWAL = SlotSpec("withdrawal_alert", "boolean", ("출금 알림", "출금알림", "출금"))
OVERSEAS = SlotSpec(
    "overseas_ip_restriction", "boolean", ("해외 IP 차단", "해외 아이피 차단", "해외 IP", "해외 아이피")
)
LIFELONG = SlotSpec("use_lifelong_account", "boolean", ("평생계좌",))
ADDRESS = SlotSpec("address", "text", ("주소",))
ALERTS = [IMPORTANT, WITHDRAWAL, OVERSEAS]

T, F = True, False
CASES: list[tuple[str, list[SlotSpec], dict[str, SlotValue]]] = [
    (
        "OTP로 하고 1회 300만원, 하루 500만원으로 해주세요",
        [MEDIUM, PER_TIME, PER_DAY],
        {"security_medium": "OTP", "transfer_limit_per_time": 3_000_000, "transfer_limit_per_day": 5_000_000},
    ),
    ("김민수, 010-1111-2222", [NAME, PHONE], {"customer_name": "김민수", "customer_phone": "010-1111-2222"}),
    (
        "중요거래 알림은 받고 출금 알림은 안 받을래요, 해외 IP 차단은 해주세요",
        ALERTS,
        {"important_transaction_alert": T, "withdrawal_alert": F, "overseas_ip_restriction": T},
    ),
    ("하루 500만원 1회 300만원", [PER_TIME, PER_DAY],
     {"transfer_limit_per_day": 5_000_000, "transfer_limit_per_time": 3_000_000}),
    ("건당 100만원 하루 300만원", [PER_TIME, PER_DAY],
     {"transfer_limit_per_time": 1_000_000, "transfer_limit_per_day": 3_000_000}),
    ("한 번에 백만원, 일일 한도는 삼백만원", [PER_TIME, PER_DAY],
     {"transfer_limit_per_time": 1_000_000, "transfer_limit_per_day": 3_000_000}),
    ("300만원이랑 500만원이요", [PER_TIME, PER_DAY],
     {"transfer_limit_per_time": 3_000_000, "transfer_limit_per_day": 5_000_000}),
    ("1회 이체한도는 삼백만원이고 1일 이체한도는 천만원으로 해주세요", [PER_TIME, PER_DAY],
     {"transfer_limit_per_time": 3_000_000, "transfer_limit_per_day": 10_000_000}),
    ("500만원은 하루 한도로 해주세요", [PER_TIME, PER_DAY], {"transfer_limit_per_day": 5_000_000}),
    ("모바일 OTP요", [MEDIUM], {"security_medium": "모바일OTP"}),
    ("보안카드 말고 모바일 오티피로 해주세요", [MEDIUM], {"security_medium": "모바일OTP"}),
    ("다 받을게요", ALERTS,
     {"important_transaction_alert": T, "withdrawal_alert": T, "overseas_ip_restriction": T}),
    ("전부 필요 없어요", ALERTS,
     {"important_transaction_alert": F, "withdrawal_alert": F, "overseas_ip_restriction": F}),
    ("출금 알림만 빼고 다 해주세요", ALERTS,
     {"withdrawal_alert": F, "important_transaction_alert": T, "overseas_ip_restriction": T}),
    ("해외 아이피 차단은 필요 없고 알림은 둘 다 받을게요", ALERTS,
     {"overseas_ip_restriction": F, "important_transaction_alert": T, "withdrawal_alert": T}),
    ("중요거래 알림이랑 출금 알림 다 받을게요 근데 해외 IP 차단은 안 할래요", ALERTS,
     {"important_transaction_alert": T, "withdrawal_alert": T, "overseas_ip_restriction": F}),
    ("출금 알림은 안 받을래요", ALERTS, {"withdrawal_alert": F}),
    ("해외 IP 차단은, 네 해주세요", ALERTS, {"overseas_ip_restriction": T}),
    ("네", [LIFELONG], {"use_lifelong_account": T}),
    ("아니요 안 쓸래요", [LIFELONG], {"use_lifelong_account": F}),
    ("제 이름은 이민호고요 번호는 공일공 일이삼사 오육칠팔이에요", [NAME, PHONE],
     {"customer_name": "이민호", "customer_phone": "010-1234-5678"}),
    # A choice is not a yes to the other question asked with it.
    ("OTP로 할게요", [MEDIUM, LIFELONG], {"security_medium": "OTP"}),
    ("주소는 서울시 강남구 역삼동이에요", [ADDRESS], {"address": "서울시 강남구 역삼동"}),
    ("잘 모르겠어요", [NAME, PHONE], {}),
    ("", [NAME, PHONE, MEDIUM, PER_TIME, LIFELONG], {}),
]


@pytest.mark.parametrize(("text", "wanted", "expected"), CASES)
def test_extract_slots(text: str, wanted: list[SlotSpec], expected: dict[str, SlotValue]) -> None:
    assert extract_slots(text, wanted) == expected


@pytest.mark.parametrize(
    ("spec", "text", "expected"),
    [
        (NAME, "김민수입니다", "김민수"),
        (PHONE, "공일공 일이삼사 오육칠팔", "010-1234-5678"),
        (PER_DAY, "하루 오백만원", 5_000_000),
        (MEDIUM, "폰 OTP", "모바일OTP"),
        (OVERSEAS, "해외 IP 차단은 해주세요", True),
        (OVERSEAS, "해외 IP 차단은 안 할래요", False),
        (OVERSEAS, "해외 IP 차단이요?", None),  # the label alone is no answer
        (LIFELONG, "괜찮아요", False),
    ],
)
def test_extract_value(spec: SlotSpec, text: str, expected: SlotValue | None) -> None:
    assert extract_value(spec, text) == expected


def test_enum_spec_needs_choices() -> None:
    with pytest.raises(ValueError, match="choices"):
        SlotSpec("security_medium", "enum", ("보안매체",))


def test_labels_must_be_a_tuple() -> None:
    with pytest.raises(TypeError, match="tuple"):
        SlotSpec("address", "text", "주소")  # type: ignore[arg-type]
