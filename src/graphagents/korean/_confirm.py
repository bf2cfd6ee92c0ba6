"""Answers to "이 정보가 맞으신가요?": does the reply confirm, ask for a change, or neither?

Language only: which fields a reply names, and the values it gives, belong to the caller (the
slot-filling agent reads them per field). A correction cue (아니요, 틀렸어요, 바꿔 주세요, 다시
알려드릴게요) beats any positive word, so "네 근데 번호가 틀렸어요" asks for a change, while
"수정할 거 없어요" confirms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ._analyser import tokenize
from ._repair import is_hesitation
from ._text import compact, normalize

__all__ = ["ConfirmationCues", "confirmation_cues", "confirmation_intent"]

_NO_CHANGE = re.compile(
    r"(?:수정|변경|바꿀|고칠|틀린|잘못된|정정)(?:할|한)?(?:거|것|게|건|부분|데|곳)?(?:은|는|이|가|도)?(?:없|안해도)|"
    r"틀림없|다맞|전부맞|모두맞|둘다맞|그대로|이상없|문제없|정확"
)
_CORRECTION = re.compile(
    r"^(?:아니|아뇨|아녀|아닙|노노|ㄴㄴ|no(?![a-z]))|아니요|아니에요|아닙니다|아닌데|아니라|아니고|"
    r"틀렸|틀려|틀린|틀리|잘못|수정|변경|바꿔|바꾸|바꿀|바뀌|바뀐|바꿨|고쳐|고치|고칠|정정|"
    r"다르|달라|다릅|오타|안맞|맞지않|맞지는않|말고|그게아니|예전|옛날|이상해|이상한데|"
    r"다시(?:알려드|말씀드|말할|입력|불러드|얘기할|할게|쓸게|적을|설정|정할|고를|선택|할래|하고싶)"
)
_CONFIRM = re.compile(
    r"^(?:네|예|넵|넹|넴|응|웅|ㅇㅇ|ㅇㅋ|오케이|ok|okay|yes|yep|맞|좋|그래|그럼|확인|어$)|"
    r"맞아|맞습|맞네|맞음|맞죠|맞고|맞는|맞게|맞아용|정확|확인했|확인됐|확인완료|확인합|확인이요|좋아요|좋습|"
    r"괜찮|문제없|이상없|틀림없|그대로|진행해|진행하|진행시|넘어가|다음으로|됐어요|됐습니다|그렇습니다|그래요|"
    r"ok|오케이|correct|right|완벽"
)
_CONTRAST = re.compile(r"근데|그런데|하지만|그렇지만|그치만|다만|그러나|단지")


@dataclass(frozen=True, slots=True)
class ConfirmationCues:
    """What a reply (or a part of one) says about the values read back to the user."""

    confirms: bool
    corrects: bool


def confirmation_cues(text: str) -> ConfirmationCues:
    """Cues in ``text``; "수정할 거 없어요" confirms, "네 근데 번호가 틀렸어요" does both."""
    c = re.sub(r"^어+(?=.)", "", compact(text))  # "어 그래" / "어 맞아요": a leading 어 is a casual yes
    if not c:
        return ConfirmationCues(False, False)
    no_change = bool(_NO_CHANGE.search(c))
    corrects = not no_change and bool(_CORRECTION.search(c))
    confirms = no_change or bool(_CONFIRM.search(c))
    if not confirms:
        confirms = any(m.tag == "IC" and m.form in ("네", "예", "응", "넵") for m in tokenize(normalize(text)))
    return ConfirmationCues(confirms, corrects)


def contrast_position(text: str) -> int | None:
    """End of a contrast word ("근데", "하지만") in ``text``: what follows may take the yes back."""
    m = _CONTRAST.search(text)
    return m.end() if m else None


def confirmation_intent(text: str) -> Literal["confirmed", "needs_correction", "unclear"]:
    """The reply to a read-back, without fields: a correction cue wins, a hesitation or a question
    is unclear, and "네 근데 하나 물어볼게요" (a yes taken back after a contrast) is unclear."""
    text = normalize(text)
    if is_hesitation(text):
        return "unclear"
    cues = confirmation_cues(text)
    if cues.corrects:
        return "needs_correction"
    if not cues.confirms or text.endswith("?"):
        return "unclear"
    after = contrast_position(text)
    if after is not None and compact(text[after:]) and not confirmation_cues(text[after:]).confirms:
        return "unclear"
    return "confirmed"
