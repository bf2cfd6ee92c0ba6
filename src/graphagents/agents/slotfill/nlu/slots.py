"""Several slots from one utterance: "OTP로 하고 1회 300만원, 하루 500만원으로 해주세요".

Each slot type has one extractor; what needs care is attribution when an utterance holds several
values of the same type. Amounts go to the slot whose cue word ("1회", "하루") is nearest, and the
rest in the order the slots were asked. A yes/no belongs to the clause that names the slot, so
"중요거래 알림은 받고 출금 알림은 안 받을래요" sets one True and the other False.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ....korean import (
    AmountMatch,
    classify_yes_no,
    compact,
    extract_person_name,
    find_amounts,
    find_phone_parts,
    find_phones,
    normalize,
    split_clauses,
    with_phone_part,
)
from .enums import match_enum
from .labels import find_labels

__all__ = ["SlotSpec", "SlotType", "SlotValue", "extract_slots", "extract_value"]

SlotType = Literal["person_name", "phone", "boolean", "enum", "amount_krw", "text"]
SlotValue = str | int | bool

# Cue words that make a label about a per-transaction or per-day amount, whatever the caller wrote.
_CUE_GROUPS = (
    ("1회", "일회", "한번에", "한 번에", "건당", "회당", "1건", "한건", "매회", "1회당"),
    ("1일", "하루", "일일", "하루에", "매일", "일간", "1일당", "일 한도", "하루 한도", "일일 한도"),
)
_EXCEPT_AFTER = re.compile(r"^\s*(?:은|는)?\s*(?:만)?\s*(?:빼고|말고|제외하고|제외|빼구)")
_ALL_WORDS = re.compile(r"다|모두|전부|둘다|셋다|나머지|다른건|다른거|전체|싹다|모든")
# A self-correction between two values of one slot: "삼백만... 아니 오백만원", "010-1111-2222 아니
# 010-3333-4444", "300만원 말고 500만원". "아니면" (or) is an alternative, not a correction.
# "잠깐(만)", "다시 말할게요", "정확히는" between two values take the first one back as surely as "아니".
_SELF_CORRECTION = re.compile(
    r"아니(?!면)|말고|말구|정정|대신|잘못\s*말|아\s*참|아차|잠깐|잠시만|다시\s*말|정확히는|고쳐\s*말|아\s*맞다"
)
# A phone group said alone after a correction: "010-5841-5836 아니 5833이에요" (no "뒷자리" before it).
_GROUP_AFTER_REPAIR = re.compile(r"^\D*?(?:" + _SELF_CORRECTION.pattern + r")\D*?(?<!\d)(\d{3,4})(?![\d-])\D*$")
_TEXT_TRIM = re.compile(r"^(?:은|는|이|가|을|를|:|=)?\s*|\s*(?:입니다|이에요|예요|에요|이요|요)?[.!?\s]*$")


@dataclass(frozen=True, slots=True)
class SlotSpec:
    """What the engine asks for: a key, a value type, the words that name it, and enum choices.

    ``labels`` are how a user refers to the slot ("출금 알림", "출금"); ``choices`` maps each enum
    value to its synonyms and is required for ``type="enum"``.
    """

    key: str
    type: SlotType
    labels: tuple[str, ...] = ()
    choices: Mapping[str, Sequence[str]] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.type == "enum" and not self.choices:
            raise ValueError(f"SlotSpec {self.key!r} is an enum: pass choices={{value: [synonyms]}}")
        if isinstance(self.labels, str):
            raise TypeError(f"SlotSpec {self.key!r}: labels must be a tuple of strings, not one string")


_WITHDRAWN = re.compile(r"취소|해지|철회|안하는걸로|없는걸로")


def item_yes_no(text: str) -> str | None:
    """Yes/no about one named item: as ``classify_yes_no``, and "취소할게요" said of an item
    ("인터넷뱅킹 신청은 취소할게요") withdraws that item rather than the whole application."""
    answer = classify_yes_no(text)
    if answer is None and _WITHDRAWN.search(compact(text)):
        return "no"
    return answer


def retract_corrected(text: str, spans: Sequence[tuple[int, int]],
                      cues: Sequence[tuple[int, int]] = (), *, taken_back: bool = False) -> list[int]:
    """Indices of the values in ``spans`` (reading order) that the user did not take back.

    A value followed by a correction marker and then another value, with no cue word naming a
    different slot in between, is replaced by the later one: "1회 삼백만... 아니 오백만원" means
    500만원, "010-1111-2222 아니 010-3333-4444" the second number. With ``taken_back``, a value
    followed by a correction marker before any cue word is dropped whatever follows: the user took it
    back, and a value of another slot after a cue ("... 아니 뭐더라, 하루 오억원") replaces nothing."""
    kept = []
    for i, (_, end) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        # With ``taken_back`` a correction right after a value drops it even when nothing replaces it
        # ("1회 이천만원 아니 뭐더라, 하루 오억원"): the words before the next cue are about this value.
        upto = min([a for a, _ in cues if end <= a < nxt], default=nxt) if taken_back else nxt
        if (i + 1 < len(spans) or taken_back) and _SELF_CORRECTION.search(text[end:upto]) and (
                taken_back or not any(end <= a and b <= nxt for a, b in cues)):
            continue
        kept.append(i)
    return kept


def _meant_phones(text: str) -> list[str]:
    found = find_phones(text)
    return [found[i].number for i in retract_corrected(text, [(m.start, m.end) for m in found])]


def meant_phone(text: str, current: str | None = None) -> str | None:
    """The number the user means, reading groups said on their own against the number before
    them (or ``current``): "010-1234-2061... 아 아니다, 끝번호 2016" is 010-1234-2016, and "뒷자리가
    0183이 아니라 0138이에요" changes the current number's last group. None when nothing is said."""
    full = find_phones(text)
    parts = find_phone_parts(text)
    kept = [full[i] for i in retract_corrected(text, [(m.start, m.end) for m in full])]
    if not parts:
        if len(kept) != 1:
            return None  # two numbers and no word that takes one back: which one is meant is not said
        repaired = _group_repair(text, kept[0].end, kept[0].number)
        if repaired is None and _SELF_CORRECTION.search(text[kept[0].end:]):
            return None  # "010-1111-2222 아니 잠깐만요": taken back, and nothing said instead
        return kept[0].number if repaired is None else (repaired or None)
    last = parts[-1]
    before = [m.number for m in full if m.end <= last.start]
    base = before[-1] if before else current
    changed = with_phone_part(base, last) if base else None
    if changed is not None:
        return changed
    return kept[0].number if len(kept) == 1 else None


