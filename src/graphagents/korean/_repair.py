"""Conversation repair: the user wants to stop, get help, hear the question again or reach a person.

These requests can arrive at any turn, so the engine checks them before reading a slot value.
Phrases are matched on spacing-free text because STT spacing is unreliable ("그만할래요" vs
"그만 할래요"). Priority is handoff > cancel > repeat > help: "상담원한테 뭐냐고 물어볼래요" is
a handoff, "뭐라고요?" is a repeat even though it contains 뭐.
"""

from __future__ import annotations

import re
from typing import Literal

from ._text import compact, fold

__all__ = ["Repair", "classify_repair", "is_hesitation", "strip_hesitation"]

Repair = Literal["cancel", "help", "repeat", "handoff"]

_HANDOFF = re.compile(
    r"상담원|상담사|상담직원|상담원분|전화상담|유인상담|콜센터|고객센터|"
    r"(?:직원|사람|담당자|매니저|사람상담|상담)(?:분|님)?(?:이랑|하고|과|와|한테|에게|이|을|를|으로|로)?"
    r"(?:좀|직접)?(?:연결|바꿔|바꾸|통화|얘기|이야기|대화|불러|말하|상담)"
)
# Leaving the whole process, whatever the question was.
_CANCEL_STRONG = re.compile(
    r"그만(?!큼)|취소|여기까지(?:할|하|만|요)|중단|중지|종료|관둘|관두|관둬|포기|나갈래|나갈게|나가고싶|끝낼래|끝낼게|끝내고싶|"
    r"(?:통장|(?<!평생)계좌|개설|가입|진행|이거|상담)(?:은|는|을|를|도)?(?:이제|그냥|아예)?"
    r"(?:안할|안만들|안하|안해|안할게|안할래|하지않|만들지않|필요없|원하지않)"
)
# "상담원은 필요 없어요", "상담원 연결 안 해도 돼요", "상담원 말고 계속할게요": a person is declined.
_NOT_WANTED = re.compile(
    r"필요없|필요는없|안해도|안할|안하|괜찮|됐어|됐습|말고|싫|안불러|안바꿔|하지않|안연결|연결하지|아니|없이"
)
_DEFER = re.compile(r"(?:나중에|다음에)(?:할|하|다시|올|진행|해|요$|할래|할게)")
_REFUSE_ALL = re.compile(r"(?:이제|아예|더이상|더는)(?:안할|안해|안하|하기싫|안만들)")
_REFUSE = re.compile(r"안할래|안할게|안하겠|안해요|안합니다|하기싫|하고싶지않|안하고싶|안만들")
_REPEAT = re.compile(
    r"다시(?:한번|한번만)?(?:말|얘기|이야기|읽|불러|알려|설명|물어|해)(?:씀)?(?:해|어|러)?"
    r"(?:주|줘|줄래|주실|주시|달라)|"
    r"^(?:다시|다시요|다시한번|다시한번만|한번더|한번만더|한번더요|다시한번요|한번만다시)(?:요|해주세요)?$|"
    r"한번만?더(?:말|얘기|이야기|해|읽|불러)|"
    r"뭐라고|뭐라구|뭐라고요|뭐라셨|뭐라하셨|뭐라고하셨|뭐라그랬|"
    r"못들었|못들은|안들려|안들렸|안들리|잘안들|못알아들|잘못들었|놓쳤"
)
_REPEAT_ECHO = re.compile(r"^(?:네|예|뭐|뭐요|에|응|음|엥|네에|예에)\?+$")
_HELP = re.compile(
    r"뭐예요|뭐에요|뭔가요|뭐죠|뭐지|뭔데|뭐야|뭐냐|뭐임|뭡니까|무엇|무슨뜻|무슨의미|무슨말|뜻이|뜻은|의미가|"
    r"차이|설명(?!필요없|은필요없|안해도|은됐)|알려주세요|알려줘|알려주실|알려주시|궁금|(?:모르겠|몰라)\w{0,4}$|"
    r"어떤거|어떤건|어떤게|어느게|어느거|"
    r"어떻게(?:다르|달라|되|돼|하|해|써|쓰|사용)|뭐가(?:좋|나아|낫|달라|다르|다른)|추천|뭘(?:골라|선택|해야|하면)|"
    r"뭐하는|뭐에쓰|뭐에써|어디에쓰|왜(?:요|죠|해야|필요)"
)
_WH_QUESTION = re.compile(r"뭐|무엇|무슨|어떤|어떻게|왜|언제|얼마|어디|어느")
# Words that hold the turn without answering: interjections, and asking for a moment or time to think.
_INTERJECTION = re.compile(r"(?:어+|음+|으+음|흠+|저+|그+|에+|엄+)")
_FILLER_WORD = re.compile(r"(?:아+|어+|음+|으+음|흠+|에+|엄+|그+|저+|저기요?|그게|그러니까|뭐지|뭐더라|어디보자|어디)")
_HOLD_WORD = re.compile(
    r"잠깐(?:만)?(?:요|만요)?|잠시(?:만)?(?:요)?|글쎄(?:요)?|생각(?:좀|을|중|중이에요)?|생각할|생각해볼게요|생각해볼래요|"
    r"시간(?:을|이)?|좀|잘|고민(?:좀|중|중이에요|해볼게요)?|해볼게요|해볼래요|모르겠(?:어요|네요|습니다|는데|는데요)?|"
    r"몰라(?:요)?|주세요|기다려(?:요|주세요|줘요)?|줘요|있어봐요|있어봐"
)
_BARE_ANSWER = frozenset({"네", "예", "응", "어"})
_WORDS = re.compile(r"[^\s.,!?~…·;:]+")


