"""search_tables on a synthetic 5,000-table schema vs a plain linear scan, measured in the same run.

The baseline is what a straightforward implementation does: a Python loop computing the cosine of
the query against each table's vectors and sorting. Both sides get the same (cached) query vector,
so the figures compare ranking work, not the encoder. Building the graph (embedding ~40k texts)
is timed separately and persisted like the embedded backend does (under ``$GRAPHAGENTS_DATA_DIR``,
default ``.data``), so a second run reuses every vector. ``top-5 agreement`` checks that the
vectorised cosine (before lexical and FK blending) ranks exactly like the loop; the last lines time
the same search without the principal-direction bound (every segment scored) and check that both
return identical hits.
Usage: ``.venv/bin/python bench/text2sql_search_tables.py [n_tables] [--rebuild]``; ``--rebuild``
deletes the stored graph first, so the timings follow a fresh build (the case that had a p95 as slow
as the scan: the build's bulk embedding used to evict the query vectors from the encoder's cache, so
the first search of each query paid an encoder call).
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from graphagents.agents.text2sql.schema.model import segment_texts, table_segments
from graphagents.agents.text2sql.schema.store import load_embedded, load_snapshot, snapshot_dir
from graphagents.retrieval import load_embedder
from graphagents.sql import ColumnInfo, ForeignKey, SchemaInfo, TableInfo

DOMAINS = [("customer", "고객"), ("order", "주문"), ("product", "상품"), ("invoice", "청구서"), ("shipment", "배송"),
           ("warehouse", "창고"), ("supplier", "공급사"), ("employee", "직원"), ("payment", "결제"),
           ("campaign", "캠페인"), ("contract", "계약"), ("ticket", "문의"), ("asset", "자산"), ("branch", "지점")]
ASPECTS = [("history", "이력"), ("summary", "요약"), ("detail", "상세"), ("log", "로그"), ("stats", "통계"),
           ("archive", "보관"), ("daily", "일별"), ("monthly", "월별")]
QUERIES = ["고객 주문 이력", "warehouse stock", "월별 결제 통계", "supplier contract", "직원 문의 로그",
           "배송 상세", "campaign summary", "자산 보관", "지점별 매출", "product reviews"]


def synthetic_schema(n_tables: int, seed: int = 7) -> SchemaInfo:
    rng = random.Random(seed)
    tables: list[TableInfo] = []
    for i in range(n_tables):
        (en, ko), (aen, ako) = rng.choice(DOMAINS), rng.choice(ASPECTS)
        name = f"{en}_{aen}_{i}"
        cols = (ColumnInfo("id", "INTEGER", False, True, f"{ko} ID"),
                ColumnInfo(f"{en}_code", "TEXT", True, False, f"{ko} 코드"),
                ColumnInfo("amount", "INTEGER", True, False, f"{ako} 금액"))  # fmt: skip
        fks = ()
        if i and rng.random() < 0.7:
            target = tables[rng.randrange(max(0, i - 200), i)].name
            fks = (ForeignKey(name, "id", target, "id"),)
        tables.append(TableInfo(name, cols, comment=f"{ko} {ako} 테이블 {i}", row_estimate=1000, foreign_keys=fks))
    return SchemaInfo("sqlite", tuple(tables))


def linear_scan(graph, vectors: dict[str, np.ndarray], q: np.ndarray, k: int) -> list[str]:
    scored = []
    for name in graph.table_names():
        best = 0.0
        for text in table_segments(graph.table(name)):
            v = vectors[text]
            best = max(best, float(np.dot(q, v) / (np.linalg.norm(q) * np.linalg.norm(v))))
        scored.append((best, name))
    scored.sort(reverse=True)
    return [name for _, name in scored[:k]]


def pct(values: list[float], p: float) -> float:
    return sorted(values)[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 5000
    embedder = load_embedder()
    embedder.embed(QUERIES)  # load the model and cache the query vectors outside the timings
    schema = synthetic_schema(n)
    data_dir = Path(os.environ.get("GRAPHAGENTS_DATA_DIR", ".data")) / "bench"
    if "--rebuild" in sys.argv:
        for path in snapshot_dir(data_dir).glob(f"bench-{n}.*"):
            path.unlink()
    t0 = time.perf_counter()
    graph = load_embedded(schema, fingerprint=f"bench-{n}", data_dir=data_dir, embedder=embedder)
    build_s = time.perf_counter() - t0
    snapshot = load_snapshot(snapshot_dir(data_dir), f"bench-{n}", embedder.name)
    assert snapshot is not None
    vectors = {t: snapshot.vectors[t] for t in segment_texts([graph.table(x) for x in graph.table_names()])}
    print(f"schema: {n} tables, {sum(len(t.columns) for t in schema.tables)} columns, {len(vectors)} texts; "
          f"{graph.embedded_count} embedded now, graph ready in {build_s:.1f}s")
    fast, slow, agree = [], [], 0
    rounds = 5
    for _ in range(rounds):
        for q in QUERIES:
            t = time.perf_counter()
            graph.search_tables(q, k=5)
            fast.append((time.perf_counter() - t) * 1000)
            qv = embedder.embed_one(q)
            t = time.perf_counter()
            scan = linear_scan(graph, vectors, qv, 5)
            slow.append((time.perf_counter() - t) * 1000)
            cosine = graph._table_segs.best_cosine(qv)
            top = [graph.table_names()[i] for i in np.argsort(-cosine, kind="stable")[:5]]
            agree += set(top) == set(scan)
    for label, xs in (("search_tables", fast), ("linear scan  ", slow)):
        print(f"{label}: p50 {pct(xs, 50):8.2f} ms   p95 {pct(xs, 95):8.2f} ms   (n={len(xs)})")
    print(f"ratio (linear scan / search_tables): p50 {pct(slow, 50) / pct(fast, 50):.0f}x, "
          f"p95 {pct(slow, 95) / pct(fast, 95):.0f}x")
    print(f"top-5 agreement, vectorised cosine vs loop: {agree}/{len(fast)}")
    segs = graph._table_segs
    bounded = [graph.search_tables(q, k=5) for q in QUERIES]
    segs.prune = False  # the same search over the full matrix: the bound must never change a result
    full_times, same = [], 0
    for _ in range(rounds):
        for q, hits in zip(QUERIES, bounded, strict=True):
            t = time.perf_counter()
            full = graph.search_tables(q, k=5)
            full_times.append((time.perf_counter() - t) * 1000)
            same += full == hits
    segs.prune = True
    print(f"same search over the full matrix (no bound): p50 {pct(full_times, 50):.2f} ms, p95 "
          f"{pct(full_times, 95):.2f} ms; identical hits (tables, scores) for {same}/{len(full_times)}")
    col_times = []
    for q in QUERIES:
        t = time.perf_counter()
        graph.search_columns(q, k=10)
        col_times.append((time.perf_counter() - t) * 1000)
    print(f"search_columns over {len(graph._col_ref)} columns: p50 {pct(col_times, 50):.2f} ms")


if __name__ == "__main__":
    main()
