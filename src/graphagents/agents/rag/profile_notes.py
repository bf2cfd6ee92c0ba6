"""What the reply says about the profile: every change confirmed ("라베탈롤을 복용 약에 추가했어요"),
what could not be read said (a drug name the lexicon does not know is not silently dropped), and
the warnings the profile calls for on a question about medicines or treatment: the documents'
own sentences about the user's situation (pregnancy, age group, conditions, drugs) when the
retrieved passages have them, and always an explicit "ask your doctor / pharmacist" line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from graphagents.korean import compact, fold

from .guard import ANTICOAGULANTS
from .lexicon import find_terms, korean_name

__all__ = ["changes", "profile_warnings", "unreadable_drugs"]

_SLOT_KO = {"conditions": "질환", "medications": "복용 약", "symptoms": "증상"}
_SLOT_EN = {"conditions": "conditions", "medications": "medicines", "symptoms": "symptoms"}
_AGE_GROUP = {"child": ("어린이", "a child"), "infant": ("영아", "an infant"), "adolescent": ("청소년", "a teenager"),
              "adult": ("성인", "an adult"), "older_adult": ("65세 이상", "65 or older")}


def _name(item: Any) -> str:
    return str(item.get("name") if isinstance(item, Mapping) else item)


def _display(name: str, korean: bool) -> str:
    if not korean:
        return name
    from .slots import _LABS_KO, _SYMPTOMS_KO, _VITALS_KO

    return korean_name(name) or _SYMPTOMS_KO.get(name) or _VITALS_KO.get(name) or _LABS_KO.get(name) or name


def _object(word: str) -> str:
    """Korean object particle for ``word``: 을 after a final consonant, 를 otherwise."""
    last = word[-1:]
    if "가" <= last <= "힣":
        return word + ("을" if (ord(last) - 0xAC00) % 28 else "를")
    return word + "을(를)"


def changes(before: Mapping[str, Any], after: Mapping[str, Any], korean: bool) -> list[str]:
    """One short sentence per profile change between ``before`` and ``after``."""
    out: list[str] = []
    for slot in ("medications", "conditions", "symptoms"):
        old = {_name(i) for i in before.get(slot) or []}
        new = {_name(i) for i in after.get(slot) or []}
        for name in sorted(new - old):
            shown = _display(name, korean)
            out.append(f"{_object(shown)} {_SLOT_KO[slot]}에 추가했어요." if korean
                       else f"Added {shown} to your {_SLOT_EN[slot]}.")
        for name in sorted(old - new):
            shown = _display(name, korean)
            out.append(f"{_object(shown)} {_SLOT_KO[slot]}에서 뺐어요." if korean
                       else f"Removed {shown} from your {_SLOT_EN[slot]}.")
    demo_old, demo_new = dict(before.get("demographics") or {}), dict(after.get("demographics") or {})
    if demo_new.get("pregnant") and not demo_old.get("pregnant"):
        out.append("임신 중으로 기록했어요." if korean else "Noted that you are pregnant.")
    elif demo_old.get("pregnant") and not demo_new.get("pregnant"):
        out.append("임신 중 기록을 지웠어요." if korean else "Removed the pregnancy note.")
    if demo_new.get("age") is not None and demo_new.get("age") != demo_old.get("age"):
        out.append(f"나이를 {demo_new['age']}세로 기록했어요." if korean else f"Noted your age: {demo_new['age']}.")
    for key, value in (after.get("vitals") or {}).items():
        if (before.get("vitals") or {}).get(key) != value:
            out.append(f"{_display(key, True)} {value}을(를) 기록했어요." if korean
                       else f"Noted your {key.replace('_', ' ')}: {value}.")
    for key, value in (after.get("labs") or {}).items():
        if (before.get("labs") or {}).get(key) != value:
            out.append(f"검사 수치 {_display(key, True)} {value}을(를) 기록했어요." if korean
                       else f"Noted your {key.replace('_', ' ')}: {value}.")
    return out


# A word right before a "take" verb ("라베탈롤 먹고 있어요", "I take labetalol").
_KO_TAKEN = re.compile(r"([가-힣A-Za-z]{2,12}?)(?:을|를|이랑|하고|도)?(?:매일|하루에?|아침|저녁|꾸준히)?"
                       r"(?:먹고|먹어요|먹는|먹습니다|복용|처방받|드시고|맞고)")
_EN_TAKEN = re.compile(r"\b(?:i take|i'm taking|i am taking|i'm on|i am on|taking|prescribed)\s+([a-z][a-z-]{3,})\b")
_NOT_A_DRUG = frozenset({
    "약", "약을", "약도", "밥", "밥을", "음식", "술", "물", "커피", "영양제", "비타민", "유산균", "한약",
    "진통제", "해열제", "수면제", "혈압약", "당뇨약", "감기약", "소화제", "항생제", "주사", "같이", "함께",
    "그걸", "이걸", "무엇", "뭘", "뭐", "어떤", "무슨", "몇", "얼마나", "계속", "요즘", "지금", "예전", "매일",
    "하루", "아침", "저녁", "꾸준히", "잘", "많이", "medicine", "medicines", "medication", "pills", "vitamins",
    "supplements", "insulin", "care", "part", "time", "something", "anything", "nothing", "them", "this", "that",
    "these", "those", "every", "daily", "blood", "aspirin", "over", "about", "more",
})


def unreadable_drugs(text: str) -> list[str]:
    """Names the user says they take that the lexicon does not know: said in the reply, not dropped."""
    low = fold(text or "")
    known = {t.surface for t in find_terms(low)}
    found: list[str] = []
    for m in _KO_TAKEN.finditer(compact(low)):
        word = m.group(1)
        if word in _NOT_A_DRUG or any(word in k or k in word for k in known) or word.endswith("약"):
            continue
        found.append(word)
    for m in _EN_TAKEN.finditer(low):
        word = m.group(1)
        if word in _NOT_A_DRUG or any(word in k or k in word for k in known):
            continue
        found.append(word)
    return list(dict.fromkeys(found))


_MEDICINE_WORDS = re.compile(r"약|복용|먹어도|먹을|진통제|해열제|치료|부작용|같이|처방|희석제|항응고|용량|"
                             r"medicine|medication|drug|pill|tablet|prescri|dose|dosage|"
                             r"pain reliever|painkiller|treat|side effect|take|taking|thinner")
_FACTOR_CUES = {"pregnant": ("pregnan",), "child": ("child",), "infant": ("infant", "baby", "babies"),
                "older_adult": ("older adult", "older people", "elderly", "seniors", "over 65", "age 65")}


def _sentences_about(cues: Sequence[str], docs: Sequence[Mapping[str, Any]]) -> str | None:
    from graphagents.retrieval import sentences

    from .compose import clean_sentence

    for doc in docs:
        for raw in sentences(str(doc.get("text", ""))):
            text = clean_sentence(raw)
            if text and any(c in text.lower() for c in cues):
                return f"{text} ({doc.get('title') or doc.get('id')})"
    return None


def profile_warnings(profile: Mapping[str, Any], question: str, docs: Sequence[Mapping[str, Any]],
                     korean: bool) -> list[str]:
    """The lines a question about medicines or treatment gets from the user's profile: the documents'
    sentence about each factor (when a retrieved passage has one) and the doctor / pharmacist line."""
    if not profile:
        return []
    demo = profile.get("demographics") or {}
    bp = str((profile.get("vitals") or {}).get("blood_pressure") or "")
    high = re.match(r"(\d{2,3})\s*/\s*(\d{2,3})", bp)
    bp_alarm = bool(demo.get("pregnant") and high and (int(high.group(1)) >= 140 or int(high.group(2)) >= 90))
    if not _MEDICINE_WORDS.search(question.lower()) and not (bp_alarm and re.search(r"\d{2,3}\s*/\s*\d{2,3}|혈압|blood "
                                                                                  r"pressure", question.lower())):
        return []
    meds = [_name(m) for m in profile.get("medications") or []]
    conditions = [_name(c) for c in profile.get("conditions") or []]
    factors: list[tuple[str, tuple[str, ...]]] = []  # (what the user told us, cues in English passages)
    if demo.get("pregnant"):
        factors.append(("임신 중" if korean else "pregnant", _FACTOR_CUES["pregnant"]))
    group = str(demo.get("age_group") or "")
    if group in ("child", "infant", "older_adult"):
        factors.append((_AGE_GROUP[group][0 if korean else 1], _FACTOR_CUES[group]))
    for c in conditions:
        factors.append((_display(c, korean), (c.lower(),)))
    for m in meds:
        factors.append((_display(m, korean) + (" 복용" if korean else ""), (m.lower(),)))
    if not factors:
        return []
    lines: list[str] = []
    for label, cues in factors:
        quote = _sentences_about(cues, docs)
        if quote:
            lines.append(f"- {label}: 문서 원문 — {quote}" if korean
                     else f"- {label}: the documents say — {quote}")
    said = ", ".join(label for label, _ in factors)
    if korean:
        lines.insert(0, f"회원님 정보({said})를 고려한 안내:")
        if not any(line.startswith("- ") for line in lines):
            lines.append("- 문서에는 이 상황에 맞춘 안내가 없습니다.")
    else:
        lines.insert(0, f"For your situation ({said}):")
        if not any(line.startswith("- ") for line in lines):
            lines.append("- The documents say nothing specific to it.")
    if set(meds) & ANTICOAGULANTS:
        lines.append("- 항응고제(혈액 희석제)를 드시므로 출혈 위험이 있습니다. "
                     "다른 약이나 영양제를 함께 먹기 전에 확인하세요." if korean else
                     "- You take a blood thinner: there is a risk of bleeding; check before adding any other "
                     "medicine or supplement.")
    if bp_alarm:
        lines.append(f"- 임신 중 혈압 {bp}은(는) 140/90 이상입니다. 임신성 고혈압·전자간증의 신호일 수 있으니 "
                     "오늘 바로 산부인과에 연락하세요." if korean else
                     f"- A blood pressure of {bp} in pregnancy is 140/90 or higher, which can be a sign of "
                     "pre-eclampsia: contact your obstetrician today.")
    lines.append("- 약을 먹거나 바꾸기 전에 꼭 의사·약사와 상의하세요." if korean
                 else "- Ask your doctor or pharmacist before taking or changing any medicine.")
    return lines
