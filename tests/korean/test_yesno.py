"""Yes/no answers; negation wins over positive words, and non-answers give None."""

from __future__ import annotations

import pytest

from graphagents.korean import classify_yes_no

YES = [
    "네", "예", "응", "어", "그래요", "좋아요", "할게요", "신청할게요", "사용할게요", "원해요", "맞아요",
    "ㅇㅇ", "오케이", "ok", "OK!", "yes", "Yes please", "sure", "당연하죠", "물론이죠", "그럼요", "넵", "넹",
    "네네", "네~", "콜", "ㅇㅋ", "알겠습니다", "받을게요", "쓸게요", "해주세요", "해 줘", "하세요",
    "네 신청해주세요", "네 그렇게 해주세요", "네, 사용하겠습니다", "예 부탁드립니다", "아 네",
    "평생계좌 사용할게요", "설정해 주세요", "차단 부탁해요", "동의합니다", "필요해요", "하고 싶어요",
    "보안카드 할게요", "음 그냥 해주세요", "이용하겠습니다", "그걸로 할게요", "오 좋아요",
]
NO = [
    "아니요", "아뇨", "아니", "아니오", "아닙니다", "아니에요", "싫어요", "싫습니다", "안 할게요", "안할래요",
    "필요 없어요", "필요없어요", "괜찮아요", "괜찮습니다", "네 괜찮아요", "사용 안 함", "사용안함", "안 써요",
    "안쓸래요", "됐어요", "됐습니다", "no", "No thanks", "nope", "ㄴㄴ", "노노", "사용하지 않을게요",
    "신청 안 해요", "신청하지 않겠습니다", "원하지 않아요", "안 받을래요", "하지 마세요", "별로요",
    "패스할게요", "생략해주세요", "아 아니요", "아니 안 할래요", "그건 됐어요", "없어도 돼요",
    "안 해도 돼요", "굳이요", "딱히 필요 없어요", "빼 주세요", "넘어가 주세요", "아니요 평생계좌는 필요 없어요",
    "알림은 필요 없어요", "해외에서 쓸 일 없어서 안 할게요", "노 땡큐", "꺼 주세요", "나중에 할게요",
    "다음에 신청할게요", "일단 보류할게요",
]
NEITHER = [
    "", "음", "글쎄요", "잘 모르겠어요", "다시 말해주세요", "보안매체가 뭐예요?", "네?", "할까요?",
    "상관없어요", "김민수입니다", "010-1234-5678", "그게 뭔데요", "상담원 연결해 주세요", "그만할래요",
    "안 해도 되나요?", "수수료 있어요?", "300만원이요", "굳이요?",
]


@pytest.mark.parametrize("text", YES)
def test_yes(text: str) -> None:
    assert classify_yes_no(text) == "yes"


@pytest.mark.parametrize("text", NO)
def test_no(text: str) -> None:
    assert classify_yes_no(text) == "no"


@pytest.mark.parametrize("text", NEITHER)
def test_not_an_answer(text: str) -> None:
    assert classify_yes_no(text) is None


@pytest.mark.parametrize("text", [t for t in YES + NO if " " in t and not t.isascii()])
def test_spacing_does_not_matter(text: str) -> None:
    assert classify_yes_no(text.replace(" ", "")) == classify_yes_no(text)


@pytest.mark.parametrize("text", ["보안카드 할게요", "미안해요 신청할게요", "제안해 주신 걸로 할게요"])
def test_words_containing_an_are_not_negation(text: str) -> None:
    assert classify_yes_no(text) == "yes"
