"""The offline answer: an extractive composer with numbered citations, and "not found" when nothing
in the retrieved passages supports an answer.

Every sentence of the retrieved passages is scored against the question: cosine similarity of the
multilingual encoder (so a Korean question finds English sentences) plus a bonus for each of the
question's focus terms the sentence contains. The best sentences (a few per question, at most two
per passage) are quoted verbatim, in the corpus's language, each followed by its passage's number;
numbers follow the order in which passages are first cited. A passage's heading (the question a
MedQuAD answer answers, a Markdown section) counts for its sentences: "What are the stages of X"
is where the stages are, even when the overview passage names X more often. Better-ranked passages
get a small prior, and an answer quotes few passages (2 / 3 / 5 by intent). The answer says which asked-about
aspects ("side effects") no quoted sentence covers, and declines when no sentence reaches
:data:`SUPPORT_THRESHOLD` or contains a topic of the question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphagents.retrieval import sentences

from .query import ASPECT_WORDS, focus_terms, is_korean

__all__ = ["NOT_FOUND_EN", "NOT_FOUND_KO", "SUPPORT_THRESHOLD", "Composed", "SentenceIndex", "compose", "safety_note"]

SUPPORT_THRESHOLD = 0.30
"""Least cosine (question vs sentence) for a sentence to be quoted; see docs/rag.md for how it was set."""
TERM_BONUS = 0.08  # per focus term the sentence contains (capped at 3)
MAX_PER_PASSAGE = 2
RANK_PRIOR = 0.05  # a sentence of the i-th retrieved passage (0-based) gets RANK_PRIOR / (1 + i)
HEADING_WEIGHT = 1.0  # times the cosine between the question and the passage's heading (its section)
SENTENCES_BY_INTENT = {"simple": 3, "moderate": 4, "complex": 6}
PASSAGES_BY_INTENT = {"simple": 1, "moderate": 2, "complex": 4}

NOT_FOUND_KO = "문서에서 이 질문에 대한 내용을 찾지 못했습니다."
NOT_FOUND_EN = "I could not find this in the documents."
_ASPECT_WORDS = ASPECT_WORDS
_WORD = re.compile(r"[a-z0-9]+")
_BULLET = re.compile(r"^\s*(?:[-*•·]\s+)+")


def safety_note(korean: bool) -> str:
    if korean:
        return ("※ 이 정보는 일반적인 의학 정보이며 진단이나 처방을 대신하지 않습니다. "
                "복용 중인 약이나 치료는 의사·약사와 상의하세요.")
    return ("Note: this is general medical information, not a diagnosis or prescription; "
            "talk to your doctor or pharmacist about your medicines and treatment.")


@dataclass(frozen=True)
class Sentence:
    doc_index: int
    text: str


@dataclass
class SentenceIndex:
    """The sentences of the retrieved passages with their vectors (embedded once per turn)."""

    items: list[Sentence]
    vectors: np.ndarray
    embedder: Any = None

    @classmethod
    def build(cls, docs: Sequence[Mapping[str, Any]], embedder: Any) -> SentenceIndex:
        items = [Sentence(i, s) for i, d in enumerate(docs) for s in sentences(str(d.get("text", "")))
                 if len(s) >= 20]
        if not items:
            return cls([], np.zeros((0, getattr(embedder, "dim", 1)), np.float32), embedder)
        return cls(items, np.asarray(embedder.embed([s.text for s in items]), np.float32), embedder)

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        if not self.items:
            return np.zeros(0, np.float32)
        return self.vectors @ np.asarray(vector, np.float32)


@dataclass
class Composed:
    answer: str
    citations: list[dict[str, Any]] = field(default_factory=list)  # [{"ref": 1, "doc_index": i, ...}]
    quoted: list[str] = field(default_factory=list)
    not_found: bool = False
    missing: list[str] = field(default_factory=list)
    best_similarity: float = 0.0


def _korean_forms(term: str) -> list[str]:
    """How a Korean document says an English term: the lexicon's name of a drug or condition and
    the glossary's Korean aspect words ("side effects" -> 부작용)."""
    from .lexicon import korean_name
    from .query import ASPECTS

    forms = [ko for ko, english in ASPECTS.items() if term in english]
    name = korean_name(term)
    if name:
        forms.append(name)
    return forms


def _contains(text: str, term: str) -> bool:
    if is_korean(text) and any(form in text for form in _korean_forms(term)):
        return True
    if any(c.isdigit() for c in term):  # a quantity: "500mg" matches "500 mg"
        return term.lower().replace(" ", "") in re.sub(r"\s+", "", text.lower())
    words = set(_WORD.findall(text.lower()))
    parts = _WORD.findall(term.lower())
    if not parts:
        return False
    if len(parts) == 1:
        stem = parts[0][:6] if len(parts[0]) > 6 else parts[0]
        return any(w.startswith(stem) for w in words)
    return term.lower() in text.lower()


