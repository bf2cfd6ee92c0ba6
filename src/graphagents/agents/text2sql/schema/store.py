"""Embedded backend: build a :class:`SchemaGraph` and persist it under ``data_dir``.

Files are ``<data_dir>/text2sql/schema/<fingerprint>.json`` (table nodes, with samples) and
``<fingerprint>.npz`` (table and column vectors plus the text each vector embeds). Embedding is
incremental: vectors are looked up by their exact text in the snapshot for the same fingerprint, or
else the newest snapshot on disk, so after a migration only the tables and columns whose text
changed go to the encoder; unchanged tables (same per-table fingerprint) also keep their samples
instead of querying the database again. A restart with an unchanged schema embeds nothing. A
snapshot records which embedder made its vectors and is only reused by the same one.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphagents.retrieval import Embedder, OfflineEmbedder, load_embedder
from graphagents.sql import SchemaInfo

from .graph import SchemaGraph
from .model import Sampler, TableNode, node_from_json, node_to_json, nodes_from_schema, segment_texts

FORMAT_VERSION = 1
KEEP_SNAPSHOTS = 4  # older schema versions are deleted beyond this many


@dataclass(frozen=True)
class Snapshot:
    fingerprint: str
    nodes: dict[str, TableNode]
    vectors: dict[str, np.ndarray]  # embedded text -> vector


def snapshot_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "text2sql" / "schema"


def load_snapshot(directory: Path, fingerprint: str, embedder_name: str = OfflineEmbedder.name) -> Snapshot | None:
    """The snapshot for ``fingerprint``, else the newest one (a base for incremental embedding),
    made by the embedder ``embedder_name`` (snapshots from before this was recorded: the offline one)."""
    exact = directory / f"{fingerprint}.json"
    candidates = [exact] if exact.is_file() else []
    if directory.is_dir():
        others = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        candidates += [p for p in others if p != exact]
    for path in candidates:
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
            if meta.get("version") != FORMAT_VERSION or meta.get("embedder", OfflineEmbedder.name) != embedder_name:
                continue
            with np.load(path.with_suffix(".npz")) as arrays:
                texts, matrix = [str(t) for t in arrays["texts"]], arrays["vectors"]
            nodes = {d["name"]: node_from_json(d) for d in meta["tables"]}
            return Snapshot(meta["fingerprint"], nodes, dict(zip(texts, matrix, strict=True)))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a torn or foreign file: ignore it and rebuild what it would have given
    return None


def _save_snapshot(directory: Path, fingerprint: str, nodes: Sequence[TableNode],
                   texts: list[str], matrix: np.ndarray, embedder_name: str) -> None:
    """Write npz then json, each under a temporary name renamed into place (json last = commit)."""
    directory.mkdir(parents=True, exist_ok=True)
    tag = uuid.uuid4().hex[:8]
    npz_tmp = directory / f".{fingerprint}.{tag}.npz"
    with open(npz_tmp, "wb") as fh:
        np.savez(fh, texts=np.array(texts, dtype=np.str_), vectors=matrix.astype(np.float32))
    os.replace(npz_tmp, directory / f"{fingerprint}.npz")
    meta = {"version": FORMAT_VERSION, "fingerprint": fingerprint, "embedder": embedder_name,
            "tables": [node_to_json(n) for n in nodes]}
    json_tmp = directory / f".{fingerprint}.{tag}.json"
    json_tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    os.replace(json_tmp, directory / f"{fingerprint}.json")
    olds = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP_SNAPSHOTS:]
    for old in olds:
        old.unlink(missing_ok=True)
        old.with_suffix(".npz").unlink(missing_ok=True)


def embed_texts(texts: list[str], embedder: Embedder, known: dict[str, np.ndarray]) -> tuple[np.ndarray, int]:
    """Vectors for ``texts``, encoding only the unknown ones (in one batch); returns (matrix, n encoded)."""
    matrix = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    known = {t: v for t, v in known.items() if len(v) == embedder.dim}  # another model's vectors are no use
    missing = sorted({t for t in texts if t not in known})
    fresh = dict(zip(missing, embedder.embed(missing), strict=True)) if missing else {}
    for i, text in enumerate(texts):
        matrix[i] = known[text] if text in known else fresh[text]
    return matrix, len(missing)


def build_schema_graph(
    schema: SchemaInfo,
    *,
    fingerprint: str,
    embedder: Embedder | None = None,
    sampler: Sampler | None = None,
    previous: Snapshot | None = None,
) -> tuple[SchemaGraph, list[str], np.ndarray, int]:
    """A graph from introspected schema, reusing ``previous``; also returns what a snapshot stores."""
    embedder = embedder or load_embedder()
    nodes = nodes_from_schema(schema, sampler=sampler, reuse=previous.nodes if previous else None)
    texts = segment_texts(nodes)
    matrix, encoded = embed_texts(texts, embedder, previous.vectors if previous else {})
    graph = SchemaGraph(nodes, fingerprint=fingerprint, vectors=dict(zip(texts, matrix, strict=True)),
                        embedder=embedder)
    return graph, texts, matrix, encoded


def load_embedded(
    schema: SchemaInfo,
    *,
    fingerprint: str,
    data_dir: Path,
    embedder: Embedder | None = None,
    sampler: Sampler | None = None,
) -> SchemaGraph:
    directory = snapshot_dir(data_dir)
    embedder = embedder or load_embedder()
    previous = load_snapshot(directory, fingerprint, embedder.name)
    graph, texts, matrix, encoded = build_schema_graph(
        schema, fingerprint=fingerprint, embedder=embedder, sampler=sampler, previous=previous
    )
    unchanged = (
        previous is not None
        and previous.fingerprint == fingerprint
        and encoded == 0
        and {n.name: n.fingerprint for n in previous.nodes.values()}
        == {t: graph.table(t).fingerprint for t in graph.table_names()}
    )
    if not unchanged:
        _save_snapshot(directory, fingerprint, [graph.table(t) for t in graph.table_names()], texts, matrix,
                       embedder.name)
    graph.embedded_count = encoded
    return graph
