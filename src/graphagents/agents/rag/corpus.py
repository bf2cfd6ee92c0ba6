"""The agent's corpus: the retrieval store it searches, built from the bundled medical corpus (MedQuAD,
CC BY 4.0: ``data/medquad/``) or the agent option ``corpus`` on first use, like text2sql's demo
database.

``ingest`` is idempotent and incremental (a file whose bytes did not change is skipped unread), so
"first use" in a process costs one hash of the file after the first build; the embeddings live in
the embedder's disk cache, so even a rebuilt store embeds nothing twice.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphagents.errors import ConfigError
from graphagents.packagedata import package_path
from graphagents.retrieval import CachingEmbedder, Embedder, IngestReport, Store, ingest, open_store

__all__ = ["MEDICAL_CORPUS", "MEDICAL_VECTORS", "Corpus", "corpus_for", "medical_corpus_path", "reset_corpora"]

log = logging.getLogger("graphagents.rag")
_PACKAGE = __package__ or "graphagents.agents.rag"

MEDICAL_CORPUS = ("data", "medquad", "passages.jsonl")
MEDICAL_VECTORS = ("data", "medquad", "vectors-offline.npz")
"""The offline embedder's vectors of the bundled passages as the agent indexes them
(``scripts/build_rag_vectors.py``): the first question on a fresh install embeds nothing."""


def medical_corpus_path() -> Path:
    """The bundled MedQuAD passages (1,996 passages of 288 documents, English)."""
    return package_path(_PACKAGE, *MEDICAL_CORPUS)


class Corpus:
    """A store and the paths it is built from; :meth:`ensure` ingests them once per process."""

    def __init__(self, store: Store, paths: Sequence[str | Path]) -> None:
        self.store = store
        self.paths = [Path(p) for p in paths]
        self._lock = threading.Lock()
        self._ready = False
        self.report: IngestReport | None = None

    def ensure(self) -> Store:
        with self._lock:
            if not self._ready:
                missing = [str(p) for p in self.paths if not p.exists()]
                if missing:
                    raise ConfigError(f"rag corpus not found: {', '.join(missing)}")
                if len(self.store) == 0:  # say what the wait is for, on a terminal and in a server's log
                    log.warning("rag corpus: building the search index of %s (first use; kept on disk)",
                                ", ".join(p.name for p in self.paths))
                # a progress bar on a terminal, nothing in a pipe
                self.report = ingest(self.paths, self.store, progress=None)
                if self.report.added:
                    log.warning("rag corpus: %s new passages indexed in %.1f s", self.report.added,
                                self.report.seconds)
                self._ready = True
        return self.store


_lock = threading.Lock()
_corpora: dict[tuple[str | None, str, str, tuple[str, ...]], Corpus] = {}


def corpus_for(url: str | None, name: str, embedder: Embedder, paths: Sequence[str | Path] = ()) -> Corpus:
    """The process's corpus for (store URL, name, embedder, paths); the medical corpus by default,
    with its shipped vectors offered to the embedder (taken only by the embedder they were made with)."""
    resolved = [str(p) for p in paths] or [str(medical_corpus_path())]
    if not paths and isinstance(embedder, CachingEmbedder):
        embedder.add_seed(package_path(_PACKAGE, *MEDICAL_VECTORS))
    key = (url, name, embedder.name, tuple(resolved))
    with _lock:
        corpus = _corpora.get(key)
        if corpus is None:
            corpus = _corpora[key] = Corpus(open_store(url, name, embedder), resolved)
        return corpus


def reset_corpora() -> None:
    """Close every open corpus store (tests simulating a restart)."""
    with _lock:
        corpora = list(_corpora.values())
        _corpora.clear()
    for corpus in corpora:
        corpus.store.close()


def hit_title(metadata: Any) -> str:
    title = metadata.get("title") if hasattr(metadata, "get") else None
    return str(title) if title else ""
