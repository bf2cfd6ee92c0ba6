"""Korean mobile numbers, typed or spoken, normalised to "010-1234-5678".

STT writes spoken digits as Hangul ("공일공 일이삼사 오육칠팔", "영일영", "빵"), users type them with
any separator, and both mix ("010 일이삼사 5678"). A number is recognised from its structure (an
01X prefix and 10 or 11 digits), so Hangul digit syllables inside ordinary words never turn into one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ._text import is_hangul, normalize

__all__ = [
    "PhoneMatch",
    "PhonePart",
    "extract_phone",
    "find_phone_parts",
    "find_phones",
    "mask_phone",
    "mask_phones_in_text",
    "with_phone_part",
]

_DIGITS = {"공": "0", "영": "0", "빵": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5",
           "육": "6", "륙": "6", "칠": "7", "팔": "8", "구": "9"}
_D = "0-9" + "".join(_DIGITS)
_GROUP = re.compile(rf"[{_D}]+")
_RUN = re.compile(rf"\+?[{_D}]+(?:(?:[ \t]*[-.][ \t]*|[ \t]+)[{_D}]+)*")
_PREFIXES_11 = ("010", "011", "016", "017", "018", "019")
_PREFIXES_10 = ("011", "016", "017", "018", "019")


@dataclass(frozen=True, slots=True)
class PhoneMatch:
    """A phone number found in text; ``start``/``end`` index the normalised text."""

    number: str
    start: int
    end: int


def _to_digits(chunk: str) -> str:
    return "".join(_DIGITS.get(ch, ch) for ch in chunk)


def _format(digits: str, lengths: list[int]) -> str | None:
    if digits.startswith("8210") or digits.startswith("821") and len(digits) == 11:
        digits = "0" + digits[2:]
        lengths = []
    n = len(digits)
    if not ((n == 11 and digits.startswith(_PREFIXES_11)) or (n == 10 and digits.startswith(_PREFIXES_10))):
        return None
    mid = 4 if n == 11 else 3
    if len(lengths) == 3 and lengths[0] == 3 and lengths[2] == 4:
        mid = lengths[1]
    return f"{digits[:3]}-{digits[3:3 + mid]}-{digits[3 + mid:]}"


def _match_run(text: str, start: int, end: int) -> PhoneMatch | None:
    groups = [(m.start() + start, m.end() + start) for m in _GROUP.finditer(text[start:end])]
    followed_by_word = end < len(text) and is_hangul(text[end])
    for i in range(len(groups)):
        for j in range(len(groups), i, -1):
            g_start, g_end = groups[i][0], groups[j - 1][1]
            # A trailing Hangul digit glued to a word is a particle: "오육칠팔이에요" ends in 이에요.
            max_trim = 2 if j == len(groups) and followed_by_word else 0
            for trim in range(max_trim + 1):
                last_end = g_end - trim
                if trim and (last_end <= groups[j - 1][0] or not is_hangul(text[last_end])):
                    break
                spans = [*groups[i:j - 1], (groups[j - 1][0], last_end)]
                digits = "".join(_to_digits(text[a:b]) for a, b in spans)
                number = _format(digits, [b - a for a, b in spans])
                if number is not None:
                    return PhoneMatch(number, g_start, last_end)
    return None


def find_phones(text: str) -> list[PhoneMatch]:
    """Every mobile number in ``normalize(text)``, in order, with spans into that text."""
    text = normalize(text)
    found: list[PhoneMatch] = []
    for run in _RUN.finditer(text):
        start = run.start()
        while start < run.end():
            match = _match_run(text, start, run.end())
            if match is None:
                break
            found.append(match)
            start = match.end
    return found


def extract_phone(text: str) -> str | None:
    """The first mobile number in ``text`` as "010-1234-5678" (10-digit old numbers as "011-123-4567")."""
    found = find_phones(text)
    return found[0].number if found else None


def mask_phone(phone: str) -> str:
    """Hide the middle group ("010-****-5678") so numbers can appear in logs and confirmations."""
    number = extract_phone(phone)
    if number is None:
        raise ValueError(f"mask_phone() needs a mobile number such as '010-1234-5678', got {phone!r}")
    head, mid, tail = number.split("-")
    return f"{head}-{'*' * len(mid)}-{tail}"


def mask_phones_in_text(text: str) -> str:
    """``normalize(text)`` with every mobile number replaced by its masked form."""
    text = normalize(text)
    out, last = [], 0
    for match in find_phones(text):
        out.append(text[last:match.start])
        out.append(mask_phone(match.number))
        last = match.end
    out.append(text[last:])
    return "".join(out)


_SPOKEN = "공영빵일이삼사오육륙칠팔구"
_GROUP_DIGITS = rf"(?:\d{{3,4}}(?!\d)|[{_SPOKEN}]{{3,4}}(?![공영빵일삼사오육륙칠팔구]))"
_LAST_CUE = (r"(?:끝\s?번호|끝\s?자리|뒷\s?자리|뒷\s?번호|뒤\s?번호|마지막\s?(?:네\s?|4\s?)?(?:자리|번호)|"
             r"(?:끝|뒤|뒷)(?:에)?\s?(?:네|4)\s?자리)")
_MIDDLE_CUE = r"(?:가운데\s?(?:번호|자리)?|중간\s?(?:번호|자리)?)"
_PART = re.compile(
    rf"(?P<cue>{_LAST_CUE}|{_MIDDLE_CUE})\s?(?:은|는|이|가|을|를|도|:)?\s?(?P<a>{_GROUP_DIGITS})"
    rf"(?:\s?(?:이|가)?\s?(?:아니라|아니고|말고|대신)\s?,?\s?(?P<b>{_GROUP_DIGITS}))?"
)


@dataclass(frozen=True, slots=True)
class PhonePart:
    """One group of a phone number said on its own: "끝번호 2016", "뒷자리가 0183이 아니라 0138".

    ``replaced`` holds the digits the user says were wrong, when they say so."""

    group: Literal["middle", "last"]
    digits: str
    start: int
    end: int
    replaced: str | None = None


def find_phone_parts(text: str) -> list[PhonePart]:
    """The phone groups said on their own in ``normalize(text)``, with spans into that text."""
    text = normalize(text)
    out = []
    for m in _PART.finditer(text):
        group: Literal["middle", "last"] = "middle" if re.match(_MIDDLE_CUE, m["cue"]) else "last"
        first = _to_digits(m["a"])
        if group == "last" and len(first) != 4:
            continue
        if m["b"]:
            second = _to_digits(m["b"])
            if len(second) == len(first):
                out.append(PhonePart(group, second, m.start(), m.end(), replaced=first))
            continue
        out.append(PhonePart(group, first, m.start(), m.end()))
    return out


def with_phone_part(number: str, part: PhonePart) -> str | None:
    """``number`` with ``part`` put in, or None when the part does not fit it (the user named
    digits as wrong that the number does not have, or the result is no mobile number)."""
    current = extract_phone(number)
    if current is None:
        return None
    head, middle, last = current.split("-")
    if part.group == "last":
        if part.replaced is not None and part.replaced != last:
            return None
        return extract_phone(f"{head}-{middle}-{part.digits}")
    if part.replaced is not None and part.replaced != middle:
        return None
    return extract_phone(f"{head}-{part.digits}-{last}")
