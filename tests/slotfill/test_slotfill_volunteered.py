"""Engine-level reading: blanket alert answers, slots volunteered at a yes/no question, scenario synonyms."""

from __future__ import annotations

from typing import Any

import pytest

from graphagents.agents.slotfill.engine import Engine
from graphagents.agents.slotfill.scenario import load_scenario
from graphagents.agents.slotfill.understanding import Understanding
from graphagents.agents.slotfill.work import Work

SC = load_scenario(None)
ENGINE = Engine(SC, Understanding(None))
BASIC = {"customer_name": "김민수", "customer_phone": "010-1234-5678"}
IB = {**BASIC, "use_lifelong_account": True, "use_internet_banking": True, "security_medium": "OTP",
      "transfer_limit_per_time": 3_000_000, "transfer_limit_per_day": 10_000_000}
ALERTS = ["important_transaction_alert", "withdrawal_alert", "overseas_ip_restriction"]


def read(stage: str, text: str, slots: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    w = Work.from_state({"slots": dict(slots), "stage_id": stage}, SC.start_stage_id)
    meaning = ENGINE.interpret(w, text)
    return meaning.intent, meaning.values


@pytest.mark.parametrize(
    ("text", "value"),
    [("전부 다 꺼주세요", False), ("다 끌게요", False), ("알림 전부 필요 없어요", False), ("모두 켜 주세요", True)],
)
@pytest.mark.parametrize("stage", ["collect_alerts", "correct_alerts"])
def test_blanket_alert_answer(stage: str, text: str, value: bool) -> None:
    slots = IB if stage == "collect_alerts" else {**IB, **dict.fromkeys(ALERTS, not value)}
    assert read(stage, text, slots) == ("inform", dict.fromkeys(ALERTS, value))


def test_blanket_never_at_the_summary_nor_without_an_all_word() -> None:
    full = {**IB, **dict.fromkeys(ALERTS, True)}
    assert read("correct_summary", "전부 다 꺼주세요", full)[1] == {}
    assert read("correct_alerts", "아니요", full) == ("unclear", {})
    assert read("correct_alerts", "어...", full) == ("unclear", {})
    assert read("correct_alerts", "출금 알림만 빼고 다 해주세요", full)[1] == {"withdrawal_alert": False}


@pytest.mark.parametrize(
    ("stage", "slots", "text", "expected"),
    [
        ("ask_lifelong_account", BASIC, "평생계좌번호 쓸게요 그리고 인터넷뱅킹도 신청해 주세요",
         {"use_lifelong_account": True, "use_internet_banking": True}),
        ("ask_lifelong_account", BASIC, "인터넷뱅킹도 신청해 주세요 평생계좌는 안 쓸게요",
         {"use_lifelong_account": False, "use_internet_banking": True}),
        ("ask_lifelong_account", BASIC, "네 근데 인터넷뱅킹은 안 할래요",
         {"use_lifelong_account": True, "use_internet_banking": False}),
        ("ask_lifelong_account", BASIC, "인터넷뱅킹 신청해 주세요", {"use_internet_banking": True}),
        # the 아니요 answers the question asked; what it says about internet banking is left unread
        ("ask_lifelong_account", BASIC, "아니요 모바일뱅킹은 할게요", {"use_lifelong_account": False}),
        ("ask_lifelong_account", BASIC, "네 그리고 인뱅도요", {"use_lifelong_account": True}),
        # 보안매체 only applies with internet banking
        ("ask_lifelong_account", BASIC, "네 보안매체는 OTP로요", {"use_lifelong_account": True}),
        ("ask_internet_banking", {**BASIC, "use_lifelong_account": True}, "네 하고 보안매체는 모바일OTP로 할게요",
         {"use_internet_banking": True, "security_medium": "모바일OTP"}),
        ("ask_internet_banking", {**BASIC, "use_lifelong_account": True}, "네 모바일OTP로 하고 1회 한도 300만원이요",
         {"use_internet_banking": True, "security_medium": "모바일OTP", "transfer_limit_per_time": 3_000_000}),
        ("ask_internet_banking", {**BASIC, "use_lifelong_account": True}, "아니요 보안매체는 OTP로",
         {"use_internet_banking": False}),
        ("ask_internet_banking", {**BASIC, "use_lifelong_account": True}, "모바일뱅킹 할게요",
         {"use_internet_banking": True}),
    ],
)
def test_volunteered_later_slots(stage: str, slots: dict[str, Any], text: str, expected: dict[str, Any]) -> None:
    assert read(stage, text, slots) == ("inform", expected)


@pytest.mark.parametrize("text", ["어...", "잠깐만요", "어... 모바일OTP로요"])
def test_hesitation_at_yes_no_stage_sets_nothing(text: str) -> None:
    _, values = read("ask_internet_banking", text, {**BASIC, "use_lifelong_account": True})
    assert "use_internet_banking" not in values


@pytest.mark.parametrize(
    ("stage", "text", "expected"),
    [
        ("collect_ib_info", "보안카드로 할게요 그리고 출금 알림은 빼 주세요",
         {"security_medium": "보안카드", "withdrawal_alert": False}),
        ("collect_alerts", "다 받을게요, 아 그리고 하루 한도는 2천만원으로 올려 주세요",
         {**dict.fromkeys(ALERTS, True), "transfer_limit_per_day": 20_000_000}),
    ],
)
def test_other_items_are_read_at_every_stage(stage: str, text: str, expected: dict[str, Any]) -> None:
    slots = {**IB} if stage == "collect_alerts" else {**BASIC, "use_lifelong_account": True,
                                                      "use_internet_banking": True}
    assert read(stage, text, slots) == ("inform", expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("스마트폰 앱으로 하는 OTP로 할게요", "모바일OTP"),
        ("휴대폰 OTP 앱이요", "모바일OTP"),
        ("폰으로 인증하는 거요", "모바일OTP"),
        ("실물 OTP 기계요", "OTP"),
        ("OTP 단말기로 주세요", "OTP"),
        ("번호 적힌 카드로 할게요", "보안카드"),
        ("OTP로... 아 아니다 보안카드로 할게요", "보안카드"),
    ],
)
def test_scenario_medium_synonyms(text: str, expected: str) -> None:
    slots = {k: v for k, v in IB.items() if k not in ("security_medium", "transfer_limit_per_time",
                                                        "transfer_limit_per_day")}
    assert read("collect_ib_info", text, slots) == ("inform", {"security_medium": expected})


def test_self_correction_at_collection_and_confirmation() -> None:
    slots = {k: v for k, v in IB.items() if not k.startswith("transfer")}
    assert read("collect_ib_info", "1회 한도는 삼백만... 아니 오백만원으로 해주세요", slots) == (
        "inform", {"transfer_limit_per_time": 5_000_000})
    assert read("confirm_ib_info", "1회 한도는 삼백만... 아니 오백만원으로 해주세요", IB) == (
        "specific_correction", {"transfer_limit_per_time": 5_000_000})
    assert read("confirm_basic_info", "번호 틀렸어요 010-1111-2222 아니 010-3333-4444", BASIC) == (
        "specific_correction", {"customer_phone": "010-3333-4444"})


def test_a_short_mention_does_not_volunteer_a_later_yes_no_item() -> None:
    import graphagents as ga

    s = ga.load("slotfill").session()
    for text in ["안녕하세요", "네"]:
        s.send(text)
    reply = s.send("해외 송금도 할 거라 네")
    assert reply.state["slots"]["use_lifelong_account"] is True
    assert "overseas_ip_restriction" not in reply.state["slots"]
    assert reply.state["stage"] == "ask_internet_banking"
