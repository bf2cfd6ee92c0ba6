"""Everyday misspellings: written as it sounds ("마자요", "괜차나요"), ㅐ/ㅔ mixed up ("해주새요",
"인터넷벵킹"), chat endings ("해주세여"), and 께/게 ("할께요").

Two tools, both built on how a syllable sounds rather than a list of typos:

* ``loose`` merges the vowels people confuse (ㅐ/ㅔ, ㅒ/ㅖ, ㅙ/ㅞ/ㅚ), one syllable for one, so
  labels and choices can be matched on it with spans that stay valid.
* ``respell`` puts common answer words back into standard spelling by comparing their sound
  (liaison, ㅎ dropped before a vowel, tensing after ㄹ, merged vowels) with a short lexicon of
  standard forms, so the matchers downstream only need the standard spelling.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._text import is_hangul

__all__ = ["loose", "respell"]

_BASE = 0xAC00
# jungseong index -> merged index: ㅔ->ㅐ, ㅖ->ㅒ, ㅞ->ㅙ, ㅚ->ㅙ
_VOWELS = {5: 1, 7: 3, 15: 10, 11: 10}
# jongseong index -> (what stays, choseong it becomes on the next syllable) when that one starts with ㅇ
_LIAISON = {1: (0, 0), 2: (0, 1), 3: (1, 10), 4: (0, 2), 5: (4, 12), 6: (0, 2), 7: (0, 3), 8: (0, 5),
            9: (8, 0), 10: (8, 6), 11: (8, 7), 12: (8, 10), 13: (8, 16), 14: (8, 17), 15: (0, 5), 16: (0, 6),
            17: (0, 7), 18: (17, 10), 19: (0, 9), 20: (0, 10), 22: (0, 12), 23: (0, 14), 24: (0, 15),
            25: (0, 16), 26: (0, 17), 27: (0, 11)}
_TENSE = {1: 0, 4: 3, 8: 7, 10: 9, 13: 12}  # ㄲ->ㄱ, ㄸ->ㄷ, ㅃ->ㅂ, ㅆ->ㅅ, ㅉ->ㅈ
_IEUNG = 11
_TENSING_FINALS = frozenset({1, 2, 7, 8, 17, 19, 20, 22, 23, 25, 26})  # obstruents and ㄹ tense what follows

_STANDARD = """
맞아요 맞아 맞습니다 맞죠 맞네요 맞고요 괜찮아요 괜찮습니다 괜찮아 좋아요 좋아 좋습니다 좋네요 싫어요 싫어
없어요 없습니다 없어 있어요 있습니다 알겠어요 알겠습니다 알았어요 됐어요 됐습니다 됐어 돼요 안돼요 됩니다 해주세요
주세요 해줘요 해주시고요 할게요 할래요 드릴게요 줄게요 쓸게요 받을게요 바꿀게요 그럴게요 감사합니다 고마워요
그래요 넣어주세요 빼주세요 꺼주세요 켜주세요 해요 되나요 않을게요 안할게요 안할래요 원해요 필요해요 필요없어요
"""
_CHAT_ENDING = re.compile(r"(?<=[세새셔아어게께해래네데죠나까워와줘봐돼애])여(?=$|[\s.,!?~]|ㅎ|ㅋ)")
_WORD = re.compile(r"[가-힣]+")


def _split(ch: str) -> tuple[int, int, int]:
    code = ord(ch) - _BASE
    return code // 588, (code % 588) // 28, code % 28


def _join(cho: int, jung: int, jong: int) -> str:
    return chr(_BASE + cho * 588 + jung * 28 + jong)


@lru_cache(maxsize=8192)
def loose(text: str) -> str:
    """``text`` with the vowels people confuse merged, one character for one: "인터넷벵킹" and
    "인터넷뱅킹" become equal, and spans found in the result index ``text``."""
    out = []
    for ch in text:
        if is_hangul(ch):
            cho, jung, jong = _split(ch)
            ch = _join(cho, _VOWELS.get(jung, jung), jong)
        out.append(ch)
    return "".join(out)


def _sound(word: str) -> str:
    """How ``word`` (Hangul syllables only) sounds: liaison, ㅎ dropped, tensing and vowels merged."""
    syllables = [list(_split(ch)) for ch in word]
    for i in range(len(syllables) - 1):
        here, nxt = syllables[i], syllables[i + 1]
        if here[2] and nxt[0] == _IEUNG and here[2] in _LIAISON:
            here[2], nxt[0] = _LIAISON[here[2]]
        if here[2] in _TENSING_FINALS and nxt[0] in _TENSE:
            nxt[0] = _TENSE[nxt[0]]
    return "".join(_join(c, _VOWELS.get(v, v), j) for c, v, j in syllables)


_BY_SOUND: dict[str, str] = {}
for _word in _STANDARD.split():
    _BY_SOUND.setdefault(_sound(_word), _word)
_LONGEST = max(len(k) for k in _BY_SOUND)


def _respell_word(word: str) -> str:
    if word in _BY_SOUND.values():
        return word
    # The whole word, or (three syllables or more) its ending: "신청해주새요" ends in 해주새요.
    for size in range(min(len(word), _LONGEST), 1, -1):
        if size < len(word) and size < 3:
            break
        head, tail = word[:-size], word[-size:]
        standard = _BY_SOUND.get(_sound(tail))
        if standard is not None and _sound(standard) == _sound(tail) and len(standard) == size:
            return head + standard
    return word


@lru_cache(maxsize=4096)
def respell(text: str) -> str:
    """``text`` with common answer words in standard spelling: "마자요" -> "맞아요", "해주새요" ->
    "해주세요", "할께요" -> "할게요", "해주세여" -> "해주세요". Other words are left alone."""
    text = _CHAT_ENDING.sub("요", text)
    return _WORD.sub(lambda m: _respell_word(m.group()), text)
