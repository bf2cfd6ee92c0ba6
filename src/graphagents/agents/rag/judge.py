"""refine's judge: the note's ``quality_feedback``, from a model (structured output with one repair)
or, offline, measured.

Offline: grounding = share of the answer's sentences (quotes and prose, not the frame lines) whose
best cosine similarity to a sentence of the retrieved passages reaches :data:`GROUNDING_THRESHOLD`;
completeness = share of the question's focus terms and the relevant profile terms that the answer
(with the titles of the passages it cites) covers; overall = their mean (accuracy needs a model, so
it is not scored offline). ``missing_info`` = the terms not covered: they drive the rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from .compose import NOT_FOUND_EN, NOT_FOUND_KO, SentenceIndex, covered, safety_note
from .query import focus_terms, retrieval_query

__all__ = ["GROUNDING_THRESHOLD", "JudgeFeedback", "RewrittenQuery", "answer_sentences", "offline_feedback",
           "offline_rewrite"]

GROUNDING_THRESHOLD = 0.60
"""Least cosine between an answer sentence and a passage sentence for the sentence to count as
supported; calibrated on the dev questions (docs/rag.md: how)."""


class JudgeFeedback(BaseModel):
    """The note's LLM judge output."""

    grounding_score: float = Field(ge=0.0, le=1.0)
    completeness_score: float = Field(ge=0.0, le=1.0)
    accuracy_score: float = Field(ge=0.0, le=1.0)
    overall_score: float = Field(ge=0.0, le=1.0)
    missing_info: list[str] = Field(default_factory=list, max_length=10)
    improvement_suggestions: list[str] = Field(default_factory=list, max_length=10)
    safety_concerns: list[str] = Field(default_factory=list, max_length=10)


class RewrittenQuery(BaseModel):
    query: str = Field(min_length=2, max_length=1000)


_CITE = re.compile(r"\s*\[\d+\]")
_FRAME = re.compile(r"^(문서에서 |From the documents|The documents do not cover|※|Note:|⚠|\[응급|\[Emergency|"
                    r"자료가 영어로|\[\d+\] .*문서:$|문서가 .*다루는 내용|문서에는 .*없습니다|What the documents cover|"
                    r"The documents have nothing|If you take a blood thinner|혈액 희석제\(항응고제\)를|위 응급 안내|"
                    r"Please follow the emergency)")
_SPLIT = re.compile(r"(?<=[.!?。])\s+|\n+")


def answer_sentences(answer: str) -> list[str]:
    """The answer's content sentences: bullet quotes and prose, without citations or frame lines."""
    out = []
    for note in (safety_note(True), safety_note(False)):
        answer = answer.replace(note, "")
    for piece in _SPLIT.split(answer):
        line = piece.strip().lstrip("-•* ").strip()
        if len(line) < 8 or _FRAME.match(line) or line in (NOT_FOUND_KO, NOT_FOUND_EN):
            continue
        line = _CITE.sub("", line).strip().removeprefix("원문:").strip()  # a Korean answer's quote label
        if line:
            out.append(line)
    return out


def offline_feedback(question: str, answer: str, index: SentenceIndex, embedder: Any, *,
                     relevant_terms: Sequence[str] = (), cited_titles: Sequence[str] = ()) -> dict[str, Any]:
    claims = answer_sentences(answer)
    if claims and index.items:
        vectors = np.asarray(embedder.embed(claims), np.float32)
        best = (vectors @ index.vectors.T).max(axis=1)
        supported = int((best >= GROUNDING_THRESHOLD).sum())
        grounding = supported / len(claims)
    else:
        supported, grounding = 0, 0.0
    wanted = [*focus_terms(question), *(t for t in relevant_terms if t)]
    wanted = list(dict.fromkeys(wanted))
    text = " ".join(claims) + " " + " ".join(cited_titles)  # what the answer says, not its frame
    found = covered(wanted, text) if claims else []
    completeness = len(found) / len(wanted) if wanted else (1.0 if claims else 0.0)
    overall = (grounding + completeness) / 2
    missing = [t for t in wanted if t not in found]
    return {
        "grounding_score": round(grounding, 4),
        "completeness_score": round(completeness, 4),
        "accuracy_score": None,
        "overall_score": round(overall, 4),
        "missing_info": missing,
        "improvement_suggestions": [f"find passages about: {', '.join(missing)}"] if missing else [],
        "safety_concerns": [],
        "judge": "offline",
        "supported_sentences": supported,
        "answer_sentences": len(claims),
    }


def offline_rewrite(question: str, query: str, missing: Sequence[str], profile: dict[str, Any] | None) -> str:
    """The retrieval query with the missing terms added (the question and profile terms stay)."""
    return retrieval_query(question, profile, extra=[m for m in missing if m.lower() not in query.lower()])
