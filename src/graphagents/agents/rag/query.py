"""The question's focus and the retrieval query.

The corpus is English and BM25 matches words, so a Korean question's aspect words ("부작용", "치료법",
"예후") are added to the retrieval query in English (a small glossary of the question types MedQuAD
answers), next to the profile's canonical terms (drugs, conditions). Focus terms are what the judge
checks the answer covers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from graphagents.retrieval import terms

__all__ = ["ASPECTS", "ASPECT_WORDS", "aspects_of", "focus_terms", "is_korean", "profile_relevant", "profile_terms",
           "retrieval_query",
           "slot_terms"]

# Korean aspect word (a Kiwi morpheme or a substring of the question) -> English words of that aspect.
ASPECTS: dict[str, tuple[str, ...]] = {
    "부작용": ("side effects", "adverse effects"),
    "이상반응": ("side effects", "adverse effects"),
    "증상": ("symptoms", "signs"),
    "징후": ("signs", "symptoms"),
    "치료": ("treatment", "treated"),
    "치료법": ("treatment", "treated"),
    "원인": ("causes", "cause"),
    "진단": ("diagnosis", "diagnosed", "tests"),
    "검사": ("tests", "exams"),
    "예방": ("prevention", "prevent"),
    "병기": ("stages", "stage"),
    "단계": ("stages",),
    "예후": ("outlook", "prognosis"),
    "경과": ("outlook", "prognosis"),
    "유전": ("inherited", "genetic"),
    "유전자": ("genes", "genetic changes"),
    "위험군": ("risk", "at risk"),
    "위험": ("risk",),
    "합병증": ("complications",),
    "임상시험": ("clinical trials", "research"),
    "연구": ("research", "clinical trials"),
    "얼마나 많은": ("how many people", "frequency"),
    "흔한": ("common",),
    "정보": ("information",),
    "무엇": ("what is",),
    "뭐예요": ("what is",),
    "용량": ("dose", "dosage"),
    "몇 번": ("how often", "times a day"),
    "복용": ("take", "dose"),
    "식단": ("diet", "eating"),
    "음식": ("food", "eating"),
    "운동": ("exercise", "physical activity"),
    "혈압": ("blood pressure",),
    "혈당": ("blood glucose", "blood sugar"),
    "공복혈당": ("fasting blood glucose", "fasting plasma glucose"),
    "당화혈색소": ("A1C",),
    "당뇨": ("diabetes",),
    "당뇨병": ("diabetes",),
    "고혈압": ("high blood pressure", "hypertension"),
    "저혈압": ("low blood pressure", "hypotension"),
    "콜레스테롤": ("cholesterol",),
    "신장": ("kidney",),
    "콩팥": ("kidney",),
    "만성 신장병": ("chronic kidney disease",),
    "심장": ("heart",),
    "뇌졸중": ("stroke",),
    "천식": ("asthma",),
    "암": ("cancer",),
    "백혈병": ("leukemia",),
    "림프종": ("lymphoma",),
    "성인": ("adult",),
    "소아": ("childhood", "children"),
    "어린이": ("children", "childhood"),
    "아이": ("child", "children"),
    "임신": ("pregnancy", "pregnant"),
    "진통제": ("pain relievers", "pain medicines"),
    "해열제": ("fever reducers", "fever"),
    "두통": ("headache",),
    "혈액 희석제": ("blood thinners",),
    "항응고제": ("anticoagulants", "blood thinners"),

    "노인": ("older adults", "seniors"),
}
_GENERIC = frozenset({"what is", "information", "common"})
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_QUESTION_WORDS = frozenset({
    "what", "how", "why", "when", "who", "which", "are", "is", "do", "does", "can", "could", "should", "tell",
    "있", "하", "되", "나", "뭐", "무엇", "어떻", "어떤", "알", "주", "싶", "궁금", "가요", "인가", "건가",
    "많", "얼마", "대하", "관련", "대해", "좀", "제", "저", "내", "요", "수",
})


def is_korean(text: str) -> bool:
    return bool(_HANGUL.search(text))


def aspects_of(text: str) -> list[str]:
    """English words of the aspects a (Korean) question asks about, in glossary order, no repeats."""
    words = set(terms(text)) if is_korean(text) else set()
    out: list[str] = []
    for ko, en in ASPECTS.items():
        if ko in words or (" " in ko and ko in text) or (len(ko) >= 3 and ko in text):
            out.extend(e for e in en if e not in out and e not in _GENERIC)
    return out


def slot_terms(slot_out: Mapping[str, Any]) -> list[str]:
    """The medication and condition names a question's slots name, in English where we know it
    (the slot extractor's canonical drug names are English)."""
    out: list[str] = []
    for item in [*(slot_out.get("medications") or []), *(slot_out.get("conditions") or [])]:
        name = item.get("name") if isinstance(item, Mapping) else item
        if not isinstance(name, str) or not name.strip():
            continue
        if is_korean(name):
            english = ASPECTS.get(name.strip())
            if english is None:
                continue
            name = english[0]
        if name not in out:
            out.append(name)
    return out


_UNITS = frozenset({"mg", "g", "mcg", "ug", "kg", "ml", "l", "dl", "mmhg", "mmol", "iu", "cc", "tab", "tabs"})


def focus_terms(text: str) -> list[str]:
    """What the question is about, as terms an English passage would contain: its content words
    (English as they are; Korean aspect words in English) and its numbers with units ("500mg"),
    without question words."""
    from graphagents.cache import quantities

    out: list[str] = [q for q in quantities(text) if re.search(r"[a-z]", q)]
    # glossary names of two words ("혈액 희석제") are not one morpheme: looked up in the text
    joined = [k for k in ASPECTS if " " in k and k in text] if is_korean(text) else []
    for t in [*joined, *terms(text)]:
        if t in _QUESTION_WORDS or t in _UNITS or len(t) < 2 or t.isdigit():
            continue
        if is_korean(t):
            english = ASPECTS.get(t)
            if english is None:
                continue  # a Korean word we cannot look for in English passages
            t = english[0]
            if t in _GENERIC:
                continue
        if t not in out:
            out.append(t)
    return out


def profile_terms(profile: Mapping[str, Any], relevant: Iterable[str] = ()) -> list[str]:
    """Canonical medication and condition names of the profile (the retrieval query's additions)."""
    out: list[str] = []
    for item in [*(profile.get("medications") or []), *(profile.get("conditions") or [])]:
        name = item.get("name") if isinstance(item, Mapping) else item
        if isinstance(name, str) and name and name not in out:
            out.append(name)
    out.extend(r for r in relevant if r not in out)
    return out


_SELF = re.compile(r"(^|[^가-힣])(제가|저는|저도|제|내가|나는|내)(\s|$)|\b(i|my|me|i'm|mine)\b", re.IGNORECASE)
_ENTITIES = frozenset({
    "혈압", "혈당", "공복혈당", "당화혈색소", "당뇨", "당뇨병", "고혈압", "저혈압", "콜레스테롤", "신장",
    "콩팥", "만성 신장병", "심장", "뇌졸중", "천식", "암", "백혈병", "림프종", "성인", "소아", "어린이",
    "아이", "임신", "노인", "식단", "음식", "운동", "진통제", "해열제", "두통", "혈액 희석제", "항응고제"})
ASPECT_WORDS = frozenset(e for key, values in ASPECTS.items() if key not in _ENTITIES for e in values)
"""English words of question aspects (side effects, treatment ...), as opposed to topics (diseases, drugs)."""
_ASPECT_ONLY = ASPECT_WORDS


def profile_relevant(text: str) -> bool:
    """The profile matters to the question: it speaks of the user ("제가", "my") or names no topic
    of its own ("부작용이 뭐예요?" after "메트포르민 먹어요")."""
    if _SELF.search(text):
        return True
    topics = [t for t in focus_terms(text) if t not in _ASPECT_ONLY]
    if topics:
        return False
    # a Korean question's own topic may be a name the glossary does not hold: a drug or condition of
    # the lexicon ("C형 간염은 어떻게 치료하나요?"), or a noun nobody reads ("구내염") -- either way it is
    # not a question about the user's own medicines
    from .guard import unknown_topic_words
    from .lexicon import find_terms

    return not find_terms(text) and not (is_korean(text) and unknown_topic_words(text))


def retrieval_query(text: str, profile: Mapping[str, Any] | None = None, *, extra: Iterable[str] = ()) -> str:
    """The question, its aspects in English (Korean questions), the profile's terms when the profile
    is relevant to the question, and ``extra`` (the judge's missing information), without repeats."""
    parts = [text.strip()]
    added: list[str] = []
    own = profile_terms(profile) if profile and profile_relevant(text) else []
    for word in [*aspects_of(text), *own, *extra]:
        if word and word.lower() not in text.lower() and word not in added:
            added.append(word)
    if added:
        parts.append(" ".join(added))
    return " ".join(parts)
