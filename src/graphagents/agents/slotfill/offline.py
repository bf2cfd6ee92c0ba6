"""The deterministic offline brain: slot values and intents from Korean text, no model needed.

Built on the NLU primitives (amounts, phones, yes/no, repair, Kiwi morphology). What this module
adds is the scenario context: which slots may be given at this stage, which cue words name them
("1회" vs "하루"), and contrast phrases ("김철수가 아니라 김민수", "OTP 말고 보안카드") where
the value after the contrast is the one the user means.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .nlu import SlotSpec, classify_repair, classify_yes_no, extract_slots, find_phones
from .nlu import classify_confirmation as nlu_confirmation
from .scenario import Scenario, SlotDef

_CONTRAST = re.compile(r"아니라|아니고|말고|대신|아닌|에서\s*\S*?(?:으로|로)\s*(?:바꿔|변경|수정)")


def normalize(text: str) -> str:
    """NFC, one space, casefolded: cue words match however the text was typed or transcribed."""
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def compact(text: str) -> str:
    return re.sub(r"[\s.,!?~…'\"]+", "", normalize(text))


@dataclass(frozen=True)
class ConfirmationResult:
    intent: str
    """confirmed | needs_correction | specific_correction | unclear"""
    values: dict[str, Any] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)


def mentions(slot: SlotDef) -> list[str]:
    return sorted({slot.label, *slot.mentions}, key=len, reverse=True)


def mention_spans(text: str, keys: list[str], sc: Scenario) -> list[tuple[int, int, str]]:
    """(start, end, key) for every cue word naming one of ``keys``, longest cue first, no overlaps."""
    low = normalize(text)
    spans: list[tuple[int, int, str]] = []
    cues = sorted(((m.casefold(), k) for k in keys for m in mentions(sc.slots[k])), key=lambda c: -len(c[0]))
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


def extract(text: str, keys: list[str], focus: list[str], sc: Scenario, slots: Mapping[str, Any]) -> dict[str, Any]:
    """Candidate values (not yet validated) for ``keys``; ``focus`` are the slots just asked.

    A bare "네"/"아니요" answers only the yes/no slots just asked, never every boolean the stage
    accepts: at the summary's correction stage "아니요" must not switch all the alerts off."""
    named = set(mentioned_fields(text, keys, sc))
    focus_bools = [k for k in focus if sc.slots[k].type == "boolean"]
    wanted = [k for k in [*focus, *keys] if sc.slots[k].type != "boolean" or k in named or k in focus_bools]
    specs = [slot_spec(sc, k) for k in dict.fromkeys(wanted)]
    found: dict[str, Any] = dict(extract_slots(text, specs)) if specs else {}
    phones = [m.number for m in find_phones(text)]
    for key in (k for k in wanted if sc.slots[k].type == "phone" and k in found):
        # "010-1234-5678 말고 010-9876-5432": the number the user moves to is the new one.
        fresh = [p for p in phones if p != slots.get(key)]
        if len(phones) > 1 and fresh and _CONTRAST.search(text):
            found[key] = fresh[-1]
    _boolean_fixes(text, [k for k in wanted if sc.slots[k].type == "boolean"], sc, found)
    return found


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
                          extra_yes: Sequence[str] = (), extra_no: Sequence[str] = ()) -> ConfirmationResult:
    """confirmed / needs_correction / specific_correction (fields, maybe values) / unclear.

    A field named without a new value ("번호가 틀렸어요") is a specific correction with no value:
    the engine then asks for that field only. Values for items outside this confirmation
    (internet banking settings at a summary where it is off) make the answer unclear, never a yes."""
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
        elif any(compact(w) and compact(w) == c for w in extra_yes) or plain == "yes":
            intent = "confirmed"  # "이대로 신청할게요": a plain yes to "이대로 신청할까요?"
    if intent == "confirmed":
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
