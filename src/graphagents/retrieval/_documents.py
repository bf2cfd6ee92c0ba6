"""Records of retrieval: documents with stable ids, hits with their per-retriever ranks, and RRF."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["hybrid", "bm25", "dense"]
MODES: tuple[Mode, ...] = ("hybrid", "bm25", "dense")
RRF_K = 60


@dataclass(frozen=True)
class Document:
    """A passage: ``id`` is the caller's stable key (citations and evaluation labels use it).

    A string ``metadata["title"]`` (a document or section title) is indexed with the text, by BM25
    and by the encoder, but is not part of ``text``: a chunk that only says "it" is found by what
    its document is about (on the medical dev questions, recall@8 goes from 0.67 to 0.84 for BM25).
    """

    id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ValueError("a document needs a non-empty string id")
        if not isinstance(self.text, str):
            raise ValueError(f"document {self.id!r}: text must be a string")

    @property
    def index_text(self) -> str:
        """What BM25 and the encoder see: the title (if any) and the text."""
        title = self.metadata.get("title")
        return f"{title.strip()}\n{self.text}" if isinstance(title, str) and title.strip() else self.text

    @property
    def content_hash(self) -> str:
        """What decides whether an upsert changes anything: the text and the metadata."""
        blob = json.dumps([self.text, dict(self.metadata)], ensure_ascii=False, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Hit:
    """One search result. ``score`` is the ranking score of the mode searched (BM25, cosine, or RRF);
    the per-retriever ranks (1-based) and scores say why it ranked, for traces and the web page."""

    id: str
    text: str
    score: float
    metadata: Mapping[str, Any] = field(default_factory=dict)
    mode: Mode = "hybrid"
    bm25_rank: int | None = None
    bm25_score: float | None = None
    dense_rank: int | None = None
    dense_score: float | None = None


@dataclass(frozen=True)
class Scored:
    """An id with a retriever's score: the currency between a backend and the fusion step."""

    id: str
    score: float


@dataclass(frozen=True)
class UpsertResult:
    added: int = 0
    updated: int = 0
    unchanged: int = 0

    def __add__(self, other: UpsertResult) -> UpsertResult:
        return UpsertResult(self.added + other.added, self.updated + other.updated, self.unchanged + other.unchanged)


TIE_DECIMALS = 4


def rank_key(item: Scored) -> tuple[float, str]:
    """Best first; scores equal to 4 decimals are ties, broken by id. The embedded backend scores in
    float32 and PostgreSQL in float64: without the rounding, two documents with truly equal scores
    could come out in either order depending on the backend."""
    return (-round(item.score, TIE_DECIMALS), item.id)


def ranked(pairs: Iterable[Scored], k: int) -> list[Scored]:
    """Best ``k`` by :func:`rank_key`."""
    return sorted(pairs, key=rank_key)[: max(k, 0)]


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K,
        weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Reciprocal rank fusion (Cormack et al., 2009): ``sum(w / (k + rank))`` over the rankings an id
    appears in (rank 1-based, ``w`` = 1 unless ``weights`` says otherwise). ``k = 60`` damps the
    head so that agreement between retrievers beats one retriever's confident first place. Ties are
    broken by id."""
    if weights is not None and len(weights) != len(rankings):
        raise ValueError(f"rrf got {len(rankings)} rankings but {len(weights)} weights")
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else float(weights[i])
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


__all__ = ["MODES", "RRF_K", "Document", "Hit", "Mode", "Scored", "UpsertResult", "rank_key", "ranked", "rrf"]
