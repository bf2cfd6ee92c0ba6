"""Particles (조사), copulas and polite endings: the right particle after a value, and the noun
under "길은호예요", "이서연이고요", "인터넷뱅킹은".

Which particle follows a word depends on its last sound: 을/를, 은/는, 이/가, 과/와, 으로/로
(로 also after ㄹ). Digits and Latin letters are read aloud for this ("3" 삼 -> 을, "L" 엘 -> 로).
"""

from __future__ import annotations

import re

from ._text import is_hangul

__all__ = ["fix_particles", "has_final_consonant", "strip_endings", "strip_particles"]

_DIGIT_FINAL = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True,
                "7": True, "8": True, "9": False}
_DIGIT_RIEUL = frozenset("178")  # 일, 칠, 팔
_ALTERNATIVES = re.compile(
    r"(?<=[\w)])(을\(를\)|를\(을\)|은\(는\)|는\(은\)|이\(가\)|가\(이\)|과\(와\)|와\(과\)|\(으\)로)"
)
_FORMS = {"을(를)": ("을", "를"), "를(을)": ("을", "를"), "은(는)": ("은", "는"), "는(은)": ("은", "는"),
          "이(가)": ("이", "가"), "가(이)": ("이", "가"), "과(와)": ("과", "와"), "와(과)": ("과", "와"),
          "(으)로": ("으로", "로")}


def has_final_consonant(ch: str) -> bool | None:
    """Whether ``ch`` is read with a final consonant (받침); None when unknown (symbols)."""
    if is_hangul(ch):
        return (ord(ch) - 0xAC00) % 28 != 0
    if ch.isascii() and ch.isalpha():
        return ch.upper() in "LMNR"  # read as 엘, 엠, 엔, 알
    return _DIGIT_FINAL.get(ch)


def _final_is_rieul(ch: str) -> bool:
    if is_hangul(ch):
        return (ord(ch) - 0xAC00) % 28 == 8
    return ch.upper() in "LR" or ch in _DIGIT_RIEUL


def fix_particles(text: str) -> str:
    """Resolve "을(를)", "은(는)", "(으)로"... after each word: "연락처을(를)" -> "연락처를",
    "300만원(으)로" -> "300만원으로", "1일(으)로" -> "1일로"."""

    def pick(m: re.Match[str]) -> str:
        prev = text[m.start() - 1]
        if prev == ")":  # "1일 이체한도(300만원)은(는)": the particle follows the word before the (...)
            opening = text.rfind("(", 0, m.start() - 1)
            if opening <= 0:
                return m.group(1)
            prev = text[opening - 1]
        with_final, without = _FORMS[m.group(1)]
        final = has_final_consonant(prev)
        if final is None:
            return m.group(1)
        if m.group(1) == "(으)로" and _final_is_rieul(prev):
            return "로"
        return with_final if final else without

    return _ALTERNATIVES.sub(pick, text)


# Endings that attach to a noun through the copula 이다; the 이 is dropped after a vowel.
_COPULA_ENDINGS = ("라고 합니다", "라고 해요", "라고요", "라구요", "라고", "라구", "에요", "예요", "고요", "구요",
                   "거든요", "거든", "야", "요", "고", "며", "랑")
_PLAIN_ENDINGS = ("입니다", "입니당", "이에요", "이예요", "이에용", "인데요", "인데", "이고요", "이구요", "이고",
                  "이라고 합니다", "이라고 해요", "이라고요", "이라고", "이야", "이요", "이며", "이랑", "씨", "님")
_PARTICLES = ("에서는", "에서", "으로는", "로는", "으로", "까지", "부터", "한테", "에게", "이랑", "하고", "처럼",
              "은", "는", "이", "가", "을", "를", "도", "로", "에", "의", "와", "과", "랑", "만", "요")
_TRAILING = re.compile(r"[\s.,!?~…]+$")


def strip_endings(word: str) -> str:
    """The noun under copulas and polite or connective endings: "길은호예요" -> "길은호",
    "이서연이고요" -> "이서연", "김민준이에요" -> "김민준", "최지우라고 합니다" -> "최지우".

    An ending with the copula 이 is taken off only after a final consonant (김민준이에요), one
    without it only after a vowel (김민수예요), so the syllable 이 of a name stays."""
    word = _TRAILING.sub("", word.strip())
    for ending in sorted(_PLAIN_ENDINGS, key=len, reverse=True):
        stem = word[: -len(ending)].rstrip()
        if word.endswith(ending) and stem:
            if ending.startswith("이") and not ending.startswith("입") and has_final_consonant(stem[-1]) is False:
                continue
            return stem
    for ending in sorted(_COPULA_ENDINGS, key=len, reverse=True):
        stem = word[: -len(ending)].rstrip()
        if word.endswith(ending) and stem and (ending == "요" or has_final_consonant(stem[-1]) is not True):
            return stem
    return word


def strip_particles(word: str) -> str:
    """``word`` without one trailing case or topic particle: "인터넷뱅킹은" -> "인터넷뱅킹",
    "보안카드로" -> "보안카드". Only one is removed: "김민수가" -> "김민수"."""
    word = _TRAILING.sub("", word.strip())
    for particle in _PARTICLES:
        if word.endswith(particle) and len(word) > len(particle):
            return word[: -len(particle)]
    return word
