"""Ingest throughput and memory on the shared medical corpus (1,996 passages), with the offline encoder.

Three runs in one process, each against the baseline of the first: cold (empty embedding cache:
every passage goes through the encoder), warm (a new store, the embeddings already on disk: what a
second store or a rebuilt one costs) and again (the same store and file: skipped by content hash).
Peak RSS is the process's maximum resident memory after each step.

Usage: ``.venv/bin/python bench/retrieval_ingest.py [--limit N]`` (the first N passages only).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import tempfile
import time
from pathlib import Path

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.retrieval import OfflineEmbedder, VectorCache, ingest, open_store


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    corpus = medical_corpus_path()
    work = Path(tempfile.mkdtemp(prefix="ga-bench-ingest-"))
    try:
        if args.limit:
            lines = corpus.read_text(encoding="utf-8").splitlines()[: args.limit]
            corpus = work / "passages.jsonl"
            corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
        n = sum(1 for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip())
        chars = sum(len(json.loads(line)["text"]) for line in corpus.read_text(encoding="utf-8").splitlines() if line)
        print(f"corpus: {n:,} passages, {chars / n:,.0f} characters on average; start RSS {rss_mb():,.0f} MB")
        embedder = OfflineEmbedder(disk=VectorCache(work / "vectors.sqlite"))
        embedder.embed_one("load the model outside the timings")
        steps = [("cold (encoder)", "a"), ("warm (disk cache)", "b"), ("again (unchanged)", "b")]
        base = 0.0
        for label, name in steps:
            store = open_store(f"file://{work / 'stores'}", name, embedder)
            t = time.perf_counter()
            report = ingest([corpus], store, progress=False)
            store.search("warm the snapshot", 8)
            seconds = time.perf_counter() - t
            base = base or seconds
            print(f"{label:18s}: {seconds:6.2f}s  {n / seconds:8,.0f} passages/s  ({base / seconds:5.1f}x the cold run)"
                  f"  added {report.added:,}, skipped files {report.skipped}; peak RSS {rss_mb():,.0f} MB")
            store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
