"""Yes/no answers to "…하시겠어요?" questions.

Negation always wins over positive words: "필요 없어요", "신청 안 해요", "사용하지 않을게요" contain
the positive 필요/신청/사용 yet mean no. Negation is found both on spacing-free text (robust to STT
spacing) and by Kiwi's MAG 안/못 and VX 않/말 tags (robust to 보안, 미안, 제안 which merely contain 안).

Deferring ("나중에 할게요", "보류할게요") is "no" to a question about now.

Documented choice: "괜찮아요"/"괜찮습니다"/"됐어요" answer an offer with a polite refusal, so they
are "no" here, even after 네 ("네 괜찮아요"). In a confirmation ("맞으신가요?") 괜찮아요 means
"fine"; that context is handled by ``classify_confirmation``, not here.
"""

from __future__ import annotations

import re
from typing import Literal

from ._analyser import tokenize
from ._repair import classify_repair, is_hesitation
from ._text import compact, fold

__all__ = ["YesNo", "classify_yes_no", "has_affirmation", "has_negation"]

YesNo = Literal["yes", "no"]

# A trailing-off "어..." is hesitation, not the casual yes "어": "어... 모바일OTP로요" answers nothing yet.
_FILLER = re.compile(r"^(?:아+|음+|으음|흠+|저기요?|저|에|엄|그|그게|어+(?=\s*(?:\.\.|…)))[\s,.…]+")
# "상관없어요", "문제없어요" contain 없 but are not refusals.
_NEUTRAL = re.compile(
    r"(?:상관|문제|이상|지장|걱정|불만|빠짐)(?:이|은|는|가|도)?없(?:어요|습니다|어|죠|네요|음|이|는데요?|고)?"
)
_NEG_START = re.compile(r"^(?:아니|아뇨|아녀|아닙|아냐|아녜|노+요?$|노노|놉|ㄴㄴ|ㄴ$|nope|nah|no(?![a-z]))")
_NEG_ANY = re.compile(
    r"(?<![보편치제불방대문답현미건])안(?:할|해|함|하|쓸|써|쓰|씀|받|돼|될|되|원|필요|만들|키|켜|걸|둘|둬|씁|합)|"
    r"않|지마|지말|말게|말래|마세요|말아주|말구요|말고요$|아닌데|아니에요|아닙니다|아니요|"
    r"필요없|필요가없|필요는없|필요하지|싫|괜찮|됐어|됐습니다|됐고|됐구|됐거든|"
    r"별로|패스|생략|스킵|skip|^굳이요?$|^딱히요?$|빼주|빼줘|빼세요|빼두|나중에|다음에|이따가?(?:할|해|하)|보류|끌게|끌래|끄고|꺼주|꺼줘|끄세요|꺼두|해제|넘어가|넘어갈|건너뛰|노땡큐|노생큐|거절|사양할|못하|못할|못해|없어요|없습니다|없음|없어$|없어도"
)
_NEG_EN = re.compile(r"(?<![a-z])(?:no|nope|nah|n)(?![a-z])")
_POS_FIRST = frozenset(
    str.split(
    "네 넵 넹 넴 예 옙 응 웅 어 네네 넵넵 예예 응응 웅웅 어어 네에 예에 ㅇㅇ ㅇ ㅇㅋ ㅇㅋㅇㅋ 오케이 오키 오케 콜 "
    "그래 그래요 좋아 좋아요 좋습니다 맞아 맞아요 맞습니다 당연 당연하죠 당연하지 당연하지요 물론 물론이죠 물론요 "
    "그럼 그럼요 예스 알겠어요 알겠습니다 알았어요 yes yep yeah yup sure ok okay y ya"
    )
)
_POS_ANY = re.compile(
    r"좋아|좋습|좋죠|좋을|좋겠|맞아|맞습|맞죠|맞네|맞음|그래요|그래주|그렇게|그러죠|그럴게|그럽시다|그걸로|"
    r"당연|물론|싶어|싶습|싶네|원해|원합니다|원하|필요해|필요합|필요하죠|필요할|부탁|동의|알겠|알았|오케이|"
    r"할게|할께|할래|하겠|하세요|하십시오|주십시오|해주세요|해줘|해주시|해주실|해요$|합니다$|해야죠|할거|해놔|해놓|"
    r"신청|사용|설정|등록|가입|이용|차단|쓸게|쓸래|쓰겠|써주|써요|쓸거|쓸께|받을|받겠|받아|받고|받죠|켜"
)
_POS_EN = re.compile(r"(?<![a-z])(?:yes|yeah|yep|yup|ok|okay|sure|y|ya)(?![a-z])")
_QUESTION_END = re.compile(r"(?:나요|까요|습니까|을까|할까|는지요?|인가요|은가요|건가요|되나요|돼요\?|뭐)\??$")


def has_negation(text: str) -> bool:
    """True when ``text`` negates its verb or refuses; used to scope yes/no per clause too."""
    norm = _FILLER.sub("", fold(text))
    c = _NEUTRAL.sub("", compact(norm))
    if _NEG_START.match(c) or _NEG_ANY.search(c) or _NEG_EN.search(norm):
        return True
    morphs = tokenize(norm)
    for i, m in enumerate(morphs):
        nxt = morphs[i + 1].tag if i + 1 < len(morphs) else ""
        if m.tag == "MAG" and m.form in ("안", "못") and (nxt in ("VV", "VA", "XSV", "VX") or nxt.startswith("NN")):
            return True
        if m.tag == "VX" and m.form in ("않", "말"):
            return True
        if m.tag == "VCN" or (m.tag == "IC" and m.form in ("아니", "아니요", "아뇨", "아니오")):
            return True
    return False


def _is_question(norm: str, c: str) -> bool:
    return norm.endswith("?") or bool(_QUESTION_END.search(c))


def has_affirmation(text: str) -> bool:
    """True when ``text`` contains a positive answer word or a volitional verb ("할게요", "받을래요")."""
    norm = _FILLER.sub("", fold(text))
    c = compact(norm)
    first = re.sub(r"[^\w]", "", norm.split(" ", 1)[0]) if norm else ""
    if first in _POS_FIRST or _POS_ANY.search(c) or _POS_EN.search(norm):
        return True
    return any(m.tag == "IC" and m.form in ("네", "예", "응", "그래", "넵") for m in tokenize(norm))


def classify_yes_no(text: str) -> YesNo | None:
    """"yes", "no", or None when ``text`` is no answer (a question, a repair request, small talk)."""
    norm = _FILLER.sub("", fold(text))
    c = compact(norm)
    if not c or is_hesitation(text) or classify_repair(text, expecting_yes_no=True) is not None:
        return None
    if _is_question(norm, c) and not _NEG_START.match(c):
        return None
    if has_negation(text):
        return "no"
    if has_affirmation(text):
        return "yes"
    return None