def _group_repair(text: str, end: int, number: str) -> str | None:
    """The number after a group said alone in a correction: "010-5841-5836 아니 5833" -> 010-5841-5833.

    The group replaces the one it is closest to (at most two digits differ). None when no group
    follows; "" when one follows but matches no group, or the middle and the last group equally:
    the caller then proposes nothing and the number is asked for again."""
    m = _GROUP_AFTER_REPAIR.match(text[end:])
    if m is None:
        return None
    said = m.group(1)
    groups = number.split("-")
    distance = {i: sum(a != b for a, b in zip(groups[i], said, strict=True))
                for i in (1, 2) if len(groups[i]) == len(said)}
    close = sorted((d, i) for i, d in distance.items() if d <= 2)
    if not close or (len(close) > 1 and close[0][0] == close[1][0]):
        return ""  # no group like it, or two equally like it
    groups[close[0][1]] = said
    return "-".join(groups)


def _meant_amounts(text: str, cues: Sequence[tuple[int, int]] = ()) -> list[AmountMatch]:
    found = find_amounts(text)
    return [found[i] for i in retract_corrected(text, [(m.start, m.end) for m in found], cues, taken_back=True)]


def extract_value(spec: SlotSpec, text: str, current: SlotValue | None = None, *,
                  asked: bool = False) -> SlotValue | None:
    """The value of one slot in ``text``, using the extractor for its type; ``current`` is the value
    being changed (a phone's last group can be said alone), ``asked`` says the slot was just asked."""
    if spec.type == "person_name":
        return extract_person_name(text, expected=asked)
    if spec.type == "phone":
        return meant_phone(normalize(text), current if isinstance(current, str) else None)
    if spec.type == "amount_krw":
        found = _meant_amounts(normalize(text))
        return found[0].value if found else None
    if spec.type == "enum":
        return match_enum(text, spec.choices or {})
    if spec.type == "boolean":
        answer = item_yes_no(_without_labels(normalize(text), spec.labels))
        return None if answer is None else answer == "yes"
    return _text_value(normalize(text), spec.labels)


