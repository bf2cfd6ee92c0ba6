"""Answers to "이 정보가 맞으신가요?": confirmed, a correction, or unclear.

The classifier knows nothing about the bank scenario: the caller passes, per field key, the words
that name the field and how to read its value (a ``SlotSpec`` or a ``FieldInfo``). Rules, in order:

* A correction cue (아니요, 틀렸어요, 바꿔주세요, 다시 알려드릴게요) beats any positive word, so
  "네 근데 번호가 틀렸어요" is a correction.
* A value read next to a field's label is a correction unless that part of the sentence confirms it
  ("이름은 김민수 맞고 ..."); a value found without a label only counts when the user is not simply
  confirming ("네 김민수 맞아요" restates, "김민석이에요" corrects).
* A field named without a new value is returned in ``fields`` so the engine can ask only for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ....korean import compact, confirmation_cues, is_hesitation, normalize
from ....korean._confirm import contrast_position
from .labels import find_labels
from .slots import SlotSpec, SlotValue, extract_value

__all__ = ["ConfirmationIntent", "ConfirmationResult", "FieldInfo", "classify_confirmation"]

ConfirmationIntent = Literal["confirmed", "needs_correction", "specific_correction", "unclear"]


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """How a confirmation names a field and reads its value; use a ``SlotSpec`` for standard types.

    ``unlabelled`` says whether a value found without the field being named may be attributed to
    it: true for phones and names, false for yes/no answers, which every "네" would otherwise set.
    """

    labels: tuple[str, ...]
    extract: Callable[[str], SlotValue | None]
    unlabelled: bool = True


@dataclass(frozen=True, slots=True)
class ConfirmationResult:
    """``corrections`` holds new values; ``fields`` every field the user flagged, valued or not."""

    intent: ConfirmationIntent
    corrections: dict[str, SlotValue] = field(default_factory=dict)
    fields: tuple[str, ...] = ()




def _as_field(spec: SlotSpec | FieldInfo, current: object = None) -> FieldInfo:
    if isinstance(spec, FieldInfo):
        return spec
    if spec.type == "boolean":
        return FieldInfo(spec.labels, lambda text: extract_value(spec, _strip_correction_words(text)), False)
    now = current if isinstance(current, str | int | bool) else None
    # A confirmation that reads back a name is about that name: "아니요, 박서연입니다" answers it.
    return FieldInfo(spec.labels, lambda text: extract_value(spec, text, now, asked=True), spec.type != "text")


def _cues(text: str) -> tuple[bool, bool]:
    """(confirms, corrects) for a span of text; "수정할 거 없어요" confirms."""
    cues = confirmation_cues(text)
    return cues.confirms, cues.corrects


def _strip_correction_words(text: str) -> str:
    """Leave only the new value: a boolean read from "출금 알림 아니에요" must not become False."""
    return re.sub(r"\S*(?:아니|아닙|아뇨|틀리|틀렸|틀려|틀린|잘못|수정|변경|바꿔|바꾸|바꿀|고쳐|정정)\S*", " ", text)


def _mentions(text: str, infos: Mapping[str, FieldInfo]) -> list[tuple[int, int, str]]:
    """(start, end, key) of field labels; a label inside another field's longer label is dropped, and
    a field named again before another one is ("번호가 ... 아 아니다, 끝번호 2016") reads as one part."""
    mentions = sorted(
        (start, end, key) for key, info in infos.items() for start, end in find_labels(text, info.labels)
    )
    for i in range(len(mentions) - 1, 0, -1):
        a, b = mentions[i - 1], mentions[i]
        if b[0] < a[1]:
            mentions.pop(i if b[1] - b[0] <= a[1] - a[0] else i - 1)
    return [m for i, m in enumerate(mentions) if i == 0 or mentions[i - 1][2] != m[2]]


def _read_labelled(
    text: str, infos: Mapping[str, FieldInfo], mentions: list[tuple[int, int, str]]
) -> tuple[dict[str, SlotValue], list[str]]:
    """Values read next to each label, and the fields whose part of the reply does not confirm them."""
    found: dict[str, SlotValue] = {}
    flagged: list[str] = []
    for i, (start, _end, key) in enumerate(mentions):
        info = infos[key]
        seg_end = next((m[0] for m in mentions[i + 1:] if m[2] != key), len(text))
        segment = text[start:seg_end]
        seg_confirms, seg_corrects = _cues(segment)
        value = info.extract(segment)
        if value is None and info.unlabelled:  # "010-9876-5432로 번호 바꿔주세요"
            value = info.extract(text[mentions[i - 1][1] if i else 0:start])
        if value is not None and not (seg_confirms and not seg_corrects):
            if found.get(key, value) != value:
                flagged.append(key)  # two different values for one field: ask again
            found[key] = value
        if seg_corrects or not seg_confirms:
            flagged.append(key)
    return found, flagged


def _read_unlabelled(
    text: str, infos: Mapping[str, FieldInfo], skip: set[str], found: dict[str, SlotValue], flagged: list[str]
) -> None:
    """Values for fields the reply does not name ("김민석이에요"); one value two fields could take
    (an amount and two limits) is flagged for both instead of guessed."""
    by_value: dict[SlotValue, list[str]] = {}
    for key, info in infos.items():
        if key not in skip and info.unlabelled:
            value = info.extract(text)
            if value is not None:
                by_value.setdefault(value, []).append(key)
    for value, keys in by_value.items():
        if value in found.values():  # already read next to a label
            continue
        if len(keys) == 1:
            found.setdefault(keys[0], value)
        else:
            flagged.extend(keys)


def classify_confirmation(
    text: str,
    fields: Mapping[str, SlotSpec | FieldInfo],
    current: Mapping[str, object] | None = None,
) -> ConfirmationResult:
    """Read the user's reply to a confirmation of ``fields``.

    ``current`` holds the values being confirmed; a "correction" equal to one of them is a restatement.
    """
    text = normalize(text)
    if is_hesitation(text):
        return ConfirmationResult("unclear")
    current = current or {}
    infos = {key: _as_field(spec, current.get(key)) for key, spec in fields.items()}
    confirms, corrects = _cues(text)
    confirms = confirms and not text.rstrip().endswith("?")  # "좋네요?" asks, it does not confirm
    mentions = _mentions(text, infos)
    found, flagged = _read_labelled(text, infos, mentions)
    if corrects or not confirms:
        _read_unlabelled(text, infos, {m[2] for m in mentions}, found, flagged)
    corrections = {k: v for k, v in found.items() if k not in current or current[k] != v}
    ordered = tuple(dict.fromkeys([*corrections, *flagged]))
    if corrections:
        return ConfirmationResult("specific_correction", corrections, ordered)
    if corrects or (flagged and not confirms):
        return ConfirmationResult("needs_correction", {}, ordered)
    if confirms:
        after = contrast_position(text)
        if after is not None and not _cues(text[after:])[0] and compact(text[after:]):
            return ConfirmationResult("unclear")  # "네 근데 하나 물어볼게요"
        return ConfirmationResult("confirmed")
    return ConfirmationResult("unclear")
