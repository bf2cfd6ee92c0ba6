"""Where a slot's label ("해외 IP 차단", "1회 이체한도") occurs in an utterance, however it is spaced
or cased: "해외ip차단" and "해외 IP 차단은" both name the same item."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ....korean import compact, loose

__all__ = ["find_labels", "label_pattern"]


@lru_cache(maxsize=1024)
def label_pattern(label: str) -> re.Pattern[str]:
    """Case- and spacing-insensitive pattern for a label, to search in ``loose`` text ("인터넷벵킹")."""
    chars = [re.escape(ch) for ch in loose(compact(label))]
    return re.compile(r"\s*".join(chars), re.IGNORECASE)


def find_labels(text: str, labels: Sequence[str]) -> list[tuple[int, int]]:
    """Spans of the labels in ``text``, longest first at any overlap, in reading order; the vowels
    people confuse (ㅐ/ㅔ) do not matter."""
    spans: list[tuple[int, int]] = []
    searched = loose(text)
    for label in labels:
        if compact(label):
            spans.extend((m.start(), m.end()) for m in label_pattern(label).finditer(searched))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        if kept and start < kept[-1][1]:
            continue
        kept.append((start, end))
    return kept
