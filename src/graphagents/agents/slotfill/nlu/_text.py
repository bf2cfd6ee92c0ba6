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


_HOLD_ON = re.compile(r"잠깐|잠시만|잠시요|글쎄|생각(?:좀|해볼|해보|할시간)|고민(?:좀|해볼|해보|중)|모르겠")
_INTERJECTION = re.compile(r"(?:어+|음+|으+음|흠+|저+|그+|에+|엄+)")


def is_hesitation(text: str) -> bool:
    """"어...", "음", "잠깐만요", "글쎄요": the user has not answered yet, so it is neither yes nor no.

    A bare "어" is a casual yes in Korean, but trailing off ("어...") or a hold-on phrase is not.
    """
    stripped = normalize(text)
    c = compact(stripped)
    if not c:
        return False
    if _HOLD_ON.search(c):
        return True
    if _INTERJECTION.fullmatch(c):
        return c[0] != "어" or stripped.endswith(("..", "…", "~"))
    return False


def is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def prepare(text: str) -> str:
    """NFC + half-width only: keeps one character per character so spans stay valid."""
    return unicodedata.normalize("NFC", text).translate(_FULLWIDTH)


def label_pattern(label: str) -> re.Pattern[str]:
    """Case- and spacing-insensitive pattern for a label: "해외 IP 차단" also finds "해외ip차단"."""
    chars = [re.escape(ch) for ch in compact(label)]
    return re.compile(r"\s*".join(chars), re.IGNORECASE)


def find_labels(text: str, labels: tuple[str, ...] | list[str]) -> list[tuple[int, int]]:
    """Spans of the labels in ``text``, longest first at any overlap, in reading order."""
    spans: list[tuple[int, int]] = []
    for label in labels:
        if compact(label):
            spans.extend((m.start(), m.end()) for m in label_pattern(label).finditer(text))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        if kept and start < kept[-1][1]:
            continue
        kept.append((start, end))
    return kept
