"""Morphemes for the NLU, from the process-wide Kiwi analyser (``graphagents.korean``).

The analyser is created on first use rather than at import: importing the NLU package stays
cheap for code paths that never analyse text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ....korean import get_kiwi

__all__ = ["Morph", "get_kiwi", "split_clauses", "tokenize"]

@dataclass(frozen=True, slots=True)
class Morph:
    """A morpheme, its Sejong tag without Kiwi's irregular-verb suffix (VV-R -> VV), and its span."""

    form: str
    tag: str
    start: int
    end: int


@lru_cache(maxsize=2048)
def tokenize(text: str) -> tuple[Morph, ...]:
    """Morphemes of ``text``; cached because several classifiers look at the same utterance."""
    if not text.strip():
        return ()
    return tuple(
        Morph(t.form, t.tag.split("-")[0], t.start, t.start + t.len) for t in get_kiwi().tokenize(text)
    )


_CLAUSE_EC = frozenset({"고", "는데", "은데", "ᆫ데", "지만", "으나", "며", "으며", "면서", "으면서", "고요"})


def split_clauses(text: str) -> list[tuple[int, int]]:
    """Spans of the clauses of ``text``: "알림은 받고, 출금 알림은 안 받을래요" has two.

    A yes/no belongs to the verb of its own clause, so boolean slots are read per clause. Clauses
    end at punctuation, at a sentence ending, and at connective endings (-고, -는데, -지만, -며).
    """
    cuts = {0, len(text)}
    for m in tokenize(text):
        if m.tag in ("SF", "SP") or m.tag == "EF" or (m.tag == "EC" and m.form in _CLAUSE_EC):
            cuts.add(m.end)
        elif m.tag == "MAJ":
            cuts.add(m.start)
    bounds = sorted(c for c in cuts if 0 <= c <= len(text))
    spans = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        if text[start:end].strip(" ,.!?~"):
            spans.append((start, end))
    return spans
