"""The rerank stage over the hybrid top 20 (``agents/rag/rerank.py``): weights chosen on dev, checked
on held-out, against BM25, dense and plain RRF hybrid measured in the same run.

Every question (dev: English and Korean; held-out: the answerable ones) is searched as the eval and
the agent search it (``retrieval_query`` + ``named_terms``). For each, the store's BM25, dense and
hybrid (RRF, dense weight 0.5) lists are taken once; the rerank re-orders the hybrid top 20 with each
weight triple of a small grid. The grid point with the best dev recall@8 (MRR breaking ties) is
printed with its held-out figures; the held-out figures of the other points are not looked at to
choose. Timing: rerank per query vs the hybrid search itself (the baseline), in the same run.

Usage: ``.venv/bin/python bench/rag_rerank.py [--grid]`` (without ``--grid``: the shipped weights only).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import pct  # noqa: E402

from graphagents.agents.rag.eval import retrieval_metrics  # noqa: E402
from graphagents.agents.rag.guard import TopicGuard  # noqa: E402
from graphagents.agents.rag.language import named_terms  # noqa: E402
from graphagents.agents.rag.query import retrieval_query  # noqa: E402
from graphagents.agents.rag.rerank import ASPECT_WEIGHT, DEPTH, ENTITY_WEIGHT, TITLE_WEIGHT, rerank  # noqa: E402
from graphagents.packagedata import package_path  # noqa: E402


def questions(name: str) -> list[tuple[str, set[str]]]:
    path = package_path("graphagents.agents.rag", "evaldata", name)
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        gold = {*row["relevant_passage_ids"], *(row.get("also_relevant_passage_ids") or [])}
        if not gold:
            continue
        out.extend((str(q), gold) for q in (row["question"], row.get("question_ko")) if q)
    return out


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--grid", action="store_true", help="search the weight grid on dev")
    args = parser.parse_args()
    import graphagents as ga
    from graphagents.agents.rag.graph import rag_context

    rctx = rag_context(ga.load("rag", cache_enabled=False).build_context)
    store = rctx.corpus.ensure()
    sets = {"dev": questions("dev_questions.jsonl"), "heldout": questions("heldout_questions.jsonl")}
    lists: dict[str, list[dict[str, object]]] = {}
    search_ms: list[float] = []
    for name, rows in sets.items():
        lists[name] = []
        for text, gold in rows:
            query = retrieval_query(text, {}, extra=named_terms(text))
            vector = store.embedder.embed_one(query)
            t0 = time.perf_counter()
            hybrid = store.search(query, k=DEPTH, mode="hybrid", vector=vector, weights=(1.0, 0.5))
            search_ms.append((time.perf_counter() - t0) * 1000)
            lists[name].append({
                "text": text, "query": query, "gold": gold, "hybrid": hybrid,
                "guard": TopicGuard.for_question(text, named_terms(text)),
                "bm25": [h.id for h in store.search(query, k=10, mode="bm25")],
                "dense": [h.id for h in store.search(query, k=10, mode="dense", vector=vector)]})

    def figures(name: str, weights: tuple[float, float, float] | None) -> tuple[float, float]:
        recall, mrr = [], []
        for row in lists[name]:
            hits = row["hybrid"] if weights is None else rerank(
                str(row["text"]), str(row["query"]), row["hybrid"], row["guard"], weights=weights)  # type: ignore[arg-type]
            m = retrieval_metrics([h.id for h in hits], row["gold"])  # type: ignore[arg-type, attr-defined]
            recall.append(m["recall@8"])
            mrr.append(m["mrr"])
        return mean(recall), mean(mrr)

    for name in sets:
        print(f"== {name}: {len(lists[name])} questions")
        for mode in ("bm25", "dense"):
            ms = [retrieval_metrics(row[mode], row["gold"]) for row in lists[name]]  # type: ignore[arg-type]
            recall, mrr = mean([m["recall@8"] for m in ms]), mean([m["mrr"] for m in ms])
            print(f"  {mode:<8} recall@8 {recall:.3f}  MRR {mrr:.3f}")
        r, m = figures(name, None)
        print(f"  {'hybrid':<8} recall@8 {r:.3f}  MRR {m:.3f}  (RRF, dense weight 0.5)")
        shipped = (ASPECT_WEIGHT, ENTITY_WEIGHT, TITLE_WEIGHT)
        r, m = figures(name, shipped)
        print(f"  {'rerank':<8} recall@8 {r:.3f}  MRR {m:.3f}  (shipped weights {shipped})")
    if args.grid:
        grid = list(itertools.product((0.0, 0.004, 0.008, 0.012, 0.02), (0.0, 0.003, 0.006, 0.012),
                                      (0.0, 0.003, 0.006, 0.012)))
        ranked = sorted(grid, key=lambda w: figures("dev", w), reverse=True)
        print("== grid on dev (best 5), with their held-out figures")
        for w in ranked[:5]:
            print(f"  {w}: dev {figures('dev', w)}, held-out {figures('heldout', w)}")
    t0 = time.perf_counter()
    rows = lists["dev"]
    for row in rows:
        rerank(str(row["text"]), str(row["query"]), row["hybrid"], row["guard"])  # type: ignore[arg-type]
    per = (time.perf_counter() - t0) * 1000 / len(rows)
    print(f"== time: rerank {per:.2f} ms per query; hybrid search p50 {pct(search_ms, 50):.2f} ms "
          f"(ratio {per / max(pct(search_ms, 50), 1e-9):.2f})")


if __name__ == "__main__":
    main()
