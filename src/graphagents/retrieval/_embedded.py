"""Embedded backend: one SQLite file per store under ``DATA_DIR/retrieval/<name>/``, indexes in memory.

SQLite holds the truth (documents, BM25 terms, float32 vectors, ingested sources), so several
processes can share a store and a crash loses nothing committed. Searches run on an in-memory
snapshot: a float32 matrix (an exact cosine scan is one BLAS matrix-vector product, ~7 ms at 100,000
passages of 512 dims on one BLAS thread: exact results, no index to tune) and a ``bm25s`` index over the
stored terms. Every write bumps a generation number in the same transaction; a search that sees a
newer generation (its own write, or another process's) reloads the snapshot first.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphagents.errors import ConfigError, ServiceUnavailableError

from ._documents import Document, Scored
from ._embed import Embedder
from ._linalg import matvec
from ._store import BM25_B, BM25_K1, Row, SourceRecord, Store, metadata_json, top_scored

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY, text TEXT NOT NULL, metadata TEXT NOT NULL,"
    " hash TEXT NOT NULL, terms TEXT NOT NULL, vector BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sources (source TEXT PRIMARY KEY, hash TEXT NOT NULL, ids TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_CHUNK = 500  # ids per IN (...) query


@dataclass(frozen=True)
class _Snapshot:
    generation: int
    ids: list[str]
    matrix: np.ndarray
    bm25: Any  # bm25s.BM25 | None (None for an empty store)


def _bm25_index(corpus: list[list[str]]) -> Any:
    if not corpus:
        return None
    import bm25s

    index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
    index.index(corpus, show_progress=False)
    return index


class EmbeddedStore(Store):
    """Files under ``directory``; see the module docstring."""

    def __init__(self, directory: Path, name: str, embedder: Embedder) -> None:
        self.name = name
        self.embedder = embedder
        self.directory = Path(directory)
        self._lock = threading.RLock()
        self._snapshot: _Snapshot | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.directory / "store.sqlite", check_same_thread=False, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            with self._conn:
                for ddl in _SCHEMA:
                    self._conn.execute(ddl)
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('generation', '0')")
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('embedder', ?)", (embedder.name,))
        except (OSError, sqlite3.Error) as exc:
            raise ServiceUnavailableError(f"cannot open the retrieval store in {str(self.directory)!r}: {exc}") from exc
        stored = self._meta("embedder")
        if stored != embedder.name:
            raise ConfigError(
                f"store {name!r} holds vectors of embedder {stored!r}, not {embedder.name!r}: "
                f"open it with that embedder, or use another store name"
            )

    def _meta(self, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # --- writes ---------------------------------------------------------------------------------------

    def _hashes(self, ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                out.update(self._conn.execute(f"SELECT id, hash FROM docs WHERE id IN ({marks})", chunk).fetchall())
        return out

    def _write(self, rows: Sequence[Row]) -> None:
        values = [(r.doc.id, r.doc.text, metadata_json(r.doc.metadata), r.content_hash, " ".join(r.terms),
                   np.asarray(r.vector, dtype=np.float32).tobytes()) for r in rows]  # fmt: skip
        with self._lock, self._conn:
            self._conn.executemany(
                "INSERT INTO docs (id, text, metadata, hash, terms, vector) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET text = excluded.text, metadata = excluded.metadata,"
                " hash = excluded.hash, terms = excluded.terms, vector = excluded.vector",
                values,
            )
            self._bump()

    def _bump(self) -> None:
        self._conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")

    def delete(self, ids: Iterable[str]) -> int:
        ids = list(dict.fromkeys(ids))
        removed = 0
        with self._lock, self._conn:
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                removed += self._conn.execute(f"DELETE FROM docs WHERE id IN ({marks})", chunk).rowcount
            if removed:
                self._bump()
        return removed

    def get_source(self, source: str) -> SourceRecord | None:
        with self._lock:
            row = self._conn.execute("SELECT hash, ids FROM sources WHERE source = ?", (source,)).fetchone()
        return None if row is None else SourceRecord(source, row[0], tuple(json.loads(row[1])))

    def set_source(self, record: SourceRecord) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO sources (source, hash, ids) VALUES (?, ?, ?) ON CONFLICT (source) DO UPDATE"
                " SET hash = excluded.hash, ids = excluded.ids",
                (record.source, record.content_hash, json.dumps(list(record.ids), ensure_ascii=False)),
            )

    # --- reads ----------------------------------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def get(self, ids: Sequence[str]) -> dict[str, Document]:
        out: dict[str, Document] = {}
        with self._lock:
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                for doc_id, text, metadata in self._conn.execute(
                    f"SELECT id, text, metadata FROM docs WHERE id IN ({marks})", chunk
                ):
                    out[doc_id] = Document(doc_id, text, json.loads(metadata))
        return out

    def snapshot(self) -> _Snapshot:
        """The in-memory indexes for the current generation (reloaded when the store changed)."""
        with self._lock:
            generation = int(self._meta("generation") or 0)
            if self._snapshot is None or self._snapshot.generation != generation:
                self._snapshot = self._load(generation)
            return self._snapshot

    def _load(self, generation: int) -> _Snapshot:
        ids: list[str] = []
        corpus: list[list[str]] = []
        blobs: list[bytes] = []
        for doc_id, doc_terms, blob in self._conn.execute("SELECT id, terms, vector FROM docs ORDER BY id"):
            ids.append(doc_id)
            corpus.append(doc_terms.split())
            blobs.append(blob)
        dim = self.embedder.dim
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), dim) if ids else \
            np.zeros((0, dim), dtype=np.float32)
        return _Snapshot(generation, ids, matrix, _bm25_index(corpus))

    def _bm25(self, query_terms: Sequence[str], n: int) -> list[Scored]:
        snap = self.snapshot()
        if snap.bm25 is None or not query_terms:
            return []
        known = [t for t in query_terms if t in snap.bm25.vocab_dict]
        if not known:
            return []
        scores = np.asarray(snap.bm25.get_scores(known), dtype=np.float32)
        return top_scored(snap.ids, scores, n, positive=True)

    def _dense(self, vector: np.ndarray, n: int) -> list[Scored]:
        snap = self.snapshot()
        if not snap.ids:
            return []
        return top_scored(snap.ids, matvec(snap.matrix, vector), n)

    def drop(self) -> None:
        import shutil

        self.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._snapshot = None


__all__ = ["EmbeddedStore"]
