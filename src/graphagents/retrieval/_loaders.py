"""File readers for ingestion: JSONL records, Markdown sections, plain text, PDF pages -> documents.

Ids are stable: a JSONL record keeps its own ``id`` (evaluation labels and citations use it); a
chunk of a file is ``<source>#<n>``, where ``source`` is the file's path relative to the folder
being ingested. Every chunk's metadata says where it came from (``source``, and ``section`` for
Markdown or ``page`` for PDF), so an answer can cite it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphagents.errors import InputError, MissingExtraError

from ._documents import Document
from ._text import chunk_text

SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".md": "markdown", ".markdown": "markdown",
            ".txt": "text", ".text": "text", ".pdf": "pdf"}  # fmt: skip
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Chunking:
    max_chars: int = 1000
    overlap_chars: int = 150
    split_records: bool = False  # JSONL records are passages already: keep them (and their ids) whole


def kind_of(path: Path) -> str | None:
    return SUFFIXES.get(path.suffix.lower())


def load_file(path: Path, source: str, data: bytes, chunking: Chunking) -> Iterator[Document]:
    kind = kind_of(path)
    if kind == "jsonl":
        yield from _jsonl(source, data, chunking)
    elif kind == "markdown":
        yield from _markdown(source, _decode(source, data), chunking)
    elif kind == "text":
        yield from _chunks(source, _decode(source, data), chunking, {"source": source})
    elif kind == "pdf":
        yield from _pdf(path, source, data, chunking)
    else:
        raise InputError(f"{source}: unsupported file type; use one of {', '.join(sorted(SUFFIXES))}")


def _decode(source: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _chunks(source: str, text: str, chunking: Chunking, metadata: dict[str, Any], start: int = 0,
            prefix: str = "") -> Iterator[Document]:
    for offset, chunk in enumerate(chunk_text(text, max_chars=chunking.max_chars,
                                              overlap_chars=chunking.overlap_chars)):
        yield Document(f"{source}#{start + offset}", f"{prefix}{chunk}", {**metadata, "chunk": start + offset})


def _jsonl(source: str, data: bytes, chunking: Chunking) -> Iterator[Document]:
    for line_no, line in enumerate(_decode(source, data).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}:{line_no}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            raise InputError(f"{source}:{line_no}: each line must be an object with a string 'text'")
        text = record.pop("text")
        doc_id = str(record.pop("id", "") or f"{source}#{line_no}")
        metadata = {"source": source, **record}
        if chunking.split_records and len(text) > chunking.max_chars:
            parts = chunk_text(text, max_chars=chunking.max_chars, overlap_chars=chunking.overlap_chars)
            for n, part in enumerate(parts):
                yield Document(f"{doc_id}#{n}", part, {**metadata, "parent_id": doc_id, "chunk": n})
        elif text.strip():
            yield Document(doc_id, text, metadata)


def _markdown(source: str, text: str, chunking: Chunking) -> Iterator[Document]:
    """Chunks never cross a heading; each starts with its section path, which is what the passage
    is about when its sentences only say "it" (and BM25 and the encoder both see it)."""
    path: list[str] = []
    body: list[str] = []
    count = 0

    def flush() -> Iterator[Document]:
        nonlocal count
        section = " > ".join(path)
        content = "\n".join(body).strip()
        if content:
            prefix = f"{section}\n" if section else ""
            docs = list(_chunks(source, content, chunking, {"source": source, "section": section}, count, prefix))
            count += len(docs)
            yield from docs

    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        match = None if in_code else _HEADING.match(line)
        if match:
            yield from flush()
            body = []
            level = len(match.group(1))
            path = [*path[: level - 1], match.group(2).strip()]
        else:
            body.append(line)
    yield from flush()


def _pdf(path: Path, source: str, data: bytes, chunking: Chunking) -> Iterator[Document]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError:
        raise MissingExtraError("reading PDF needs the 'pdf' extra: pip install 'graphagents[pdf]'") from None
    import io

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise InputError(f"{source}: cannot read this PDF ({exc})") from None
    count = 0
    for number, page_text in enumerate(pages, start=1):
        docs = list(_chunks(source, page_text, chunking, {"source": source, "page": number}, count))
        count += len(docs)
        yield from docs


__all__ = ["SUFFIXES", "Chunking", "kind_of", "load_file"]
