"""A reranking stage over the hybrid top 20: the passage's own topic and the aspect its heading
answers, against the entity and aspect the question asks about (the topic guard's reading, :mod:`.guard`).

Why: BM25 and the offline encoder both rank a document's *other* sections high ("How to prevent
Shingles" for "What are the symptoms of shingles?": the word "shingles" dominates), and the
fusion cannot tell them apart. The passage's heading (the MedQuAD question it answers, or the
Markdown section of a user's document) says which aspect it is about; the lexicon says which
condition its title names. The score is the RRF score plus

- ``ASPECT_WEIGHT`` when the heading's aspect is one the question asks (an overview when it asks
  none), plus ``TITLE_WEIGHT`` x the share of the title's words in the question (or its English gloss),
- ``ENTITY_WEIGHT`` when the title's condition is one the question names, minus it when the
  title's condition is a look-alike of it (hypotension for hypertension).

The weights were chosen on the dev questions by ``bench/rag_rerank.py`` (grid search on recall@8
then MRR) and checked on the held-out questions; docs/rag.md has the figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .guard import TopicGuard, heading_aspect, siblings

__all__ = ["ASPECT_WEIGHT", "DEPTH", "ENTITY_WEIGHT", "TITLE_WEIGHT", "rerank", "search"]

DEPTH = 20
ASPECT_WEIGHT = 0.012
ENTITY_WEIGHT = 0.012
TITLE_WEIGHT = 0.012
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "of", "and", "a", "an", "in", "to", "for", "with", "type", "disease", "syndrome", "s"})


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def rerank(question: str, gloss: str, hits: Sequence[Any], guard: TopicGuard | None = None, *,
           weights: tuple[float, float, float] = (ASPECT_WEIGHT, ENTITY_WEIGHT, TITLE_WEIGHT)) -> list[Any]:
    """``hits`` (a store's :class:`Hit` list, best first) in the reranked order, each with its new
    ``score``. ``gloss`` is the retrieval query (the question with its English aspect words and
    canonical names)."""
    guard = guard if guard is not None else TopicGuard.for_question(question)
    aspect_w, entity_w, title_w = weights
    asked = set(guard.aspects)
    words = _words(f"{question} {gloss}")
    scored = []
    for n, hit in enumerate(hits):
        meta = hit.metadata or {}
        doc = {"title": str(meta.get("title") or ""),
               "heading": str(meta.get("source_question") or meta.get("section") or "")}
        own = heading_aspect(doc["heading"])
        bonus = 0.0
        if (own in asked) if asked else own == "overview":
            bonus += aspect_w
        title = _words(doc["title"])
        if title:
            bonus += title_w * len(title & words) / len(title)
        topic = guard.topic_of(doc)
        if topic & guard.entities:
            bonus += entity_w
        elif any(topic & siblings(e) for e in guard.entities):
            bonus -= entity_w
        scored.append((float(hit.score or 0.0) + bonus, -n, hit))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [replace(hit, score=round(score, 6)) if _is_dataclass(hit) else hit for score, _n, hit in scored]


def _is_dataclass(obj: Any) -> bool:
    return hasattr(obj, "__dataclass_fields__")


def search(store: Any, question: str, query: str, *, k: int, mode: str, vector: Any = None,
           weights: tuple[float, float] = (1.0, 0.5), named: Sequence[str] = ()) -> list[Any]:
    """The agent's retrieval: ``mode`` "rerank" is the hybrid top :data:`DEPTH` reranked (then cut
    to ``k``); "hybrid", "bm25" and "dense" are the store's own."""
    if mode != "rerank":
        return list(store.search(query, k=k, mode=mode, vector=vector, weights=weights))
    hits = store.search(query, k=max(DEPTH, k), mode="hybrid", vector=vector, weights=weights)
    return rerank(question, query, hits, TopicGuard.for_question(question, named))[:k]
