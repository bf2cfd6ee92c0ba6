"""Closed-choice answers ("보안매체는 모바일 OTP로 할게요") mapped to a canonical value.

Matching runs on spacing-free, casefolded text, so "모바일 OTP", "모바일otp" and "모바일 오티피"
all hit the synonym "모바일오티피". A match inside a longer match is ignored ("OTP" inside
"모바일 OTP"), a choice the user turns down is ignored ("보안카드 말고 OTP"), and among what is left
the last mention wins, because Korean answers put the decision at the end ("OTP랑 보안카드 중에
보안카드요"). The exception is a choice that refines another (모바일OTP is a kind of OTP): when
both are mentioned in one phrase, with no correction between them, the specific one wins
("스마트폰 앱으로 하는 OTP" is 모바일OTP).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ....korean import compact, loose

__all__ = ["match_enum"]

_REJECTED_AFTER = re.compile(
    r"(?:은|는|이|가|을|를|도|로|으로)?(?:말고|말구|아니라|아니고|아니구|아니에요|아닙니다|대신|빼고|제외|"
    r"안|않|싫|필요없|없|별로|못)"
)
_ASCII_WORD = re.compile(r"[a-z0-9]+")
# Between a specific and a generic mention, these mean the user moved from one to the other.
_SWITCH = re.compile(r"아니|말고|말구|대신|정정|빼고|제외|아차|그냥|중에|중엔|둘중|보다")
_SAME_PHRASE = 12  # spacing-free characters: "스마트폰앱으로하는otp" is one noun phrase


def _occurrences(haystack: str, key: str) -> list[tuple[int, int]]:
    spans = []
    short_ascii = len(key) <= 2 and _ASCII_WORD.fullmatch(key) is not None
    for m in re.finditer(re.escape(key), haystack):
        if short_ascii:
            before = haystack[m.start() - 1] if m.start() else ""
            after = haystack[m.end()] if m.end() < len(haystack) else ""
            if (before and before.isascii() and before.isalnum()) or (after and after.isascii() and after.isalnum()):
                continue
        spans.append((m.start(), m.end()))
    return spans


def _refines(specific: str, generic: str) -> bool:
    """모바일OTP refines OTP: the generic value's name is part of the specific one's."""
    a, b = compact(specific), compact(generic)
    return a != b and b in a


def _refined(m: tuple[int, int, str], kept: list[tuple[int, int, str]], haystack: str) -> bool:
    """True when a mention of a more specific choice sits in the same phrase as generic ``m``."""
    for o in kept:
        if not _refines(o[2], m[2]):
            continue
        lo, hi = (o[1], m[0]) if o[0] < m[0] else (m[1], o[0])
        if hi - lo <= _SAME_PHRASE and not _SWITCH.search(haystack[lo:hi]):
            return True
    return False


def match_enum(text: str, choices: Mapping[str, Sequence[str]]) -> str | None:
    """The canonical key of ``choices`` that ``text`` picks, or None.

    ``choices`` maps each canonical value to its synonyms; the canonical value is a synonym of itself.
    """
    haystack = compact(text)
    searched = loose(haystack)  # ㅐ/ㅔ slips ("모바일 오티피" typed any way), spans stay valid
    if not haystack:
        return None
    found: list[tuple[int, int, str]] = []
    for canonical, synonyms in choices.items():
        for synonym in {canonical, *synonyms}:
            key = loose(compact(synonym))
            if key:
                found.extend((s, e, canonical) for s, e in _occurrences(searched, key))
    maximal = [
        m for m in found
        if not any(o[0] <= m[0] and m[1] <= o[1] and o[1] - o[0] > m[1] - m[0] for o in found)
    ]
    kept = [m for m in maximal if not _REJECTED_AFTER.match(haystack, m[1])]
    if not kept:
        return None
    kept = [m for m in kept if not _refined(m, kept, haystack)]
    return max(kept, key=lambda m: (m[0], m[1] - m[0]))[2]
