"""The agent's corpus: the retrieval store it searches, built from the shared medical corpus (or the
agent option ``corpus``) on first use, like text2sql's demo database.

``ingest`` is idempotent and incremental (a file whose bytes did not change is skipped unread), so
"first use" in a process costs one hash of the file after the first build; the embeddings live in
the embedder's disk cache, so even a rebuilt store embeds nothing twice.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphagents.errors import ConfigError
from graphagents.retrieval import Embedder, IngestReport, Store, ingest, open_store
from graphagents.shared_data import find_shared

__all__ = ["MEDICAL_CORPUS", "Corpus", "corpus_for", "find_shared", "medical_corpus_path", "reset_corpora"]

MEDICAL_CORPUS = "datasets/medical/corpus/passages.jsonl"


def medical_corpus_path() -> Path:
    path = find_shared(MEDICAL_CORPUS)
    if path is None:
        raise ConfigError(f"cannot find shared/{MEDICAL_CORPUS} above the repository or the working directory; "
                          "give the agent a corpus: -o corpus=PATH (files or folders)")
    return path


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
                self.report = ingest(self.paths, self.store, progress=False)
                self._ready = True
        return self.store


_lock = threading.Lock()
_corpora: dict[tuple[str | None, str, str, tuple[str, ...]], Corpus] = {}


def corpus_for(url: str | None, name: str, embedder: Embedder, paths: Sequence[str | Path] = ()) -> Corpus:
    """The process's corpus for (store URL, name, embedder, paths); the medical corpus by default."""
    resolved = [str(p) for p in paths] or [str(medical_corpus_path())]
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
