"""The store interface both backends implement, and the search and upsert logic they share.

A backend answers four questions (which ids have which content hash, write these rows, the best
``n`` ids by BM25, the best ``n`` ids by cosine); everything else (validation, tokenising and
embedding only what changed, fusion, building hits) lives here once, so the embedded and the
pgvector backends cannot drift apart: on the same corpus they return the same top-k.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphagents.errors import ConfigError, InputError

from ._documents import MODES, RRF_K, TIE_DECIMALS, Document, Hit, Mode, Scored, UpsertResult, ranked, rrf
from ._embed import Embedder
from ._text import terms

FUSION_DEPTH = 20  # each retriever's list fused by RRF: its top max(20, 2k) ids
WRITE_BATCH = 256  # documents tokenised, embedded and written per transaction
BM25_K1 = 1.5  # bm25s' defaults (Lucene variant), which the pgvector backend's SQL reproduces
BM25_B = 0.75
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")

Progress = Callable[[int], None]


def check_name(name: str) -> str:
    if not _NAME.match(name or ""):
        raise ConfigError(
            f"bad store name {name!r}: use 1-40 lower-case letters, digits or '_', starting with a letter"
        )
    return name


@dataclass(frozen=True)
class Row:
    """A document ready to write: its hash, BM25 terms and vector."""

    doc: Document
    content_hash: str
    terms: list[str]
    vector: np.ndarray


@dataclass(frozen=True)
class SourceRecord:
    """What one ingested file contributed: its content hash and the ids of its documents."""

    source: str
    content_hash: str
    ids: tuple[str, ...]


class Store(ABC):
    """Documents searchable by BM25, by embedding, or both fused with RRF (k = 60)."""

    name: str
    embedder: Embedder

    # --- backend hooks ------------------------------------------------------------------------------

    @abstractmethod
    def _hashes(self, ids: Sequence[str]) -> dict[str, str]:
        """Content hashes of the ids that exist."""

    @abstractmethod
    def _write(self, rows: Sequence[Row]) -> None:
        """Insert or replace rows in one transaction."""

    @abstractmethod
    def _bm25(self, query_terms: Sequence[str], n: int) -> list[Scored]:
        """The best ``n`` ids by BM25 (score > 0), best first, ties by id."""

    @abstractmethod
    def _dense(self, vector: np.ndarray, n: int) -> list[Scored]:
        """The best ``n`` ids by cosine similarity, best first, ties by id."""

    @abstractmethod
    def get(self, ids: Sequence[str]) -> dict[str, Document]:
        """Stored documents by id (missing ids are absent from the result)."""

    @abstractmethod
    def delete(self, ids: Iterable[str]) -> int:
        """Remove documents; returns how many existed."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def get_source(self, source: str) -> SourceRecord | None: ...

    @abstractmethod
    def set_source(self, record: SourceRecord) -> None: ...

    @abstractmethod
    def drop(self) -> None:
        """Delete the store and everything in it (files or tables)."""

    @abstractmethod
    def close(self) -> None: ...

    # --- writing ------------------------------------------------------------------------------------

    def upsert(self, docs: Iterable[Document], *, progress: Progress | None = None) -> UpsertResult:
        """Insert new documents and replace changed ones; unchanged ones (same content hash) cost one
        lookup: no tokenising, no embedding, no write. ``progress(n)`` is called as batches finish."""
        result = UpsertResult()
        batch: list[Document] = []
        seen: dict[str, str] = {}
        for doc in docs:
            if not isinstance(doc, Document):
                raise InputError(f"upsert takes Document records, got {type(doc).__name__}")
            previous = seen.get(doc.id)
            if previous is not None:
                if previous != doc.content_hash:
                    raise InputError(f"document id {doc.id!r} appears twice with different content")
                continue
            seen[doc.id] = doc.content_hash
            batch.append(doc)
            if len(batch) >= WRITE_BATCH:
                result += self._upsert_batch(batch)
                if progress is not None:
                    progress(len(batch))
                batch = []
        if batch:
            result += self._upsert_batch(batch)
            if progress is not None:
                progress(len(batch))
        if result.added or result.updated:
            self._after_upsert()
        return result

    def refresh(self) -> None:  # noqa: B027 - a hook: only backends with derived indexes need it
        """Bring the search indexes up to date now rather than on the next search (after a batch of
        writes: :func:`~graphagents.retrieval.ingest` calls it once at the end)."""

    def _after_upsert(self) -> None:  # noqa: B027 - a hook: most backends have nothing to do
        """A backend's chance to reorganise after a whole upsert (pgvector builds its index here)."""

    def add(self, docs: Iterable[Document], *, progress: Progress | None = None) -> UpsertResult:
        """Like :meth:`upsert`, but an id that exists with other content is an error, not a replace."""
        docs = list(docs)
        existing = self._hashes([d.id for d in docs])
        clash = [d.id for d in docs if d.id in existing and existing[d.id] != d.content_hash]
        if clash:
            raise InputError(f"{len(clash)} document id(s) already exist with other content, e.g. {clash[0]!r}: "
                             "use upsert to replace them")
        return self.upsert(docs, progress=progress)

    def _upsert_batch(self, docs: list[Document]) -> UpsertResult:
        existing = self._hashes([d.id for d in docs])
        changed = [d for d in docs if existing.get(d.id) != d.content_hash]
        if changed:
            vectors = self.embedder.embed([d.index_text for d in changed])
            self._write([Row(d, d.content_hash, terms(d.index_text), v)
                         for d, v in zip(changed, vectors, strict=True)])
        added = sum(d.id not in existing for d in changed)
        return UpsertResult(added, len(changed) - added, len(docs) - len(changed))

    # --- searching ----------------------------------------------------------------------------------

    def search(self, query: str, k: int = 8, mode: Mode = "hybrid", *, vector: np.ndarray | None = None,
               weights: tuple[float, float] = (1.0, 1.0)) -> list[Hit]:
        """The best ``k`` documents for ``query``. ``vector`` skips embedding the query when the caller
        already has it (an agent that keeps the query vector in its state). Hybrid fuses each
        retriever's top ``max(20, 2k)`` with RRF (k = 60), ``weights`` = (BM25, dense).

        Why that depth: on the medical dev questions deeper lists only add the weaker retriever's
        noise (recall@8 of hybrid: 0.77 at depth 20, 0.76 at 50 and 100, English questions)."""
        if mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}: use one of {', '.join(MODES)}")
        if k <= 0 or not query.strip():
            return []
        depth = max(FUSION_DEPTH, 2 * k) if mode == "hybrid" else k
        lexical: list[Scored] = []
        dense: list[Scored] = []
        if mode != "dense":
            lexical = self._bm25(list(dict.fromkeys(terms(query))), depth)
        if mode != "bm25":
            query_vector = self.embedder.embed_one(query) if vector is None else np.asarray(vector, np.float32)
            dense = self._dense(query_vector, depth) if np.any(query_vector) else []
        if mode == "bm25":
            order = [(s.id, s.score) for s in lexical[:k]]
        elif mode == "dense":
            order = [(s.id, s.score) for s in dense[:k]]
        else:
            order = rrf([[s.id for s in lexical], [s.id for s in dense]], k=RRF_K, weights=weights)[:k]
        docs = self.get([doc_id for doc_id, _ in order])
        lex_at = {s.id: (rank, s.score) for rank, s in enumerate(lexical, start=1)}
        dense_at = {s.id: (rank, s.score) for rank, s in enumerate(dense, start=1)}
        hits = []
        for doc_id, score in order:
            doc = docs.get(doc_id)
            if doc is None:  # deleted between ranking and fetching (another process)
                continue
            lr, ls = lex_at.get(doc_id, (None, None))
            dr, ds = dense_at.get(doc_id, (None, None))
            hits.append(Hit(doc_id, doc.text, round(float(score), 6), doc.metadata, mode, lr,
                            None if ls is None else round(float(ls), 6), dr,
                            None if ds is None else round(float(ds), 6)))
        return hits

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def top_scored(ids: Sequence[str], scores: np.ndarray, n: int, *, positive: bool = False) -> list[Scored]:
    """The best ``n`` of a full score vector by :func:`rank_key` (every id that could tie at the cut
    is considered)."""
    if n <= 0 or scores.size == 0:
        return []
    candidates = np.nonzero(scores > 0)[0] if positive else np.arange(scores.size)
    if candidates.size > n:
        cut = np.partition(scores[candidates], candidates.size - n)[candidates.size - n]
        candidates = candidates[scores[candidates] >= cut - 10.0**-TIE_DECIMALS]
    return ranked((Scored(ids[int(i)], float(scores[int(i)])) for i in candidates), n)


