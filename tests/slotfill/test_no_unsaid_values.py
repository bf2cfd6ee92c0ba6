"""Issue 23: a value the user did not say is never proposed.

Each case is a way the reader used to read back a number or a yes/no the user had taken back or
never said; the hard simulated users (``agents/slotfill/simulate.py``) found them. Where the words
do not say which value is meant, nothing is proposed and the item is asked again.
"""

from __future__ import annotations

from typing import Any

import pytest

from graphagents.agents.slotfill.nlu import SlotSpec, extract_slots
from graphagents.agents.slotfill.simulate import (
    SimUser,
    korean_amount,
    korean_digits,
    make_users,
    run_user,
    run_users,
)
from graphagents.korean import extract_person_name

PER_TIME = SlotSpec("per_time", "amount_krw", ("1회 이체한도", "1회"))
PER_DAY = SlotSpec("per_day", "amount_krw", ("1일 이체한도", "하루"))
PHONE = SlotSpec("phone", "phone", ("번호",))
ALERTS = [
    SlotSpec("important", "boolean", ("중요거래 알림", "중요거래")),
    SlotSpec("withdrawal", "boolean", ("출금 알림", "출금")),
    SlotSpec("overseas", "boolean", ("해외 IP 차단", "해외")),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "아 잠깐" takes the first amount back (it used to go to the daily limit, then be overwritten)
        ("1회 100만 원이요 아 잠깐 50만 원이요 하루 5억원", {"per_time": 500_000, "per_day": 500_000_000}),
        ("1회 천만원이요 아 잠깐만 이천만원이요 하루 삼천만원", {"per_time": 20_000_000, "per_day": 30_000_000}),
        # three amounts for two limits and no word that takes one back: none is proposed
        ("1회 100만원이요 음 50만원이요 하루 5억원", {}),
        ("300만원 500만원 1000만원", {}),
        # controls: one amount per limit, in either order
        ("하루 천만원 1회 오백만원", {"per_time": 5_000_000, "per_day": 10_000_000}),
        ("1회 3백 아니 5백만원 하루 2천만원", {"per_time": 5_000_000, "per_day": 20_000_000}),
        # a value taken back with nothing said in its place is not proposed: the limit is asked again
        ("1회 이천만원 아니 뭐더라, 하루 오억원", {"per_day": 500_000_000}),
        ("1회 삼백만원 아니 그게 아니라, 하루 천만원", {"per_day": 10_000_000}),
        ("1회 300만원이 아니라 하루 300만원이요", {"per_day": 3_000_000}),
        # ... but a correction of the later value leaves the earlier one alone
        ("1회 300만원, 하루 500만원 아니 천만원", {"per_time": 3_000_000, "per_day": 10_000_000}),
        # 억 said without its 일 ("억원", "억오천만원") is an amount, so a correction to it is heard
        ("1회 이천만원 아니 억원, 하루 오억원", {"per_time": 100_000_000, "per_day": 500_000_000}),
        ("1회 오천만원 하루 억오천만원", {"per_time": 50_000_000, "per_day": 150_000_000}),
    ],
)
def test_amounts(text: str, expected: dict[str, Any]) -> None:
    assert extract_slots(text, [PER_TIME, PER_DAY]) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("번호는 010-3684-1583인데 아 잠깐만 010-3684-1578로 해 주세요", {"phone": "010-3684-1578"}),
        # a last group said alone after a correction replaces the group it is closest to
        ("번호는 010-5841-5836 아니 5833이에요", {"phone": "010-5841-5833"}),
        # ... and nothing when it is as close to the middle group as to the last one, or to neither
        ("번호는 010-5833-5836 아니 5834이에요", {}),
        ("번호는 010-1111-2222 아니 9999요", {}),
        # two numbers and no correction between them
        ("010-1111-2222 010-3333-4444", {}),
        ("번호는 010-9876-5432요", {"phone": "010-9876-5432"}),
        # taken back, and no number or group said instead
        ("번호는 010-1111-2222 아니 잠깐만요", {}),
    ],
)
def test_phones(text: str, expected: dict[str, Any]) -> None:
    assert extract_slots(text, [PHONE]) == expected


def test_each_alert_takes_the_verb_after_it() -> None:
    text = "중요거래 알림은 안 할래요 출금 알림은 받을게요 해외 IP 차단은 안 할래요"
    assert extract_slots(text, ALERTS) == {"important": False, "withdrawal": True, "overseas": False}
    assert extract_slots("출금 알림만 빼고 다 할게요", ALERTS) == {"withdrawal": False, "important": True,
                                                              "overseas": True}