def _words(text: str) -> list[str]:
    return _WORDS.findall(fold(text))


def _holding(word: str) -> bool:
    return bool(_FILLER_WORD.fullmatch(word) or _HOLD_WORD.fullmatch(word))


def is_hesitation(text: str) -> bool:
    """"어...", "음", "잠깐만요", "네 잠깐만요", "글쎄요": the user has not answered yet, so it is
    neither yes nor no. "잠깐만요, 연락처는 010-...으로 바꿔 주세요" is an answer after a filler.

    A bare "어" is a casual yes in Korean, but trailing off ("어...") or a hold-on phrase is not.
    """
    words = _words(text)
    if not words:
        return False
    if any(_HOLD_WORD.fullmatch(w) for w in words):
        return all(_holding(w) or w in _BARE_ANSWER for w in words)
    c = compact(text)
    if _INTERJECTION.fullmatch(c):
        return c[0] != "어" or fold(text).endswith(("..", "…", "~"))
    return False


def strip_hesitation(text: str) -> str:
    """``text`` without the fillers and hold-on words it starts with: "아 잠깐, 전화번호 잘못
    말했어요" -> "전화번호 잘못 말했어요". Unchanged when nothing else follows ("어" stays a yes)."""
    pos = 0
    for m in _WORDS.finditer(text):
        if not _holding(m.group().casefold()):
            rest = text[m.start():]
            return rest if pos else text
        pos = m.end()
    return text


def classify_repair(text: str, *, expecting_yes_no: bool = False) -> Repair | None:
    """Which repair move ``text`` makes, or None when it is an ordinary answer.

    With ``expecting_yes_no`` a bare refusal ("안 할래요", "나중에 할게요") is the answer "no" to
    the question just asked, so only phrases about the whole process ("그만할래요", "이제 안 할래요",
    "통장 안 만들래요") count as cancel.
    """
    norm = fold(text)
    c = compact(text)
    if not c:
        return None
    handoff = _HANDOFF.search(c)
    if handoff and not _NOT_WANTED.search(c, handoff.start()):
        return "handoff"
    if _CANCEL_STRONG.search(c) or _REFUSE_ALL.search(c):
        return "cancel"
    if not expecting_yes_no and (_DEFER.search(c) or _REFUSE.search(c)):
        return "cancel"
    if _REPEAT.search(c) or _REPEAT_ECHO.match(norm.replace(" ", "")):
        return "repeat"
    if _HELP.search(c):
        return "help"
    if norm.endswith("?") and _WH_QUESTION.search(c):
        return "help"
    return None
