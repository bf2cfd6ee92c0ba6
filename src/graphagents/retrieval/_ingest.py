"""``ingest(paths, store)``: files and folders into a store, idempotent and incremental.

A file whose bytes (and chunking settings) hash as last time is skipped without being parsed. A
changed file is parsed again; its documents go through :meth:`Store.upsert`, which embeds only
those whose content changed (and the embedder's disk cache makes even those free when the same text
was embedded before), and the documents the file no longer produces are deleted. So running the same
ingest twice does nothing the second time, and editing one paragraph re-embeds one chunk.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graphagents.errors import InputError

from ._documents import Document, UpsertResult
from ._loaders import Chunking, kind_of, load_file
from ._store import Progress, SourceRecord, Store


@dataclass(frozen=True)
class IngestReport:
    files: int  # files read and indexed
    skipped: int  # files unchanged since the last ingest
    ignored: int  # files in the folders with a type we do not read
    added: int
    updated: int
    unchanged: int
    deleted: int
    seconds: float

    @property
    def passages_per_second(self) -> float:
        return (self.added + self.updated) / self.seconds if self.seconds > 0 else 0.0


def discover(paths: Iterable[str | Path]) -> tuple[list[tuple[Path, str]], int]:
    """``(file, source)`` pairs in a stable order, and how many files were ignored."""
    found: list[tuple[Path, str]] = []
    ignored = 0
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in file.relative_to(path).parts):
                    continue
                if kind_of(file) is None:
                    ignored += 1
                    continue
                found.append((file, file.relative_to(path).as_posix()))
        elif path.is_file():
            if kind_of(path) is None:
                raise InputError(f"{str(path)!r}: unsupported file type (use .jsonl, .md, .txt or .pdf)")
            found.append((path, path.name))
        else:
            raise InputError(f"{str(path)!r}: no such file or folder")
    return found, ignored


def read_documents(path: str | Path, *, max_chars: int = 1000, overlap_chars: int = 150,
                   split_records: bool = False) -> list[Document]:
    """The documents ``ingest`` makes of one file with the same chunking (nothing is stored)."""
    file = Path(path)
    return list(load_file(file, file.name, file.read_bytes(), Chunking(max_chars, overlap_chars, split_records)))


def ingest(
    paths: Iterable[str | Path],
    store: Store,
    *,
    max_chars: int = 1000,
    overlap_chars: int = 150,
    split_records: bool = False,
    progress: bool | None = None,
) -> IngestReport:
    """Index JSONL (one ``{"id", "text", ...}`` object a line; other fields become metadata),
    Markdown, text and PDF files (the last with the ``pdf`` extra). ``progress`` shows a bar on
    stderr; by default only when stderr is a terminal."""
    started = time.perf_counter()
    chunking = Chunking(max_chars, overlap_chars, split_records)
    files, ignored = discover(paths)
    pending: list[tuple[str, str, list[Document], SourceRecord | None]] = []
    skipped = 0
    for path, source in files:
        data = path.read_bytes()
        digest = hashlib.sha256(data + repr(chunking).encode()).hexdigest()[:32]
        previous = store.get_source(source)
        if previous is not None and previous.content_hash == digest:
            skipped += 1
            continue
        pending.append((source, digest, list(load_file(path, source, data, chunking)), previous))
    total = sum(len(docs) for _, _, docs, _ in pending)
    show = sys.stderr.isatty() if progress is None else progress
    result = UpsertResult()
    deleted = 0
    with _bar(total, show) as advance:
        for source, digest, docs, previous in pending:
            result += store.upsert(docs, progress=advance)
            ids = tuple(dict.fromkeys(d.id for d in docs))
            if previous is not None:
                deleted += store.delete(set(previous.ids) - set(ids))
            store.set_source(SourceRecord(source, digest, ids))
    if result.added or result.updated or deleted:
        store.refresh()  # once, by the writer: a server sharing the store maps the saved indexes
    return IngestReport(len(pending), skipped, ignored, result.added, result.updated, result.unchanged, deleted,
                        time.perf_counter() - started)


@contextmanager
def _bar(total: int, show: bool) -> Iterator[Progress | None]:
    """A transient rich progress bar on stderr counting documents, or nothing."""
    if not show or total == 0:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    with Bar(TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
             console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("indexing", total=total)
        yield lambda n: bar.advance(task, n)


__all__ = ["IngestReport", "discover", "ingest", "read_documents"]
