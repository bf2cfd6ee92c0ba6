"""Dense search over sentence windows vs whole passages, and what it does to the hybrid (RRF).

The offline encoder (multilingual USE) represents a ~800-character passage coarsely: dense-only
recall@8 on the medical dev questions is far below BM25's, and the hybrid ends up below BM25-only.
This bench measures the obvious remedy without changing the store: every passage's title + text is
cut into sentence windows (``chunk_text``), each window is embedded, and a passage is scored by its
best window (``win``), or by the best of its windows and its whole-passage vector (``win+passage``).
Each dense ranking is then fused with the store's own BM25 top-20 exactly as ``Store.search`` fuses
(RRF k = 60, depth 20, the agent's dense weight), and the questions are searched as the eval searches
them (``retrieval_query`` + ``named_terms``; gold = relevant + also-relevant passages).

Printed: recall@8 and MRR per ranking, how many questions each hybrid wins and loses against
BM25-only, the windows' count and embedding time (ratio against the whole-passage baseline's
search time in the same run), and the dense search time per query.

Usage: ``.venv/bin/python bench/rag_dense_windows.py [--max-chars 300] [--overlap 100] [--weight 0.5]``
(the first run embeds every window once; later runs read them from the embedder's disk cache).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import pct  # noqa: E402

from graphagents.agents.rag.corpus import medical_corpus_path  # noqa: E402
from graphagents.agents.rag.language import named_terms  # noqa: E402
from graphagents.agents.rag.query import retrieval_query  # noqa: E402
from graphagents.packagedata import package_path  # noqa: E402
from graphagents.retrieval import chunk_text, ingest, load_embedder, open_store  # noqa: E402
from graphagents.retrieval._documents import RRF_K, rrf  # noqa: E402
from graphagents.retrieval._store import FUSION_DEPTH  # noqa: E402

K = 8


def metrics(ranking: list[str], gold: set[str]) -> tuple[float, float]:
    recall = sum(doc in gold for doc in ranking[:K]) / len(gold)
    rr = next((1.0 / i for i, doc in enumerate(ranking[:10], 1) if doc in gold), 0.0)
    return recall, rr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chars", type=int, default=300, help="window size (chunk_text max_chars)")
    parser.add_argument("--overlap", type=int, default=100, help="window overlap (chunk_text overlap_chars)")
    parser.add_argument("--weight", type=float, default=0.5, help="RRF weight of the dense list (BM25's is 1)")
    args = parser.parse_args()
    qpath, cpath = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl"), medical_corpus_path()
    questions = [json.loads(line) for line in qpath.read_text(encoding="utf-8").splitlines()]
    passages = [json.loads(line) for line in cpath.read_text(encoding="utf-8").splitlines()]
    embedder = load_embedder()
    store = open_store(f"file://{tempfile.mkdtemp(prefix='ga-bench-win-')}", "windows", embedder)
    ingest([cpath], store, progress=False)

    ids = [p["id"] for p in passages]
    windows: list[str] = []
    owner: list[int] = []
    for row, p in enumerate(passages):
        title = (p.get("title") or "").strip()
        for window in chunk_text(p["text"], max_chars=args.max_chars, overlap_chars=args.overlap):
            windows.append(f"{title}\n{window}" if title else window)
            owner.append(row)
    owners = np.asarray(owner)
    started = time.perf_counter()
    window_matrix = embedder.embed(windows)
    embed_seconds = time.perf_counter() - started
    passage_matrix = embedder.embed([f"{p['title']}\n{p['text']}" if p.get("title") else p["text"] for p in passages])

    def by_windows(vector: np.ndarray, with_passage: bool) -> list[str]:
        best = np.full(len(ids), -2.0, dtype=np.float32)
        np.maximum.at(best, owners, window_matrix @ vector)
        if with_passage:
            best = np.maximum(best, passage_matrix @ vector)
        return [ids[i] for i in np.argsort(-best, kind="stable")[:FUSION_DEPTH]]

    def fused(lexical: list[str], dense: list[str]) -> list[str]:
        return [doc for doc, _ in rrf([lexical, dense], k=RRF_K, weights=(1.0, args.weight))]

    results: dict[str, list[tuple[float, float]]] = {}
    ceiling: list[float] = []  # BM25 recall@20: all a hybrid at dense weight < 1 reorders (see docs/rag.md)
    passage_ms: list[float] = []
    window_ms: list[float] = []
    for q in questions:
        gold = set(q["relevant_passage_ids"]) | set(q.get("also_relevant_passage_ids") or [])
        for key in ("question", "question_ko"):
            query = retrieval_query(q[key], {}, extra=named_terms(q[key]))
            vector = embedder.embed_one(query)
            lexical = [h.id for h in store.search(query, FUSION_DEPTH, "bm25")]
            ceiling.append(sum(doc in gold for doc in lexical) / len(gold))
            t0 = time.perf_counter()
            dense = [h.id for h in store.search(query, FUSION_DEPTH, "dense", vector=vector)]
            passage_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            windowed = by_windows(vector, False)
            window_ms.append((time.perf_counter() - t0) * 1000)
            both = by_windows(vector, True)
            rankings = {"bm25": lexical, "dense (passage)": dense, "dense (win)": windowed,
                        "dense (win+passage)": both, "hybrid (passage)": fused(lexical, dense),
                        "hybrid (win)": fused(lexical, windowed), "hybrid (win+passage)": fused(lexical, both)}
            for name, ranking in rankings.items():
                results.setdefault(name, []).append(metrics(ranking, gold))
    print(f"{len(passages)} passages -> {len(windows)} windows (max {args.max_chars} chars, overlap {args.overlap}); "
          f"embedding them took {embed_seconds:.1f} s; dense weight {args.weight}; {len(results['bm25'])} questions")
    print(f"{'ranking':<22} recall@{K}  MRR    wins/losses vs bm25 (recall@{K})")
    bm25_recall = np.array([r for r, _ in results["bm25"]])
    for name, rows in results.items():
        table = np.array(rows)
        line = f"{name:<22} {table[:, 0].mean():.3f}     {table[:, 1].mean():.3f}"
        if name.startswith("hybrid"):
            line += f"  {(table[:, 0] > bm25_recall).sum()}/{(table[:, 0] < bm25_recall).sum()}"
        print(line)
    print(f"bm25 recall@{FUSION_DEPTH} (the fused lists' lexical pool): {np.mean(ceiling):.3f}")
    p50_passage, p50_window = pct(passage_ms, 50), pct(window_ms, 50)
    print(f"dense search p50: whole passages (store) {p50_passage:.2f} ms, windows (numpy scan of "
          f"{len(windows)} rows) {p50_window:.2f} ms, ratio {p50_window / max(p50_passage, 1e-9):.2f}x")
    store.drop()


if __name__ == "__main__":
    main()