def open_store(url: str | None = None, name: str = "default", embedder: Embedder | None = None,
               **options: Any) -> Store:
    """A store named ``name``: embedded files under ``DATA_DIR/retrieval/<name>`` when ``url`` is
    unset (or ``file:///dir`` for another directory), PostgreSQL + pgvector for ``postgresql://...``.

    The store remembers its embedder: reopening it with another one (other vectors) is an error.
    """
    from ._embed import load_embedder

    check_name(name)
    embedder = embedder or load_embedder()
    if url and url.startswith(("postgresql://", "postgres://")):
        from ._pgvector import PgVectorStore

        return PgVectorStore(url, name, embedder, **options)
    if not url or url == "embedded" or url.startswith("file:"):
        from pathlib import Path

        from graphagents.settings import get_settings

        from ._embedded import EmbeddedStore

        if url and url.startswith("file:"):
            root = Path(url.removeprefix("file://").removeprefix("file:"))
        else:
            root = get_settings().data_dir / "retrieval"
        return EmbeddedStore(root / name, name, embedder, **options)
    from graphagents.errors import redact_url

    raise ConfigError(f"unsupported store URL {redact_url(url)!r}: leave it unset (embedded), "
                      "or use file:///dir or postgresql://user@host/db (with pgvector)")


def metadata_json(metadata: Mapping[str, Any]) -> str:
    import json

    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True, default=str)


__all__ = ["FUSION_DEPTH", "Row", "SourceRecord", "Store", "check_name", "open_store", "top_scored"]
