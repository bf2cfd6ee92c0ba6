"""One normalisation policy for text that enters the system, and the matching forms built on it.

Users type, paste and dictate: full-width digits from Korean IMEs, compatibility characters such as
"㎡" and "㎎", non-breaking and zero-width spaces, typographic dashes, and, from broken clients,
lone UTF-16 surrogates or NUL, which crash Kiwi and PostgreSQL. ``normalize`` maps all of these to
one canonical form once, at the boundary, so that every matcher after it stays a simple regex.
The forms are cached: matchers ask for the same labels and the same utterance many times a turn.

NFKC is applied to everything except Hangul compatibility jamo: NFKC would turn the chat answers
"ㅇㅇ" and "ㄴㄴ" into conjoining jamo that no longer read as yes and no.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["compact", "fold", "is_hangul", "normalize", "scrub"]

# Lone surrogates, NUL and other control characters except tab, newline and carriage return.
_UNSAFE = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_INVISIBLE = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad]")
_COMPAT_JAMO = re.compile(r"[\u3131-\u318e]+")
_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"})
_SPACES = re.compile(r"[^\S\n]+")
_LINE_BREAKS = re.compile(r" ?\n\s*")
_PUNCT = re.compile(r"[\s.,!?~…·'\"()\[\]{}:;^]+")


def scrub(text: str) -> str:
    """Replace what no analyser should see (lone surrogates, NUL, control characters) by spaces.

    Length-preserving, so that offsets into ``text`` stay valid: the guard in front of Kiwi."""
    return _UNSAFE.sub(" ", text)


def _nfkc_keeping_jamo(text: str) -> str:
    out, last = [], 0
    for m in _COMPAT_JAMO.finditer(text):
        out.append(unicodedata.normalize("NFKC", text[last:m.start()]))
        out.append(m.group())
        last = m.end()
    out.append(unicodedata.normalize("NFKC", text[last:]))
    return "".join(out)


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """The canonical form of user text: safe characters, NFKC (jamo kept), one kind of dash, single
    spaces, line breaks kept, trimmed. Idempotent; case is kept (see ``fold``)."""
    text = _INVISIBLE.sub("", scrub(text))
    text = _nfkc_keeping_jamo(text).translate(_DASHES)
    text = _SPACES.sub(" ", text)
    # One line break stays one; a blank line (a paragraph break) stays one blank line.
    text = _LINE_BREAKS.sub(lambda m: "\n\n" if m.group().count("\n") > 1 else "\n", text)
    return text.strip()


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """``normalize`` then casefold: the form case-insensitive matchers read."""
    return normalize(text).casefold()


@lru_cache(maxsize=8192)
def compact(text: str) -> str:
    """Folded text without spaces or punctuation, for spacing-insensitive phrase matching."""
    return _PUNCT.sub("", fold(text))


def is_hangul(ch: str) -> bool:
    """True for a precomposed Hangul syllable (가..힣)."""
    return "\uac00" <= ch <= "\ud7a3"
