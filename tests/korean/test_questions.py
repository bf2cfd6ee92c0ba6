"""A question is never an answer; a request phrased as a question is one."""

from __future__ import annotations

import pytest

from graphagents.korean import classify_question


@pytest.mark.parametrize(
    "text",
    [
        "OTP는 발급 비용 있어요?", "OTP는 발급 비용 있어요", "한도는 나중에 바꿀 수 있죠?",
        "한도는 나중에 바꿀 수 있죠", "공인인증서도 필요한가요", "수수료 있나요", "이거 얼마예요",
        "통장 만들 때 돈 들어요?", "나중에 알림 끌 수 있나요",
        "인터넷뱅킹 하면 뭘 할 수 있어요?", "보안카드는 어디서 받아요?", "해지는 언제든 되나요",
    ],
)
def test_information_questions(text: str) -> None:
    assert classify_question(text) == "information"


@pytest.mark.parametrize(
    "text",
    ["모바일OTP로 해도 되나요", "번호 바꿔 주실 수 있나요 010-1234-5678", "보안카드로 해 주시겠어요?",
     "1회 300만원으로 해도 돼요?"],
)
def test_requests_are_answers(text: str) -> None:
    assert classify_question(text) == "request"


@pytest.mark.parametrize(
    "text", ["네", "아니요", "OTP로 할게요", "보안카드로 해 주세요", "출금 알림은 안 받을래요", "모두 사용할게요",
             "뭐든 괜찮아요", "김민수 맞죠", "수수료 없는 걸로 해 주세요", ""],
)
def test_answers_are_no_questions(text: str) -> None:
    assert classify_question(text) is None


def test_a_name_ending_in_a_hearsay_syllable_is_no_question() -> None:
    """"권나래요": Kiwi reads 권나 + 이래요 ("they say it is 권나?"); the word is a name and an answer."""
    assert classify_question("성함이 틀렸어요 박지훈... 아 아니 권나래요") is None
    assert classify_question("그게 뭐래요") == "information"
