"""The same stored value said in the other script: "KakaoPay" = 카카오페이, "Busan" = 부산, "뉴욕" = "New York".

A Korean database stores 카카오페이 and an English question says "KakaoPay"; an English database
stores "Silver" and a Korean question says 실버. Two ways to see that they are one name, both
symmetric (so value mapping works in both directions):

* Revised Romanization: 부산 -> "busan", exactly the English spelling of Korean place names;
* a sound key for loanwords, which Korean spells by ear ("pay" -> 페이 "pei", "silver" -> 실버
  "silbeo"): both sides are reduced to their consonants, with the sounds Korean merges merged
  (f/p, v/b, z/j, r/l, c/k/g ...) and an English "r" that closes a syllable dropped, as Korean drops
  it ("silver" -> s-l-b, 실버 -> s-l-b). Keys shorter than three consonants are not evidence.

Translations proper ("credit card" = 신용카드) are the glossary's job (:mod:`.catalog`).
"""

from __future__ import annotations

import re

__all__ = ["alias_score", "romanize", "sound_key"]

_INITIALS = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
_VOWELS = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we",
           "wi", "yu", "eu", "ui", "i"]
_FINALS = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p",
           "t", "t", "ng", "t", "t", "k", "t", "p", "t"]
_LATIN_DIGRAPHS = (("ph", "p"), ("th", "s"), ("sh", "s"), ("ch", "j"), ("ts", "j"), ("ck", "k"), ("qu", "kw"),
                   ("x", "ks"), ("ng", "n"), ("gh", ""))
_SOFT = ((re.compile(r"c(?=[eiy])"), "s"), (re.compile(r"g(?=[eiy])"), "j"))  # "science", "manager"
_MERGE = str.maketrans({"f": "p", "v": "p", "z": "j", "r": "l", "c": "k", "g": "k", "q": "k", "d": "t",
                        "b": "p", "w": "", "y": "", "h": ""})
_VOWEL = re.compile(r"[aeiou]+")
# Korean place and branch names end in a word English translates: 서울 강남점 = "Seoul Gangnam store".
_SUFFIXES: dict[str, tuple[str, ...]] = {
    "점": ("store", "branch", "shop", "outlet"), "지점": ("branch",), "역": ("station",), "시": ("city",),
    "구": ("district", "gu"), "군": ("county",), "도": ("province",), "공항": ("airport",),
    "대학교": ("university",), "병원": ("hospital",),
}  # fmt: skip
_FINAL_R = re.compile(r"r(?=e?\b|[^aeiouy\s])")  # "silver", "store", "card"; not "credit", "Korea"


def romanize(text: str) -> str:
    """Revised Romanization without sound-change rules: enough for place and brand names."""
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            out.append(_INITIALS[code // 588] + _VOWELS[(code % 588) // 28] + _FINALS[code % 28])
        elif ch.isalnum():
            out.append(ch.lower())
    return "".join(out)


def _is_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in text)


def sound_key(text: str) -> str:
    """Consonant skeleton of a name, the same for an English word and its Korean loanword spelling."""
    if _is_hangul(text):
        latin = romanize(text).replace("ng", "n").replace("ch", "j")
    else:
        latin = re.sub(r"[^a-z]", "", _FINAL_R.sub("", re.sub(r"[^a-z\s]", "", text.lower())))
        for pattern, sound in _SOFT:
            latin = pattern.sub(sound, latin)
        for digraph, sound in _LATIN_DIGRAPHS:
            latin = latin.replace(digraph, sound)
    merged = re.sub(r"(.)\1+", r"\1", latin.translate(_MERGE))  # doubled letters (tt, kk, ll) are one sound
    return _VOWEL.sub("", merged)


def alias_score(word: str, label: str) -> float:
    """How surely ``word`` and a stored ``label`` written in the other script name the same thing.

    1.0 is never returned (only an exact match earns it); 0.9 for a romanization match, 0.85 for
    a loanword sound-key match; 0 when the scripts are the same or nothing matches.
    """
    if not word or not label or _is_hangul(word) == _is_hangul(label):
        return 0.0
    korean, latin = (word, label) if _is_hangul(word) else (label, word)
    plain = re.sub(r"[^a-z0-9]", "", latin.lower())
    if len(plain) >= 3 and romanize(korean) == plain:
        return 0.9
    words = latin.lower().split()
    compact = korean.replace(" ", "")
    for suffix, english in _SUFFIXES.items():
        if len(words) > 1 and words[-1] in english and compact.endswith(suffix) and len(compact) > len(suffix):
            stem = re.sub(r"[^a-z0-9]", "", "".join(words[:-1]))
            if len(stem) >= 3 and romanize(compact[: -len(suffix)]) == stem:
                return 0.9  # "Seoul Gangnam store" = 서울 강남점
    key = sound_key(korean)
    return 0.85 if len(key) >= 3 and key == sound_key(latin) else 0.0
