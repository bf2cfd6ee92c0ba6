"""Statute search: the one-store hybrid it replaced against the three-signal index, per question set.

    .venv/bin/python bench/supervisor_statutes.py [--sets tune,dev,heldout,...]

Both sides run in this process over the same 81 live articles, the same embedder and the same
thesaurus and topics: the baseline is the store's own hybrid search (BM25 over the whole article
with its topics + dense, RRF 1:1, every thesaurus term at full weight, relevant = BM25 within 35%
of the best), the index is ``LawIndex`` (whole-article BM25 + key-field BM25 + dense at 0.3,
thesaurus terms at 0.3). A question counts as found when every gold article is among the first
three relevant hits (what the answer cites). Prints found / gold per set for both, the ratio, and
the mean search time. The weights were chosen on ``tune`` and ``dev`` only; the other sets are
held out (evaldata/README.md says when each was written).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from graphagents.agents.supervisor.data import find_dataset, load_articles
from graphagents.agents.supervisor.offline.english import gloss
from graphagents.agents.supervisor.tools.law_index import RELEVANT_SHARE, LawIndex
from graphagents.agents.supervisor.tools.laws import article_refs, law_query
from graphagents.retrieval import load_embedder

ROOT = Path(__file__).resolve().parents[1]
EVALDATA = ROOT / "src/graphagents/agents/supervisor/evaldata"
SETS = {"tune": ROOT / "tests/supervisor/data/statute_questions.jsonl", "dev": EVALDATA / "dev_queries.jsonl",
        "heldout": EVALDATA / "heldout_queries.jsonl", "late": EVALDATA / "heldout_statutes_late.jsonl",
        "statutes": EVALDATA / "heldout_statutes.jsonl", "fresh": EVALDATA / "heldout_statutes_fresh.jsonl",
        "post": EVALDATA / "heldout_statutes_post.jsonl"}


def questions(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("required_citations") and r.get("teams", ["search"]) == ["search"]]


def baseline(index: LawIndex) -> Callable[[str], list[str]]:
    """The search before issue 23's rework: one hybrid call on the store, BM25-ordered relevant hits."""
    def cite(query: str) -> list[str]:
        named = article_refs(query, index.articles)
        hits = index.store.search(law_query(query, [], broaden=False), k=6)
        best = max((h.bm25_score or 0.0 for h in hits), default=0.0)
        relevant = [h for h in hits
                    if h.id not in named and best > 0 and (h.bm25_score or 0.0) >= RELEVANT_SHARE * best]
        relevant.sort(key=lambda h: h.bm25_rank or 10**6)
        return (named + [h.id for h in relevant])[:3]
    return cite


def reworked(index: LawIndex) -> Callable[[str], list[str]]:
    def cite(query: str) -> list[str]:
        return [h["id"] for h in index.search(query)["hits"] if h["relevant"]][:3]
    return cite


def measure(cite: Callable[[str], list[str]], rows: Sequence[dict[str, Any]]) -> tuple[int, int, float]:
    found = gold = 0
    started = time.perf_counter()
    for row in rows:
        query = row["query"] + (f" ({g})" if (g := gloss(row["query"])) else "")
        cited = set(cite(query))
        found += len(set(row["required_citations"]) & cited)
        gold += len(row["required_citations"])
    return found, gold, (time.perf_counter() - started) / max(len(rows), 1) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    index = LawIndex.open(load_articles(find_dataset()), None, load_embedder(), data_dir=Path(tempfile.mkdtemp()))
    sides = {"baseline": baseline(index), "reworked": reworked(index)}
    for side in sides.values():  # warm the embedder's caches and Kiwi once, outside the timings
        measure(side, questions(SETS["tune"])[:3])
    print(f"{'set':10s} {'n':>4s}  {'baseline':>16s}  {'reworked':>16s}  {'ratio':>6s}  {'ms/query b/r':>14s}")
    for name in args.sets.split(","):
        rows = questions(SETS[name])
        (bf, bg, bt), (rf, rg, rt) = (measure(side, rows) for side in sides.values())
        ratio = (rf / rg) / (bf / bg) if bf else float("inf")
        print(f"{name:10s} {len(rows):4d}  {bf:3d}/{bg:3d} = {bf / bg:5.1%}  {rf:3d}/{rg:3d} = {rf / rg:5.1%}  "
              f"{ratio:5.2f}x  {bt:6.1f}/{rt:6.1f}")


if __name__ == "__main__":
    main()
