"""On-disk vector cache keyed by text hash: one SQLite file per embedder under ``DATA_DIR/embeddings``.

SQLite because several processes (the server's workers, an ``ingest`` command) share the file safely
(WAL mode) and a lookup of a few hundred keys is one indexed query. Keys are the first 16 bytes of
the SHA-256 of the text, so the file holds no text at all. A cache that cannot be written (read-only
or full disk) only costs speed: the failure is logged once and embedding goes on.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)
_QUERY_CHUNK = 500  # keys per SELECT ... IN (...): well under SQLite's variable limit


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:16]


class VectorCache:
    """``get_many`` / ``put_many`` of float32 vectors by text."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL)"
                             " WITHOUT ROWID")
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._disable(exc)
        return self._conn

    def _disable(self, exc: Exception) -> None:
        log.warning("embedding cache %s disabled: %s", self.path, exc)
        self._broken = True
        self._conn = None

    def get_many(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        by_key = {text_key(t): t for t in texts}
        out: dict[str, np.ndarray] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return out
            keys = list(by_key)
            try:
                for start in range(0, len(keys), _QUERY_CHUNK):
                    chunk = keys[start : start + _QUERY_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    for key, blob in conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk):
                        vec = np.frombuffer(blob, dtype=np.float32)
                        out[by_key[bytes(key)]] = vec  # frombuffer over bytes is read-only already
            except sqlite3.Error as exc:
                self._disable(exc)
        return out

    def put_many(self, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [(text_key(t), np.asarray(v, dtype=np.float32).tobytes()) for t, v in vectors.items()]
        if not rows:
            return
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                with conn:
                    conn.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)", rows)
            except sqlite3.Error as exc:
                self._disable(exc)

    def __len__(self) -> int:
        with self._lock:
            conn = self._connection()
            return 0 if conn is None else int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


__all__ = ["VectorCache", "text_key"]