def _without_labels(text: str, labels: tuple[str, ...]) -> str:
    """Blank the slot's own name so that "해외 IP 차단은" does not read as the verb 차단하다."""
    chars = list(text)
    for start, end in find_labels(text, labels):
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _text_value(text: str, labels: tuple[str, ...]) -> str | None:
    spans = find_labels(text, labels)
    rest = text[spans[0][1]:] if spans else text
    value = _TEXT_TRIM.sub("", rest.strip()).strip()
    return value or None


def _cues(spec: SlotSpec) -> tuple[str, ...]:
    cues = list(spec.labels)
    for group in _CUE_GROUPS:
        if any(compact(c) in compact(label) for label in spec.labels for c in group):
            cues.extend(group)
    return tuple(cues)


def _assign_amounts(text: str, specs: list[SlotSpec], out: dict[str, SlotValue]) -> None:
    cue_spans: list[tuple[int, int, str]] = []
    for spec in specs:
        cue_spans.extend((s, e, spec.key) for s, e in find_labels(text, _cues(spec)))
    # A cue every amount slot shares ("이체한도") says nothing about which one is meant.
    keys_at: dict[tuple[int, int], set[str]] = {}
    for s, e, key in cue_spans:
        keys_at.setdefault((s, e), set()).add(key)
    cue_spans = [c for c in cue_spans if len(keys_at[(c[0], c[1])]) == 1]
    amounts = _meant_amounts(text, [(s, e) for s, e, _ in cue_spans])
    unassigned = []
    found: dict[str, list[int]] = {}
    for i, amount in enumerate(amounts):
        prev_end = amounts[i - 1].end if i else 0
        next_start = amounts[i + 1].start if i + 1 < len(amounts) else len(text)
        before = [c for c in cue_spans if prev_end <= c[0] and c[1] <= amount.start]
        after = [c for c in cue_spans if amount.end <= c[0] and c[1] <= next_start]
        if before:
            found.setdefault(max(before, key=lambda c: c[1])[2], []).append(amount.value)
        elif after:
            found.setdefault(min(after, key=lambda c: c[0])[2], []).append(amount.value)
        else:
            unassigned.append(amount.value)
    for spec in specs:
        if unassigned and spec.key not in found:
            found[spec.key] = [unassigned.pop(0)]
    if unassigned or any(len(values) > 1 for values in found.values()):
        # More amounts than places for them, with no word that takes one back ("1회 100만원이요 음
        # 50만원이요 하루 5억"): any choice could be a number the user did not mean, so none is made.
        return
    out.update({key: values[0] for key, values in found.items()})


