"""Text normalisation shared by every NLU module.

STT engines and keyboards disagree on Unicode form, full-width digits and spacing; normalising once
here lets the matchers stay simple regexes over one canonical form.
"""

from __future__ import annotations

import re
import unicodedata

_FULLWIDTH = str.maketrans(
    {chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)} | {"\u3000": " ", "\u00a0": " "}
)
_SPACES = re.compile(r"\s+")
_PUNCT = re.compile(r"[\s.,!?~…·'\"()\[\]{}:;^]+")

HANGUL_SYLLABLE = "\uac00-\ud7a3"


def normalize(text: str) -> str:
    """NFC + half-width + casefold + single spaces.

    NFKC is deliberately avoided: it would turn compatibility jamo such as "ㅇㅇ" into conjoining
    jamo and break chat-style answers.
    """
    text = unicodedata.normalize("NFC", text).translate(_FULLWIDTH)
    return _SPACES.sub(" ", text).strip().casefold()


def compact(text: str) -> str:
    """Normalised text without spaces or punctuation, for spacing-insensitive phrase matching."""
    return _PUNCT.sub("", normalize(text))


def is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"
