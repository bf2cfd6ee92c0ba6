"""Validation, display and the glue between the scenario and the NLU primitives."""

from __future__ import annotations

import pytest

import graphagents.agents.slotfill as slotfill
from graphagents.agents.slotfill import offline
from graphagents.agents.slotfill.scenario import load_scenario
from graphagents.agents.slotfill.values import display, render, validate

SC = load_scenario()
ALERTS = ["important_transaction_alert", "withdrawal_alert", "overseas_ip_restriction"]
IB = ["security_medium", "transfer_limit_per_time", "transfer_limit_per_day"]


def test_public_surface() -> None:
    assert sorted(slotfill.__all__) == ["SPEC", "Scenario", "ScenarioError", "json_schema", "load_scenario"]


@pytest.mark.parametrize(("template", "values", "expected"), [
    ("%{a}%을(를) %{b}%(으)로", {"a": "연락처", "b": "010-9876-5432"}, "연락처를 010-9876-5432로"),
    ("%{a}%을(를) %{b}%(으)로", {"a": "성함", "b": "김민준"}, "성함을 김민준으로"),
    ("%{a}%은(는) %{b}%(으)로", {"a": "1일 이체한도", "b": "1,000만원"}, "1일 이체한도는 1,000만원으로"),
    ("%{a}%(으)로", {"a": "1일"}, "1일로"),
    ("%{a}%(으)로", {"a": "OTP"}, "OTP로"),
    ("%{a}%(500만원)은(는)", {"a": "1회 이체한도"}, "1회 이체한도(500만원)는"),
])
def test_render_picks_particles(template: str, values: dict[str, str], expected: str) -> None:
    assert render(template, values) == expected


def test_validation_rules() -> None:
    assert validate(SC, "customer_phone", "01012345678", {}) == ("010-1234-5678", None)
    assert validate(SC, "customer_phone", "010-12-34", {})[1] == "휴대폰 번호는 010-1234-5678처럼 말씀해 주세요."
    assert validate(SC, "security_medium", "모바일 otp", {}) == ("모바일OTP", None)
    assert "OTP, 보안카드, 모바일OTP 중에서" in str(validate(SC, "security_medium", "지문", {})[1])
    assert validate(SC, "transfer_limit_per_time", "삼백만원", {}) == (3_000_000, None)
    assert "1만원에서 1억원 사이" in str(validate(SC, "transfer_limit_per_time", 500_000_000, {})[1])
    low = validate(SC, "transfer_limit_per_day", 1_000_000, {"transfer_limit_per_time": 3_000_000})
    assert low == (None, "1일 이체한도(100만원)는 1회 이체한도(300만원)보다 작을 수 없어요.")
    high = validate(SC, "transfer_limit_per_time", 20_000_000, {"transfer_limit_per_day": 10_000_000})
    assert high[1] == "1회 이체한도(2,000만원)는 1일 이체한도(1,000만원)보다 클 수 없어요."
    assert validate(SC, "customer_name", "A", {})[1] == "성함은 한글 2~5자로 말씀해 주세요."
    assert validate(SC, "use_lifelong_account", "true", {}) == (True, None)


def test_display() -> None:
    assert display(SC, "transfer_limit_per_day", 120_000_000) == "1억 2,000만원"
    assert display(SC, "use_internet_banking", False) == "신청 안 함"
    assert display(SC, "overseas_ip_restriction", True) == "설정"


@pytest.mark.parametrize(("text", "expected"), [
    ("삼백만원", 3_000_000), ("300만원", 3_000_000), ("3백만원", 3_000_000),
    ("1억 2천만원", 120_000_000), ("5,000,000원", 5_000_000),
])
def test_amount_forms_reach_the_slot(text: str, expected: int) -> None:
    assert offline.extract(text, IB, ["transfer_limit_per_time"], SC, {}) == {"transfer_limit_per_time": expected}


def test_several_slots_from_one_utterance() -> None:
    found = offline.extract("모바일 OTP로 하고 1회 500만원, 하루 2천만원", IB, IB[:2], SC, {})
    assert found == {"security_medium": "모바일OTP", "transfer_limit_per_time": 5_000_000,
                     "transfer_limit_per_day": 20_000_000}


@pytest.mark.parametrize(("text", "expected"), [
    ("출금 알림은 빼 주세요", {"withdrawal_alert": False}),
    ("출금 알림만 받을게요", {"withdrawal_alert": True, "important_transaction_alert": False,
                       "overseas_ip_restriction": False}),
    ("네", dict.fromkeys(ALERTS, True)),
])
def test_alert_answers(text: str, expected: dict[str, bool]) -> None:
    assert offline.extract(text, ALERTS, ALERTS, SC, {}) == expected


def test_bare_no_does_not_switch_every_boolean_off_in_a_wide_correction() -> None:
    keys = list(SC.slots)
    assert offline.extract("아니요", keys, [], SC, {}) == {}
    assert offline.extract("평생계좌는 안 쓸래요", keys, [], SC, {}) == {"use_lifelong_account": False}


def test_phone_correction_takes_the_new_number() -> None:
    found = offline.extract("010-1234-5678 말고 010-9876-5432요", ["customer_phone"], [], SC,
                            {"customer_phone": "010-1234-5678"})
    assert found == {"customer_phone": "010-9876-5432"}


@pytest.mark.parametrize(("text", "intent", "values"), [
    ("네 맞아요", "confirmed", {}),
    ("아니요", "needs_correction", {}),
    ("번호가 틀렸어요 010-9876-5432", "specific_correction", {"customer_phone": "010-9876-5432"}),
    ("이름은 김철수가 아니라 김민준이에요", "specific_correction", {"customer_name": "김민준"}),
    ("번호가 틀렸어요", "specific_correction", {}),
    ("음...", "unclear", {}),
])
def test_confirmation_intents(text: str, intent: str, values: dict[str, str]) -> None:
    result = offline.classify_confirmation(text, ["customer_name", "customer_phone"], SC,
                                           {"customer_name": "김민수", "customer_phone": "010-1234-5678"})
    assert (result.intent, result.values) == (intent, values)
