"""Is the user asking something rather than answering? "OTP는 발급 비용 있어요?", "한도는 나중에
바꿀 수 있죠?" contain an item and even a change word, yet they answer nothing.

Korean marks questions with sentence endings (-나요, -ㄴ가요, -까요, -습니까, -죠 after 수 있),
a question mark, or a question word; speech-to-text often drops the "?". A question that asks the
agent to do something ("번호 바꿔 주실 수 있나요?", "모바일OTP로 해도 되나요?") is a request, and
a request is an answer.
"""

from __future__ import annotations

import re
from typing import Literal

from ._analyser import tokenize
from ._names import fused_name_ending
from ._text import compact, normalize

__all__ = ["QuestionKind", "QuestionTopic", "classify_question", "question_topic"]

QuestionKind = Literal["information", "request"]
QuestionTopic = Literal["cost", "documents", "time", "later_change"]

_QUESTION_ENDINGS = frozenset({"나요", "니까", "ᆸ니까", "습니까", "까요", "ᆯ까요", "을까요", "ᆫ가요", "은가요", "는가요",
                               "던가요", "나", "냐", "니", "는지", "는지요", "ᆫ지요", "을지", "ᆯ지", "래요", "대요"})
_WH = re.compile(r"뭐|무엇|무슨|어떤|어떻게|왜|언제|얼마|어디|어느|몇|누가|누구")
# What people ask about around an application: fees, documents, time, and later changes.
_TOPICS: dict[QuestionTopic, re.Pattern[str]] = {
    "cost": re.compile(
        r"비용|수수료|요금|유료|무료|공짜|돈(?:이|을)?(?:들|내|나가)|발급비|얼마(?:예요|에요|인가|죠|나|들)"
    ),
    "documents": re.compile(r"인증서|증명서|서류|신분증|준비물|필요한게|가져가|챙겨"),
    "time": re.compile(r"영업시간|시간이(?:걸|얼마)|얼마나걸|언제(?:까지|부터|나와|와|받|도착|돼)|며칠"),
    "later_change": re.compile(
        r"나중에(?:\w{0,6})(?:바꿀|바꿔|바꾸|변경|수정|해지|해제|추가|신청|올릴|내릴|늘릴|줄일|끌|켤)|"
        r"(?:바꿀|변경할|해지할|수정할)수(?:있|도)|개설(?:후|한뒤|하고나서)"
    ),
}


def question_topic(text: str) -> QuestionTopic | None:
    """What a question is about, when it is one of the things people ask around an application:
    fees, documents, waiting time, or changing something later."""
    c = compact(text)
    return next((topic for topic, pattern in _TOPICS.items() if pattern.search(c)), None)
# "이거 얼마예요", "언제예요", "어떻게 돼요": a question word with a plain ending, the "?" dropped by STT.
_WH_PLAIN = re.compile(
    r"(?:얼마|언제|어디|몇\w{0,3}|어떻게|뭐|무엇|무슨\w{0,3})(?:이)?(?:예요|에요|이에요|인가요|죠|야|돼요|되요|되나요|해요|하나요)$"
)
# The agent is asked to act: 주다 / 주시다 as an auxiliary, or permission to choose ("해도 되나요").
_REQUEST = re.compile(
    r"(?:어|아|해|워|줘)?주(?:실|시|세|겠|ㄹ|실래|시겠|시면|실수|ㄹ수)|줄수|줄래|드릴수|해도되|해도돼|해도될|로해도|으로해도"
)


def _question_form(text: str) -> bool:
    if text.rstrip().endswith("?"):
        return True
    # Symbols, numbers and foreign words after the ending do not end the sentence: "...있나요 010-1234-5678".
    morphs = [m for m in tokenize(text) if not m.tag.startswith(("S", "W_"))]
    if not morphs:
        return False
    last = morphs[-1]
    if last.tag == "EF" and last.form in _QUESTION_ENDINGS:
        # "아 아니 권나래요": Kiwi reads a name's last syllable as the hearsay question 래요
        word = text.rfind(" ", 0, last.start) + 1
        return not fused_name_ending(text, word, word + 2)
    # "바꿀 수 있죠", "되죠": a tag question.
    return last.tag == "EF" and last.form in ("죠", "지요") and "수있" in compact(text)


def classify_question(text: str) -> QuestionKind | None:
    """"information" when ``text`` asks for information, "request" when it asks the agent to do
    something (an answer phrased politely), None when it is no question."""
    text = normalize(text)
    c = compact(text)
    if not c:
        return None
    formal = _question_form(text) or bool(_WH_PLAIN.search(c))
    topical = question_topic(text) is not None
    if not formal and not (topical and re.search(r"(?:있|없|들|되|돼|나)(?:어요|나요|죠|요)$|있어$", c)):
        return None
    if _REQUEST.search(c) and not topical:
        return "request"
    if formal or topical:
        return "information" if (topical or _WH.search(c) or formal) else None
    return None