def covered(terms: Sequence[str], text: str) -> list[str]:
    return [t for t in terms if _contains(text, t)]


def compose(question: str, docs: Sequence[Mapping[str, Any]], index: SentenceIndex, question_vector: np.ndarray,
            *, intent: str = "moderate", extra_terms: Sequence[str] = (),
            gloss_vector: np.ndarray | None = None, required: Sequence[str] | None = None) -> Composed:
    """The extractive answer to ``question`` from ``docs`` (best first). ``gloss_vector`` is the
    embedding of the question's English gloss (the retrieval query: aspects and canonical names in
    English); a sentence's similarity is the better of the two, which helps Korean questions.
    ``required``: when given, a quoted sentence must contain one of these (lower-case) substrings
    (after an emergency notice, only text about the symptom)."""
    korean = is_korean(question)
    focus = [*focus_terms(question), *(t for t in extra_terms if t)]
    topics = [t for t in focus if t not in _ASPECT_WORDS]
    sims = index.similarities(question_vector)
    if gloss_vector is not None and len(sims):
        sims = np.maximum(sims, index.similarities(gloss_vector))
    headings = [str(d.get("heading") or "") for d in docs]
    heading_sim = np.zeros(len(docs), np.float32)
    if any(headings) and index.embedder is not None:
        present = [i for i, h in enumerate(headings) if h]
        heading_sim[present] = np.asarray(index.embedder.embed([headings[i] for i in present]), np.float32) \
            @ np.asarray(question_vector, np.float32)
    scored: list[tuple[float, float, int]] = []
    for i, sentence in enumerate(index.items):
        hits = len(covered(focus, sentence.text))
        prior = RANK_PRIOR / (1 + sentence.doc_index) + HEADING_WEIGHT * float(heading_sim[sentence.doc_index])
        scored.append((float(sims[i]) + TERM_BONUS * min(hits, 3) + prior, float(sims[i]), i))
    scored.sort(key=lambda t: (-t[0], t[2]))
    best = scored[0][1] if scored else 0.0
    limit = SENTENCES_BY_INTENT.get(intent, 4)
    chosen: list[int] = []
    per_doc: dict[int, int] = {}
    for _score, sim, i in scored:
        if len(chosen) >= limit:
            break
        sentence = index.items[i]
        if sim < SUPPORT_THRESHOLD:
            continue
        if per_doc.get(sentence.doc_index, 0) >= MAX_PER_PASSAGE:
            continue
        if sentence.doc_index not in per_doc and len(per_doc) >= PASSAGES_BY_INTENT.get(intent, 3):
            continue
        if topics and not covered(topics, sentence.text) and not covered(topics, _doc_title(docs, sentence.doc_index)):
            continue  # a sentence about something else the question did not ask about
        if required is not None and not any(r in sentence.text.lower() for r in required):
            continue
        chosen.append(i)
        per_doc[sentence.doc_index] = per_doc.get(sentence.doc_index, 0) + 1
    if not chosen:
        text = NOT_FOUND_KO if korean else NOT_FOUND_EN
        return Composed(f"{text}\n\n{safety_note(korean)}", not_found=True, missing=list(focus),
                        best_similarity=round(best, 4))
    # passage numbers in order of first citation; sentences grouped by passage, in passage order
    chosen.sort(key=lambda i: (index.items[i].doc_index, i))
    refs: dict[int, int] = {}
    lines: list[str] = []
    quoted: list[str] = []
    for i in chosen:
        sentence = index.items[i]
        ref = refs.setdefault(sentence.doc_index, len(refs) + 1)
        lines.append(f"- {_BULLET.sub('', sentence.text)} [{ref}]")  # the source's own bullet is dropped
        quoted.append(sentence.text)
    answer_text = " ".join(quoted) + " " + " ".join(_doc_title(docs, d) for d in refs)
    missing = [t for t in focus if not _contains(answer_text, t)]
    head = "문서에서 찾은 내용입니다 (원문 인용):" if korean else "From the documents:"
    parts = [head, *lines]
    if missing:
        names = ", ".join(missing)
        parts.append(f"\n문서에서 다음 내용은 찾지 못했습니다: {names}." if korean
                     else f"\nThe documents do not cover: {names}.")
    parts.append("\n" + safety_note(korean))
    citations = [{"ref": ref, "doc_index": d} for d, ref in sorted(refs.items(), key=lambda kv: kv[1])]
    return Composed("\n".join(parts), citations, quoted, False, missing, round(best, 4))


def _doc_title(docs: Sequence[Mapping[str, Any]], i: int) -> str:
    return str(docs[i].get("title") or "") if 0 <= i < len(docs) else ""
