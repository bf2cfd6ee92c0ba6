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

from ._text import compact, find_labels, is_hesitation, prepare
from .morph import tokenize
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


def _as_field(spec: SlotSpec | FieldInfo) -> FieldInfo:
    if isinstance(spec, FieldInfo):
        return spec
    if spec.type == "boolean":
        return FieldInfo(spec.labels, lambda text: extract_value(spec, _strip_correction_words(text)), False)
    return FieldInfo(spec.labels, lambda text: extract_value(spec, text), spec.type != "text")


def _cues(text: str) -> tuple[bool, bool]:
    """(confirms, corrects) for a span of text; "수정할 거 없어요" confirms."""
    c = re.sub(r"^어+(?=.)", "", compact(text))  # "어 그래" / "어 맞아요": a leading 어 is a casual yes
    if not c:
        return False, False
    no_change = bool(_NO_CHANGE.search(c))
    corrects = not no_change and bool(_CORRECTION.search(c))
    confirms = no_change or bool(_CONFIRM.search(c))
    if not confirms:
        confirms = any(m.tag == "IC" and m.form in ("네", "예", "응", "넵") for m in tokenize(text))
    return confirms, corrects


def _strip_correction_words(text: str) -> str:
    """Leave only the new value: a boolean read from "출금 알림 아니에요" must not become False."""
    return re.sub(r"\S*(?:아니|아닙|아뇨|틀리|틀렸|틀려|틀린|잘못|수정|변경|바꿔|바꾸|바꿀|고쳐|정정)\S*", " ", text)


def _mentions(text: str, infos: Mapping[str, FieldInfo]) -> list[tuple[int, int, str]]:
    """(start, end, key) of field labels; a label inside another field's longer label is dropped."""
    mentions = sorted(
        (start, end, key) for key, info in infos.items() for start, end in find_labels(text, info.labels)
    )
    for i in range(len(mentions) - 1, 0, -1):
        a, b = mentions[i - 1], mentions[i]
        if b[0] < a[1]:
            mentions.pop(i if b[1] - b[0] <= a[1] - a[0] else i - 1)
    return mentions


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
    text = prepare(text)
    if is_hesitation(text):
        return ConfirmationResult("unclear")
    infos = {key: _as_field(spec) for key, spec in fields.items()}
    current = current or {}
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
        contrast = _CONTRAST.search(text)
        if contrast and not _cues(text[contrast.end():])[0] and compact(text[contrast.end():]):
            return ConfirmationResult("unclear")  # "네 근데 하나 물어볼게요"
        return ConfirmationResult("confirmed")
    return ConfirmationResult("unclear")