def _assign_booleans(text: str, specs: list[SlotSpec], out: dict[str, SlotValue], others_found: bool) -> None:
    clauses = split_clauses(text)
    mentions = {spec.key: find_labels(text, spec.labels) for spec in specs}
    all_labels = tuple(label for spec in specs for label in spec.labels)

    def answer_from(index: int) -> bool | None:
        """Yes/no of clause ``index``, else of the following clauses that name no other slot."""
        for j in range(index, len(clauses)):
            start, end = clauses[j]
            if j > index and find_labels(text[start:end], all_labels):
                break
            answer = item_yes_no(_without_labels(text[start:end], all_labels))
            if answer is not None:
                return answer == "yes"
        return None

    starts = sorted(start for spans in mentions.values() for start, _ in spans)

    def own_answer(end: int) -> bool | None:
        """Korean puts the verb after its item: "중요거래 알림은 안 할래요 출금 알림은 받을게요" gives
        출금 알림 the words up to the next item, not the first answer of a run-on sentence."""
        clause_end = next((b for a, b in clauses if a <= end < b), len(text))
        stop = min(next((s for s in starts if s >= end), len(text)), clause_end)
        answer = item_yes_no(_without_labels(text[end:stop], all_labels))
        return None if answer is None else answer == "yes"

    excepted = []
    for spec in specs:
        for start, end in mentions[spec.key]:
            index = next((i for i, (a, b) in enumerate(clauses) if a <= start < b), None)
            value = own_answer(end) if len(starts) > 1 else None
            if value is None:
                value = answer_from(index) if index is not None else None
            if value is not None and _EXCEPT_AFTER.match(text[end:]):
                excepted.append((spec.key, value))
            elif value is not None:
                out[spec.key] = value
    for key, value in excepted:
        # "출금 알림만 빼고 다 해주세요": the exception gets the opposite, everyone else the answer.
        out[key] = not value
        for spec in specs:
            out.setdefault(spec.key, value)
    unmentioned = [spec for spec in specs if not mentions[spec.key]]
    if not unmentioned:
        return
    for index, (start, end) in enumerate(clauses):
        clause = text[start:end]
        if _ALL_WORDS.search(compact(clause)) and not find_labels(clause, all_labels):
            value = answer_from(index)
            if value is not None:
                for spec in unmentioned:
                    out.setdefault(spec.key, value)
    if not any(mentions.values()) and not others_found:
        answer = classify_yes_no(text)
        if answer is not None:
            for spec in specs:
                out.setdefault(spec.key, answer == "yes")


def extract_slots(text: str, wanted: Sequence[SlotSpec], current: Mapping[str, SlotValue] | None = None,
                  asked: Sequence[str] = ()) -> dict[str, SlotValue]:
    """Every wanted slot that ``text`` fills, keyed by ``SlotSpec.key``; absent slots are left out.

    ``current`` holds the values already known (a phone group said alone changes one of them);
    ``asked`` are the slots the question was about (a bare name answers only a question for it)."""
    text = normalize(text)
    current = current or {}
    out: dict[str, SlotValue] = {}
    by_type: dict[str, list[SlotSpec]] = {}
    for spec in wanted:
        by_type.setdefault(spec.type, []).append(spec)
    phones = _meant_phones(text)
    for spec in by_type.get("phone", []):
        if find_phone_parts(text):
            number = meant_phone(text, current.get(spec.key))  # type: ignore[arg-type]
            if number is not None:
                out[spec.key] = number
        elif len(phones) == 1:
            number = meant_phone(text, current.get(spec.key))  # type: ignore[arg-type]
            if number is not None:
                out[spec.key] = number
            phones.clear()
    for spec in by_type.get("person_name", [])[:1]:
        name = extract_person_name(text, expected=spec.key in asked)
        if name is not None:
            out[spec.key] = name
    for spec in by_type.get("enum", []):
        choice = match_enum(text, spec.choices or {})
        if choice is not None:
            out[spec.key] = choice
    if by_type.get("amount_krw"):
        _assign_amounts(text, by_type["amount_krw"], out)
    for spec in by_type.get("text", []):
        if find_labels(text, spec.labels) or len(wanted) == 1:
            value = _text_value(text, spec.labels)
            if value is not None:
                out[spec.key] = value
    if by_type.get("boolean"):
        _assign_booleans(text, by_type["boolean"], out, others_found=bool(out))
    return out