def test_a_number_ending_is_not_a_name() -> None:
    assert extract_person_name("번호는 010-9109-4133 아니 그게 아니라 010-9109-4126이에요") is None
    assert extract_person_name("번호는 010-9109-4133 아니 그게 아니라 010-9109-4126이에요", expected=True) is None
    assert extract_person_name("김민수 아니라 김민준이에요") == "김민준"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Kiwi reads a name's last syllable as a contracted ending (권나 + 이래요, 최민 + 지요): the
        # two-syllable reading is a name the user never said
        ("성함이 틀렸어요 박지훈... 아 아니 권나래요", "권나래"),
        ("아 아니 최민지요", "최민지"),
        ("이름은 김민수가 아니라 강미래요", "강미래"),
        ("아니요 윤아라요", "윤아라"),
        # after a vowel 이 cannot be the copula: 정소 + 이예요 is 정소이 + 예요
        ("이름은 김민수가 아니라 정소이예요", "정소이"),
        # two-syllable names said the standard way stay two syllables
        ("성함은 이수예요", "이수"),
        ("윤아요", "윤아"),
    ],
)
def test_a_name_is_read_to_its_last_syllable(text: str, expected: str) -> None:
    assert extract_person_name(text) == expected


def test_a_name_broken_off_with_a_no_is_taken_back() -> None:
    """"박지훈... 아 아니 X": whatever X is, the old name is not what the user means."""
    assert extract_person_name("성함이 틀렸어요 박지훈... 아 아니 이서야요") != "박지훈"
    assert extract_person_name("김민수 아니 김민지요") == "김민지"


def test_a_name_ending_like_a_question_is_an_answer(make_agent: Any) -> None:
    """Kiwi tags 래요 in "권나래요" as a hearsay question; the reply used to get the name's help
    text and the old name read back again."""
    user = next(u for u in make_users(120) if u.index == 44)
    assert user.want["customer_name"] == "권나래" and user.styles["name"] == "repair"
    result = run_user(make_agent(), user)
    assert result.correct and not result.wrong_readbacks, result.wrong_readbacks


def test_maximum_said_with_an_amount_sets_only_that_amount() -> None:
    from test_slotfill_volunteered import read

    slots = {"customer_name": "김민수", "customer_phone": "010-1234-5678", "use_lifelong_account": True,
             "use_internet_banking": True, "security_medium": "OTP"}
    assert read("collect_ib_info", "하루 한도는 최대로 5억으로 해주세요", slots) == (
        "inform", {"transfer_limit_per_day": 500_000_000})


def test_korean_words_for_numbers() -> None:
    assert korean_digits("010-9876-5432") == "공일공 구팔칠육 오사삼이"
    assert korean_amount(15_000_000, "words") == "천오백만원"
    assert korean_amount(300_000_000, "words") == "삼억원"
    assert korean_amount(5_000_000, "mixed") == "5백만원"


class _EchoFirstAmount:
    """A broken agent for the measuring stick: it reads back a per-transfer limit one won off."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def session(self, **kwargs: Any) -> Any:
        real = self.real.session(**kwargs)

        class _Session:
            def send(self, text: str) -> Any:
                reply = real.send(text)
                slots = reply.state.get("slots") or {}
                if reply.state.get("stage") == "confirm_ib_info" and "transfer_limit_per_time" in slots:
                    reply.state["slots"] = {**slots, "transfer_limit_per_time": slots["transfer_limit_per_time"] + 1}
                return reply

        return _Session()


def _user(limits_style: str) -> SimUser:
    user = next(u for u in make_users(60) if u.want["use_internet_banking"])
    user.styles = {**user.styles, "limits": limits_style}
    return user


def test_the_checker_catches_a_wrong_read_back(make_agent: Any) -> None:
    """A scorer that passes everything would pass this broken agent; ours must not."""
    result = run_user(_EchoFirstAmount(make_agent()), _user("plain"))
    assert result.wrong_readbacks and result.wrong_readbacks[0]["field"] == "transfer_limit_per_time"


def test_hard_simulated_users_hear_only_what_they_said(make_agent: Any) -> None:
    report = run_users(make_users(40), make_agent())
    assert report["completed_correctly"] == 40
    assert report["users_with_wrong_readback"] == 0, report["examples"]
