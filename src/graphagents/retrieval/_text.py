"""Text handling for retrieval: BM25 terms, sentences, and sentence-aware chunks with overlap.

Terms come from :func:`graphagents.korean.search_terms` (Kiwi content morphemes for Korean,
lower-cased words otherwise), the one place that knows Korean morphology; ``terms`` is its name here.
"""

from __future__ import annotations

import re

from graphagents.korean import search_terms as terms

# --- sentences and chunks ---------------------------------------------------------------------------

# A sentence ends at . ! ? (and their full-width forms) or an ellipsis before whitespace; not after a
# lone capital or a common abbreviation ("e.g.", "Dr.", "U.S.").
_SENTENCE_END = re.compile(r"(?<=[.!?。？！…])[\"'”’)\]]*\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|dr|mr|mrs|ms|fig|approx|ca|st)\.|\b[A-Z]\.)$", re.I)
_PARAGRAPH = re.compile(r"\n\s*\n")


def sentences(text: str) -> list[str]:
    """Sentences of a paragraph-structured text: paragraphs and lines first, then sentence ends."""
    out: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        for line in paragraph.split("\n"):
            line = line.strip()
            if not line:
                continue
            start = 0
            for match in _SENTENCE_END.finditer(line):
                piece = line[start : match.start()]
                if _ABBREVIATION.search(piece):
                    continue
                out.append(line[start : match.end()].strip())
                start = match.end()
            if line[start:].strip():
                out.append(line[start:].strip())
    return out


def _hard_wrap(sentence: str, limit: int) -> list[str]:
    """A sentence longer than a chunk, cut at spaces (or anywhere, for text without spaces)."""
    parts: list[str] = []
    while len(sentence) > limit:
        cut = sentence.rfind(" ", 0, limit)
        cut = cut if cut > limit // 2 else limit
        parts.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    if sentence:
        parts.append(sentence)
    return parts


def chunk_text(text: str, *, max_chars: int = 1000, overlap_chars: int = 150) -> list[str]:
    """Sentences packed into chunks of at most ``max_chars``; each chunk after the first starts with
    the previous chunk's last sentences, up to ``overlap_chars``, so an answer that straddles a
    boundary is whole in one of them. A chunk never cuts a sentence unless the sentence alone is
    longer than ``max_chars``."""
    if max_chars < 50:
        raise ValueError("max_chars must be at least 50")
    if not 0 <= overlap_chars < max_chars // 2:
        raise ValueError("overlap_chars must be >= 0 and less than half of max_chars")
    pieces = [p for s in sentences(text) for p in _hard_wrap(s, max_chars)]
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    fresh = 0  # sentences in `current` that no earlier chunk holds
    for piece in pieces:
        if current and size + 1 + len(piece) > max_chars:
            chunks.append(" ".join(current))
            carried: list[str] = []
            carried_size = 0
            for previous in reversed(current):
                if carried_size + len(previous) + 1 > overlap_chars:
                    break
                carried.insert(0, previous)
                carried_size += len(previous) + 1
            if carried_size + len(piece) > max_chars:
                carried, carried_size = [], 0
            current, size, fresh = carried, max(carried_size - 1, 0), 0
        current.append(piece)
        size += len(piece) + (1 if size else 0)
        fresh += 1
    if current and fresh:
        chunks.append(" ".join(current))
    return chunks


__all__ = ["chunk_text", "sentences", "terms"]
