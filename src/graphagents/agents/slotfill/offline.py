"""The deterministic offline brain: slot values and intents from Korean text, no model needed.

Built on the NLU primitives (amounts, phones, yes/no, repair, Kiwi morphology). What this module
adds is the scenario context: which slots may be given at this stage, which cue words name them
("1회" vs "하루"), and contrast phrases ("김철수가 아니라 김민수", "OTP 말고 보안카드") where
the value after the contrast is the one the user means.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ...korean import (
    classify_repair,
    classify_yes_no,
    compact,
    confirmation_cues,
    find_amounts,
    find_phones,
    has_negation,
    loose,
)
from ...korean import fold as normalize
from .flow import applicable
from .nlu import SlotSpec, extract_slots, find_labels, match_enum
from .nlu import classify_confirmation as nlu_confirmation
from .nlu.slots import item_yes_no
from .scenario import Scenario, SlotDef

_CONTRAST = re.compile(r"아니라|아니고|말고|대신|아닌|에서\s*\S*?(?:으로|로)\s*(?:바꿔|변경|수정)")


@dataclass(frozen=True)
class ConfirmationResult:
    intent: str
    """confirmed | needs_correction | specific_correction | unclear"""
    values: dict[str, Any] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)


def mentions(slot: SlotDef) -> list[str]:
    return sorted({slot.label, *slot.mentions}, key=len, reverse=True)


@lru_cache(maxsize=512)
def _cues(items: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[str, str]]:
    """(cue as matched, key) for every word naming the items, longest first."""
    return sorted(((loose(m.casefold()), k) for k, words in items for m in words), key=lambda c: -len(c[0]))


def mention_spans(text: str, keys: list[str], sc: Scenario) -> list[tuple[int, int, str]]:
    """(start, end, key) for every cue word naming one of ``keys``, longest cue first, no overlaps."""
    low = loose(normalize(text))
    spans: list[tuple[int, int, str]] = []
    cues = _cues(tuple((k, tuple(mentions(sc.slots[k]))) for k in keys))
    taken = [False] * len(low)
    for cue, key in cues:
        for m in re.finditer(re.escape(cue), low):
            if not any(taken[m.start():m.end()]):
                spans.append((m.start(), m.end(), key))
                for i in range(m.start(), m.end()):
                    taken[i] = True
    return sorted(spans)


def mentioned_fields(text: str, keys: list[str], sc: Scenario) -> list[str]:
    out: list[str] = []
    for _, _, key in mention_spans(text, keys, sc):
        if key not in out:
            out.append(key)
    return out


# ------------------------------------------------------------------------------ slot values
_NLU_TYPES = {"amount": "amount_krw"}


def slot_spec(sc: Scenario, key: str) -> SlotSpec:
    slot = sc.slots[key]
    choices = ({c: list(slot.synonyms.get(c, [])) for c in slot.choices} if slot.type == "enum" else None)
    return SlotSpec(key, _NLU_TYPES.get(slot.type, slot.type), tuple(mentions(slot)), choices)  # type: ignore[arg-type]


def extract(text: str, keys: list[str], focus: list[str], sc: Scenario, slots: Mapping[str, Any],
            extra: Sequence[str] = ()) -> dict[str, Any]:
    """Candidate values (not yet validated) for ``keys``; ``focus`` are the slots just asked.

    A bare "네"/"아니요" answers only the yes/no slots just asked, never every boolean the stage
    accepts: at the summary's correction stage "아니요" must not switch all the alerts off.

    ``extra`` are slots of later stages the user may volunteer ("평생계좌 쓸게요 그리고 인터넷뱅킹도
    신청해 주세요"): they count only when named, or (a closed choice) given by one of their values,
    and only when applicable with what this answer sets."""
    extra = [k for k in extra if k not in keys]
    volunteered = _volunteer_candidates(text, keys, extra, sc, slots)
    found = _extract(text, [*keys, *volunteered], focus, sc, slots)
    if not volunteered:
        return found
    given = [k for k in volunteered if k in found]
    if not given:  # nothing usable volunteered: read the answer as if only the question were asked
        return _extract(text, keys, focus, sc, slots)
    missing = [k for k in focus if k not in found and sc.slots[k].type == "boolean"]
    if missing:
        # "네 하고 보안매체는 모바일OTP로 할게요": the yes/no before the volunteered part answers the question.
        start = min(s for s, _, _ in _evidence(text, given, [*keys, *extra], sc))
        before = normalize(text)[:start]
        # "알림 설정 말고 인터넷뱅킹 자체를 안 할래요": what comes before 말고 is set aside, not answered.
        answer = None if _CONTRAST.search(before) else classify_yes_no(before)
        if answer is not None:
            for key in missing:
                found[key] = answer == "yes"
    _check_volunteered_booleans(text, [k for k in given if sc.slots[k].type == "boolean"], keys + extra, sc, found)
    for key in [k for k in given if not applicable(sc, k, {**slots, **found})]:
        del found[key]  # 보안매체 given while internet banking is declined (or not yet accepted)
    if not any(k in found for k in given):
        return _extract(text, keys, focus, sc, slots)
    return found


_JOINED = re.compile(r"\s*(?:은|는|도)?\s*(?:이랑|랑|하고|과|와|및|,|그리고)\s*")


def _check_volunteered_booleans(text: str, given: list[str], all_keys: list[str], sc: Scenario,
                                found: dict[str, Any]) -> None:
    """A volunteered yes/no must be what its own words say, from its name to the next slot named:
    in "아니요 모바일뱅킹은 할게요" the 아니요 answers the question asked, not internet banking."""
    low = normalize(text)
    spans = mention_spans(text, all_keys, sc)
    for key in given:
        own = [sp for sp in spans if sp[2] == key]
        start = own[0][0] if own else 0
        ends = [s for s, _, k in spans if s > start and k != key] + [len(low)]
        end = ends[0]
        if own and _JOINED.fullmatch(low[own[0][1]:end]) and len(ends) > 1:
            end = ends[1]  # "인터넷뱅킹이랑 평생계좌 둘 다 할게요": joined items share the verb
        answer = item_yes_no(low[start:end])
        if answer is None or (answer == "yes") != found.get(key):
            del found[key]


def _evidence(text: str, keys: list[str], all_keys: list[str], sc: Scenario) -> list[tuple[int, int, str]]:
    """Spans (in ``normalize(text)``) that name ``keys`` or give one of their enum values."""
    low = normalize(text)
    spans = [sp for sp in mention_spans(text, all_keys, sc) if sp[2] in keys]
    for key in keys:
        slot = sc.slots[key]
        if slot.type == "enum":
            words = [w for c in slot.choices for w in (c, *slot.synonyms.get(c, []))]
            spans.extend((s, e, key) for s, e in find_labels(low, words))
    return spans or [(len(low), len(low), "")]


_CHANGE_CUE = re.compile(r"바꿔|바꾸|바꿀|변경|수정|정정|고쳐|잘못|틀렸|틀려|틀린")


def _names_in_full(text: str, slot: SlotDef) -> bool:
    """A yes/no item outside the question counts only when named in full or by a distinctive
    mention: "해외 송금도 할 거라 네" is no request for overseas IP blocking ("해외" is too short),
    while "평생계좌는 안 쓸래요" names the lifelong account."""
    return bool(find_labels(text, (slot.label, *(m for m in slot.mentions if len(compact(m)) >= 3))))


def _volunteer_candidates(text: str, keys: list[str], extra: list[str], sc: Scenario,
                          slots: Mapping[str, Any]) -> list[str]:
    """Slots outside the question that ``text`` gives: named (yes/no items by a distinctive name),
    a phone number offered as a change, or (not yet answered) a closed choice given by its value."""
    if not extra:
        return []
    named = set(mentioned_fields(text, [*keys, *extra], sc))
    out = [k for k in extra if k in named and (sc.slots[k].type != "boolean" or _names_in_full(text, sc.slots[k]))]
    if _CHANGE_CUE.search(compact(text)) and find_phones(text):
        out.extend(k for k in extra if sc.slots[k].type == "phone" and k not in out and k in slots)
    low = normalize(text)
    chars = list(low)
    for s, e, _ in mention_spans(text, [*keys, *extra], sc):  # "모바일뱅킹" names a slot, it is no 모바일OTP
        chars[s:e] = " " * (e - s)
    rest = "".join(chars)
    for key in extra:
        slot = sc.slots[key]
        # A closed choice by its value only before it is answered: a changed answer names its item.
        if (key not in out and key not in slots and slot.type == "enum"
                and match_enum(rest, slot_spec(sc, key).choices or {})):
            out.append(key)
    return out


def _extract(text: str, keys: list[str], focus: list[str], sc: Scenario, slots: Mapping[str, Any]) -> dict[str, Any]:
    named = set(mentioned_fields(text, keys, sc))
    focus_bools = [k for k in focus if sc.slots[k].type == "boolean"]
    wanted = [k for k in [*focus, *keys] if sc.slots[k].type != "boolean" or k in named or k in focus_bools]
    specs = [slot_spec(sc, k) for k in dict.fromkeys(wanted)]
    # A stage that takes the name (greeting, its correction) is about the name: "길은호" answers it.
    asked = [*focus, *(k for k in keys if sc.slots[k].type == "person_name")]
    found: dict[str, Any] = dict(extract_slots(text, specs, slots, asked)) if specs else {}
    _extremes(text, [k for k in focus if sc.slots[k].type == "amount" and k not in found], sc, found)
    phones = [m.number for m in find_phones(text)]
    for key in (k for k in wanted if sc.slots[k].type == "phone" and k in found):
        # "010-1234-5678 말고 010-9876-5432": the number the user moves to is the new one.
        fresh = [p for p in phones if p != slots.get(key)]
        if len(phones) > 1 and fresh and _CONTRAST.search(text):
            found[key] = fresh[-1]
    bools = [k for k in keys if sc.slots[k].type == "boolean"]
    _boolean_fixes(text, [k for k in wanted if sc.slots[k].type == "boolean"], sc, found)
    _blanket(text, bools, named, sc, found)
    return found


_MOST = re.compile(r"최대|최고|최댓값|제일많이|가장많이|제일크게|가장크게|한도끝까지|끝까지|풀로|맥스")
_LEAST = re.compile(r"최소|최저|최솟값|제일적게|가장적게|제일작게|가장작게")
_MOST_EN = re.compile(r"\b(?:max|maximum|highest|as much as possible)\b")
_LEAST_EN = re.compile(r"\b(?:min|minimum|lowest|as little as possible)\b")


def _extremes(text: str, keys: list[str], sc: Scenario, found: dict[str, Any]) -> None:
    """"최대로 해 주세요" after the range is read out: the slot's largest (or smallest) allowed amount.
    The slot is the one named, or every amount just asked when none is named."""
    c, low = compact(text), normalize(text)
    most = bool(_MOST.search(c) or _MOST_EN.search(low))
    least = bool(_LEAST.search(c) or _LEAST_EN.search(low))
    if most == least or not keys or find_amounts(text):
        return  # "하루 한도는 최대로 5억으로": 최대 describes the amount said, and sets no other slot
    named = [k for k in mentioned_fields(text, keys, sc)] or keys
    for key in named:
        rule = sc.slots[key].validation
        bound = rule.max if most else rule.min
        if bound is not None:
            found[key] = bound


def approximate_keys(text: str, found: Mapping[str, Any], sc: Scenario) -> list[str]:
    """Amount slots whose value the user gave as an estimate ("이천만원쯤", "약 300만원")."""
    hedged = {m.value for m in find_amounts(text) if m.approximate}
    return [k for k, v in found.items() if k in sc.slots and sc.slots[k].type == "amount" and v in hedged]


# "전부 다 꺼주세요", "다 끌게요", "알림 전부 필요 없어요", "모두 켜 주세요"
_BLANKET = re.compile(r"(?<![가-힣])(?:전부|모두|몽땅|싹|전체|모든|다|죄다|다들)(?:다|들|요|를|은|는|다요)?(?![가-힣])")


def _blanket(text: str, bools: list[str], named: set[str], sc: Scenario, found: dict[str, Any]) -> None:
    """One answer for every yes/no item of a group (the alerts), at its collection or correction.

    Only when the stage's yes/no items are one group (never at the summary, where "다" cannot
    mean every setting at once) and the user names none of them."""
    groups = {sc.group_of(k) for k in bools}
    if len(bools) < 2 or len(groups) != 1 or None in groups or named & set(bools):
        return
    if not _BLANKET.search(normalize(text)):
        return
    answer = classify_yes_no(text)
    if answer is not None:
        for key in bools:
            found.setdefault(key, answer == "yes")


_OFF = re.compile(r"^\s*(?:은|는|도|을|를)?\s*(?:빼|제외|끄|꺼|해지|없애|지워)")
_ONLY = re.compile(r"^\s*만(?!\s*(?:빼|말고|제외))")


def _boolean_fixes(text: str, keys: list[str], sc: Scenario, found: dict[str, Any]) -> None:
    """Two answers the NLU leaves unread: "출금 알림은 빼 주세요" (off) and "출금 알림만 받을게요"
    (that one on, the others asked with it off)."""
    low = normalize(text)
    spans = mention_spans(text, keys, sc)
    for _, end, key in spans:
        if key not in found and _OFF.match(low[end:]):
            found[key] = False
    only = [key for _, end, key in spans if found.get(key) is True and _ONLY.match(low[end:])]
    if only:
        for key in keys:
            found.setdefault(key, key in only)


# ------------------------------------------------------------------------------ intents
def classify_confirmation(text: str, fields: list[str], sc: Scenario, slots: Mapping[str, Any],
                          extra_yes: Sequence[str] = (), extra_no: Sequence[str] = (),
                          asides: bool = False) -> ConfirmationResult:
    """confirmed / needs_correction / specific_correction (fields, maybe values) / unclear.

    A field named without a new value ("번호가 틀렸어요") is a specific correction with no value:
    the engine then asks for that field only. Values for items outside this confirmation
    (internet banking settings at a summary where it is off) make the answer unclear, never a yes,
    unless the caller read them as changes of their own (``asides``)."""
    specs = {k: slot_spec(sc, k) for k in fields}
    res = nlu_confirmation(text, specs, {k: slots[k] for k in fields if k in slots})
    intent, values, flagged = res.intent, dict(res.corrections), list(res.fields)
    if intent == "needs_correction" and flagged and len(flagged) < len(fields):
        intent = "specific_correction"
    if intent == "specific_correction" and not values and flagged:
        # Boolean answers the NLU leaves unread in a correction ("출금 알림은 꺼 주세요").
        values = {k: v for k, v in extract(text, flagged, flagged, sc, slots).items() if slots.get(k) != v}
    if intent == "unclear":
        c = compact(text)
        plain = classify_yes_no(text)
        if any(compact(w) and compact(w) == c for w in extra_no):
            intent = "needs_correction"
        elif any(compact(w) and compact(w) == c for w in extra_yes) or (plain == "yes" and not asides):
            # "이대로 신청할게요": a plain yes to "이대로 신청할까요?", unless the yes is about other items.
            intent = "confirmed"
    if intent == "confirmed" and not asides:
        others = [k for k in sc.slots if k not in fields]
        if others and mentioned_fields(text, others, sc) and extract(text, others, [], sc, slots):
            intent = "unclear"
    return ConfirmationResult(intent, values, flagged)


def keeps_values(text: str) -> bool:
    """'그대로 할게요' in a correction stage: the user changed their mind about changing."""
    c = compact(text)
    return bool(re.search(r"그대로|유지|안바꿀|안바꿔|괜찮|맞아요|맞습니다|됐어요|변경없|수정없", c))


def repair(text: str, *, expecting_yes_no: bool) -> str | None:
    return classify_repair(text, expecting_yes_no=expecting_yes_no)


def yes_no(text: str) -> str | None:
    return classify_yes_no(text)


def names_an_item(text: str, sc: Scenario) -> bool:
    """Whether ``text`` names one of the scenario's items: "인터넷뱅킹은 취소할게요" declines that
    item, while "취소할게요" alone leaves the application."""
    return any(sc.slots[k].type != "boolean" or _names_in_full(text, sc.slots[k])
               for k in mentioned_fields(text, list(sc.slots), sc))


def detour_field(text: str, keys: list[str], sc: Scenario, slots: Mapping[str, Any]) -> str | None:
    """An earlier answer named as wrong without its new value ("아 잠깐, 전화번호 잘못 말했어요"):
    the one item to ask again, or None when none (or more than one) is named."""
    if not confirmation_cues(text).corrects:
        return None
    named = [k for k in mentioned_fields(text, keys, sc)
             if k in slots and (sc.slots[k].type != "boolean" or _names_in_full(text, sc.slots[k]))]
    return named[0] if len(named) == 1 else None


_NEW_APPLICATION = re.compile(
    r"(?:새로|다시|하나더|한개더|하나만더|또|추가로|한번더)\w{0,6}(?:만들|신청|개설|가입|시작|할게|할래|하고싶|해주|열)|"
    r"(?:통장|계좌)\w{0,4}(?:만들|개설|신청|열)"
)


def asks_for_new_application(text: str) -> bool:
    """"하나 더 만들래요", "새로 신청할게요": after an ending, only this starts a new application."""
    return bool(_NEW_APPLICATION.search(compact(text))) and not has_negation(text)
