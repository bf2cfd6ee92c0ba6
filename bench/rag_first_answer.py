"""The rag agent's first answer on a fresh install: the index built from the shipped vectors.

In one process, each in a fresh DATA_DIR (an empty embedding cache and store):

1. baseline: ingest a sample of the bundled passages with the encoder running on each (what a
   first start cost before the vectors shipped), as passages per second;
2. seeded: ingest all 1,996 passages with the shipped vectors offered to the embedder;
3. the first answer: a fresh agent asked "메트포르민 부작용이 뭐예요?" (corpus index + turn), wall
   seconds, then a second question in the same process.

Prints the figures and the ratio of seeded to encoder-bound indexing speed.

Usage: ``.venv/bin/python bench/rag_first_answer.py [--sample 100]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def fresh_dir(label: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=f"ga-bench-rag-{label}-"))
    os.environ["GRAPHAGENTS_DATA_DIR"] = str(path)
    from graphagents.settings import get_settings

    get_settings.cache_clear()
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=100, help="passages the encoder-bound baseline indexes")
    args = parser.parse_args()

    from graphagents.agents.rag.corpus import MEDICAL_VECTORS, medical_corpus_path
    from graphagents.packagedata import package_path
    from graphagents.retrieval import OfflineEmbedder, VectorCache, ingest, open_store

    corpus = medical_corpus_path()
    lines = corpus.read_text(encoding="utf-8").splitlines()

    work = fresh_dir("baseline")
    sample = work / "sample.jsonl"
    sample.write_text("\n".join(lines[: args.sample]) + "\n", encoding="utf-8")
    embedder = OfflineEmbedder(disk=VectorCache(work / "vectors.sqlite"))
    store = open_store(f"file://{work / 'store'}", "baseline", embedder)
    base = ingest([sample], store, progress=False)
    store.close()
    base_rate = base.added / base.seconds
    print(f"[1] encoder-bound ingest: {base.added} passages in {base.seconds:.1f} s = {base_rate:.1f} passages/s "
          f"(the whole corpus would take ~{len(lines) / base_rate:.0f} s)")

    work = fresh_dir("seeded")
    embedder = OfflineEmbedder(disk=VectorCache(work / "vectors.sqlite"))
    embedder.add_seed(package_path("graphagents.agents.rag", *MEDICAL_VECTORS))
    store = open_store(f"file://{work / 'store'}", "seeded", embedder)
    seeded = ingest([corpus], store, progress=False)
    store.close()
    seeded_rate = seeded.added / seeded.seconds
    print(f"[2] seeded ingest: {seeded.added} passages in {seeded.seconds:.1f} s = {seeded_rate:.0f} passages/s; "
          f"ratio seeded/encoder-bound = {seeded_rate / base_rate:.0f}x")

    fresh_dir("agent")
    from graphagents.agents.rag.corpus import reset_corpora
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    reset_corpora()
    started = time.perf_counter()
    agent = Agent(SPEC, checkpoint_url="memory")
    reply = agent.session(None, user_id="bench").send("메트포르민 부작용이 뭐예요?")
    first = time.perf_counter() - started
    started = time.perf_counter()
    agent.session(None, user_id="bench").send("What are the symptoms of low blood pressure?")
    second = time.perf_counter() - started
    print(f"[3] fresh install: first answer in {first:.1f} s (index + turn), the next question in {second:.1f} s; "
          f"{sum(a.kind == 'citation' for a in reply.artifacts)} citations in the first answer")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
