"""Embedded backend: one SQLite file per store under ``DATA_DIR/retrieval/<name>/``, plus saved indexes.

SQLite holds the truth (documents, BM25 terms, float32 vectors, ingested sources), so several
processes can share a store and a crash loses nothing committed. Searches run on a snapshot of the
indexes: the float32 matrix, a ``bm25s`` index over the stored terms and, past ``exact_limit``
documents, an HNSW graph (``usearch``, cosine) whose candidates are re-scored exactly from the matrix
(an exact scan reads the whole matrix per query: 200 MB at 100,000 passages of 512 dims).

Every write bumps a generation number in the same transaction; a search that sees a newer generation
(its own write, or another process's) rebuilds the snapshot from SQLite and saves it under
``index-<generation>/`` (written aside, then renamed into place). Opening a store whose saved indexes
match its generation maps those files (``mmap``) instead of re-reading and re-indexing every
document: reopening 100,000 passages takes well under a second instead of a full rebuild.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import threading
import uuid
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
_FORMAT = 1  # saved index layout; another value is rebuilt, never read
HNSW_CONNECTIVITY = 16
HNSW_EXPANSION_ADD = 64  # pgvector's ef_construction here too; 128 built 3x slower for little recall
HNSW_EXPANSION_SEARCH = 100  # at least; a query asks for max(this, 2n) candidates' worth of expansion

log = logging.getLogger("graphagents.retrieval")


@dataclass(frozen=True)
class _Snapshot:
    generation: int
    ids: list[str]
    matrix: np.ndarray
    bm25: Any  # bm25s.BM25 | None (None for an empty store)
    hnsw: Any = None  # usearch.index.Index | None (exact scan up to exact_limit documents)
    loaded_from_disk: bool = False


def _hnsw_index(matrix: np.ndarray) -> Any:
    """An HNSW graph over the rows (keys = row numbers), cosine, half-precision copies of the vectors:
    it only proposes candidates, which are re-scored from the float32 matrix."""
    from usearch.index import Index

    index = Index(ndim=matrix.shape[1], metric="cos", dtype="f16", connectivity=HNSW_CONNECTIVITY,
                  expansion_add=HNSW_EXPANSION_ADD, expansion_search=HNSW_EXPANSION_SEARCH)
    index.add(np.arange(matrix.shape[0], dtype=np.uint64), np.ascontiguousarray(matrix, dtype=np.float32))
    return index


def _bm25_index(corpus: list[list[str]]) -> Any:
    if not corpus:
        return None
    import bm25s

    index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
    index.index(corpus, show_progress=False)
    return index


class EmbeddedStore(Store):
    """Files under ``directory``; see the module docstring."""

    def __init__(self, directory: Path, name: str, embedder: Embedder, *, exact_limit: int = 10_000) -> None:
        self.name = name
        self.embedder = embedder
        self.exact_limit = int(exact_limit)
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
                # names this SQLite file: saved indexes of an earlier file at the same path never match
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('instance', ?)", (uuid.uuid4().hex,))
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

    def refresh(self) -> None:
        """Build and save the current generation's indexes now, so that readers (a server beside an
        ``ingest`` command) map them instead of rebuilding them on their next search."""
        self.snapshot()

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
        """The indexes for the current generation: in memory, else saved on disk, else rebuilt (and saved)."""
        with self._lock:
            generation = int(self._meta("generation") or 0)
            if self._snapshot is None or self._snapshot.generation != generation:
                self._snapshot = None  # let the old matrix and index go before the new ones load
                self._snapshot = self._open_saved(generation) or self._build()
            return self._snapshot

    def _index_dir(self, generation: int) -> Path:
        return self.directory / f"index-{generation}"

    def _open_saved(self, generation: int) -> _Snapshot | None:
        folder = self._index_dir(generation)
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if meta.get("format") != _FORMAT or meta.get("embedder") != self.embedder.name or \
                meta.get("instance") != self._meta("instance") or \
                meta.get("hnsw") != (meta.get("count", 0) > self.exact_limit):
            return None
        try:
            ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
            matrix = np.load(folder / "vectors.npy", mmap_mode="r")
            bm25 = None
            if meta.get("bm25"):
                import bm25s

                bm25 = bm25s.BM25.load(str(folder / "bm25"), mmap=True, show_progress=False)
            hnsw = None
            if meta.get("hnsw"):
                from usearch.index import Index

                hnsw = Index.restore(str(folder / "hnsw.usearch"), view=True)
        except Exception as exc:  # a damaged or half-deleted folder: rebuild from SQLite
            log.warning("retrieval store %r: saved index %s unreadable (%s); rebuilding", self.name, folder, exc)
            return None
        if len(ids) != meta.get("count") or matrix.shape != (len(ids), self.embedder.dim) or \
                (hnsw is not None and len(hnsw) != len(ids)):
            return None
        return _Snapshot(generation, ids, matrix, bm25, hnsw, loaded_from_disk=True)

    def _build(self) -> _Snapshot:
        ids: list[str] = []
        corpus: list[list[str]] = []
        blobs: list[bytes] = []
        # one read transaction: the generation and the rows it names are read from the same state
        self._conn.execute("BEGIN")
        try:
            generation = int(self._meta("generation") or 0)
            for doc_id, doc_terms, blob in self._conn.execute("SELECT id, terms, vector FROM docs ORDER BY id"):
                ids.append(doc_id)
                corpus.append(doc_terms.split())
                blobs.append(blob)
        finally:
            self._conn.execute("COMMIT")
        dim = self.embedder.dim
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), dim) if ids else \
            np.zeros((0, dim), dtype=np.float32)
        del blobs
        bm25 = _bm25_index(corpus)
        del corpus
        hnsw = _hnsw_index(matrix) if len(ids) > self.exact_limit else None
        snapshot = _Snapshot(generation, ids, matrix, bm25, hnsw)
        self._save(snapshot)
        return snapshot

    def _save(self, snap: _Snapshot) -> None:
        """Write the snapshot aside, rename it into place, and remove older generations' folders.
        Best effort: a store on a read-only or full disk still searches, it just rebuilds on reopen."""
        final = self._index_dir(snap.generation)
        tmp = self.directory / f".tmp-index-{snap.generation}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            (tmp / "ids.json").write_text(json.dumps(snap.ids, ensure_ascii=False), encoding="utf-8")
            np.save(tmp / "vectors.npy", np.ascontiguousarray(snap.matrix))
            if snap.bm25 is not None:
                snap.bm25.save(str(tmp / "bm25"), show_progress=False)
            if snap.hnsw is not None:
                snap.hnsw.save(str(tmp / "hnsw.usearch"))
            meta = {"format": _FORMAT, "generation": snap.generation, "embedder": self.embedder.name,
                    "instance": self._meta("instance"),
                    "count": len(snap.ids), "bm25": snap.bm25 is not None, "hnsw": snap.hnsw is not None}
            (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")  # last: marks it complete
            try:
                os.rename(tmp, final)
            except OSError:  # another process saved this generation first
                shutil.rmtree(tmp, ignore_errors=True)
        except Exception as exc:
            log.warning("retrieval store %r: could not save its index (%s); it will be rebuilt on reopen",
                        self.name, exc)
            shutil.rmtree(tmp, ignore_errors=True)
            return
        for old in self.directory.glob("index-*"):
            suffix = old.name.removeprefix("index-")
            if suffix.isdigit() and int(suffix) < snap.generation:
                shutil.rmtree(old, ignore_errors=True)  # mapped files stay readable until unmapped

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
        if snap.hnsw is None:
            return top_scored(snap.ids, matvec(snap.matrix, vector), n)
        query = np.asarray(vector, dtype=np.float32)
        snap.hnsw.expansion_search = max(HNSW_EXPANSION_SEARCH, 2 * n)
        found = snap.hnsw.search(query, min(len(snap.ids), 2 * n)).keys
        rows = np.sort(np.asarray(found, dtype=np.int64))
        exact = matvec(np.asarray(snap.matrix[rows]), query)  # candidates re-scored exactly
        return top_scored([snap.ids[int(i)] for i in rows], exact, n)

    def drop(self) -> None:
        import shutil

        self.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._snapshot = None


__all__ = ["EmbeddedStore"]
