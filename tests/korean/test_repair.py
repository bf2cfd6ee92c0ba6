"""Cancel, help, repeat and handoff requests, and ordinary answers that are none of them."""

from __future__ import annotations

import pytest

from graphagents.korean import classify_repair

CASES = {
    "cancel": [
        "그만할래요", "취소", "그만", "안 할래요 이제", "중단해주세요", "나중에 할게요", "취소해 주세요",
        "이제 안 할래요", "통장 안 만들래요", "그만 둘래요", "포기할게요", "다음에 할게요", "종료",
        "관둘래요", "이제 그만하고 싶어요", "계좌 개설 안 할래요", "여기까지 할게요", "나중에 다시 올게요",
        "그냥 안 할게요", "나갈래요",
    ],
    "help": [
        "보안매체가 뭐예요?", "OTP가 뭔가요", "차이가 뭐죠?", "무슨 뜻이에요", "뭐야?", "평생계좌가 뭐에요",
        "보안카드랑 OTP 차이가 뭐예요", "설명해 주세요", "잘 모르겠어요", "어떤 게 좋아요?", "추천해 주세요",
        "이체한도는 얼마까지 돼요?", "해외 IP 차단이 무엇인가요", "그게 뭔데요", "왜요?",
        "모바일 OTP는 어떻게 써요?", "중요거래 알림이 뭐지", "뭔지 알려주세요", "무슨 의미예요?",
    ],
    "repeat": [
        "다시 말해주세요", "뭐라고요?", "다시요", "한 번 더", "못 들었어요", "다시 한번 말씀해 주시겠어요?",
        "네?", "예?", "뭐요?", "잘 안 들려요", "한 번만 더 얘기해 주세요", "다시 한번만요", "못 알아들었어요",
        "다시 읽어 주세요", "뭐라고 하셨어요?",
    ],
    "handoff": [
        "상담원 연결", "사람이랑 얘기할래요", "직원 바꿔주세요", "상담원 연결해 주세요", "상담원이요",
        "상담사 연결해 주세요", "사람하고 통화하고 싶어요", "그냥 직원이랑 얘기할게요", "콜센터 연결해주세요",
        "담당자 연결 부탁드려요", "사람 불러주세요",
    ],
}
ORDINARY = [
    "네", "아니요", "김민수입니다", "010-1234-5678", "OTP로 할게요", "300만원이요", "네 맞아요",
    "번호가 틀렸어요", "다시 알려드릴게요", "수정할게요", "좋아요", "필요 없어요", "보안카드로 해주세요",
    "잘 몰라서 그냥 OTP로 할게요", "그만큼은 필요 없어요", "설명은 필요 없어요", "안녕하세요",
    "아니요 평생계좌는 필요 없어요", "중요거래 알림은 받고 출금 알림은 안 받을래요",
]


@pytest.mark.parametrize(("text", "expected"), [(t, k) for k, texts in CASES.items() for t in texts])
def test_repair(text: str, expected: str) -> None:
    assert classify_repair(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"), [(t.replace(" ", ""), k) for k, texts in CASES.items() for t in texts if " " in t]
)
def test_repair_without_spaces(text: str, expected: str) -> None:
    assert classify_repair(text) == expected


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_answers_are_not_repairs(text: str) -> None:
    assert classify_repair(text) is None


@pytest.mark.parametrize("text", ["안 할래요", "나중에 할게요", "필요 없어요", "안 할게요", "그냥 안 할래요"])
def test_refusal_is_an_answer_when_a_yes_no_is_expected(text: str) -> None:
    assert classify_repair(text, expecting_yes_no=True) is None


@pytest.mark.parametrize("text", ["그만할래요", "이제 안 할래요", "통장 안 만들래요", "취소할게요", "중단해주세요"])
def test_leaving_the_process_is_cancel_even_when_a_yes_no_is_expected(text: str) -> None:
    assert classify_repair(text, expecting_yes_no=True) == "cancel"
