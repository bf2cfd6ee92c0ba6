"""Semantic-cache lookup at 100,000 entries vs a brute-force scan, measured in the same run.

Entries are spread over users and slot signatures the way an assistant's cache fills up (by default
20,000 users x 1 signature x 5 entries: a partition holds "a handful"). A lookup reads one
partition; the brute force keeps every entry in one matrix, computes all similarities with one
matrix-vector product (one BLAS thread, as the stores use) and then filters by user and signature:
the obvious design without partitions, already vectorised. Vectors are synthetic (512 dims,
normalised) and passed in, so no encoder is timed; the offline encoder's cost per question is
printed separately for scale.

Usage: ``.venv/bin/python bench/semantic_cache.py [--entries 100000] [--per-partition 5] [--redis URL
--redis-entries 10000]`` (Redis entries are written under a unique namespace and deleted at the end).
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import ListEmbedder, pct  # noqa: E402

from graphagents.cache import SemanticCache, open_semantic_cache  # noqa: E402
from graphagents.retrieval import matvec  # noqa: E402

DIM = 512


def fill(cache: SemanticCache, vectors: np.ndarray, per_partition: int) -> float:
    t = time.perf_counter()
    for i, vector in enumerate(vectors):
        cache.store(f"question {i}", {"answer": i}, scope=f"user{i // per_partition}", signature="sig",
                    vector=vector)
    return time.perf_counter() - t


def measure(cache: SemanticCache, vectors: np.ndarray, per_partition: int, lookups: int,
            rng: np.random.Generator) -> tuple[list[float], int]:
    times, hits = [], 0
    for i in rng.integers(0, len(vectors), size=lookups):
        query = vectors[i] + 0.01 * rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        t = time.perf_counter()
        hit = cache.lookup("a paraphrase", scope=f"user{i // per_partition}", signature="sig", vector=query)
        times.append((time.perf_counter() - t) * 1000)
        hits += hit is not None and hit.value == {"answer": int(i)}
    return times, hits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--per-partition", type=int, default=5)
    parser.add_argument("--lookups", type=int, default=500)
    parser.add_argument("--redis", default=None, help="e.g. redis://127.0.0.1:6379/15")
    parser.add_argument("--redis-entries", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((args.entries, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder = ListEmbedder({}, DIM)

    cache = open_semantic_cache(None, namespace="bench", embedder=embedder,  # type: ignore[arg-type]
                                max_partitions=args.entries)
    fill_s = fill(cache, vectors, args.per_partition)
    print(f"in-process cache: {len(cache):,} entries in {args.entries // args.per_partition:,} partitions "
          f"(filled in {fill_s:.1f}s, {args.entries / fill_s:,.0f} stores/s)")
    times, hits = measure(cache, vectors, args.per_partition, args.lookups, rng)

    owners = np.array([i // args.per_partition for i in range(args.entries)])
    brute_times, brute_hits = [], 0
    for i in rng.integers(0, args.entries, size=args.lookups):
        query = vectors[i] + 0.01 * rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        t = time.perf_counter()
        sims = matvec(vectors, query)
        sims[owners != i // args.per_partition] = -1.0
        best = int(np.argmax(sims))
        brute_times.append((time.perf_counter() - t) * 1000)
        brute_hits += best == i and sims[best] >= cache.threshold
    print(f"  partitioned lookup: p50 {pct(times, 50):.3f} ms  p95 {pct(times, 95):.3f} ms  "
          f"({hits}/{args.lookups} hits)")
    print(f"  brute force scan  : p50 {pct(brute_times, 50):.3f} ms  p95 {pct(brute_times, 95):.3f} ms  "
          f"({brute_hits}/{args.lookups} hits)")
    print(f"  ratio (brute force / partitioned): p50 {pct(brute_times, 50) / pct(times, 50):.0f}x, "
          f"p95 {pct(brute_times, 95) / pct(times, 95):.0f}x")

    if args.redis:
        n = min(args.redis_entries, args.entries)
        redis_cache = open_semantic_cache(args.redis, namespace=f"bench-{uuid.uuid4().hex[:8]}",
                                          embedder=embedder)  # type: ignore[arg-type]
        try:
            fill_s = fill(redis_cache, vectors[:n], args.per_partition)
            times, hits = measure(redis_cache, vectors[:n], args.per_partition, args.lookups, rng)
            print(f"redis cache: {n:,} entries (filled in {fill_s:.1f}s); lookup p50 {pct(times, 50):.3f} ms "
                  f"p95 {pct(times, 95):.3f} ms ({hits}/{args.lookups} hits)")
        finally:
            redis_cache.clear()

    from graphagents.retrieval import OfflineEmbedder

    offline = OfflineEmbedder()  # no disk cache: every question below is new
    offline.embed_one("warm-up")
    encode = []
    for i in range(20):
        t = time.perf_counter()
        offline.embed_one(f"타이레놀 {100 + i}mg 하루 몇 번 먹어요?")
        encode.append((time.perf_counter() - t) * 1000)
    print(f"for scale: embedding one question with the offline encoder p50 {pct(encode, 50):.1f} ms")


if __name__ == "__main__":
    main()
