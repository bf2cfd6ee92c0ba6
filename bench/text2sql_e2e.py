"""Offline end-to-end latency of the text2sql agent on the demo database, vs running the gold SQL.

    .venv/bin/python bench/text2sql_e2e.py [--limit N] [--pg postgresql://.../admin_db]

For SQLite and PostgreSQL (skipped with the reason if unreachable): every demo question goes through
the whole offline agent (schema search, composer, guard, EXPLAIN, preview, submit; no query cache),
and the baseline executes the same question's gold SQL directly on the read-only executor. Prints
p50 / p95 per question for both and their ratio. One warm-up question is not counted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from urllib.parse import urlsplit, urlunsplit

from graphagents.agents.text2sql.agent_context import demo_url, open_checked
from graphagents.agents.text2sql.demo import demo_questions_path, load_postgres
from graphagents.agents.text2sql.spec import SPEC
from graphagents.runtime import Agent
from graphagents.settings import get_settings
from graphagents.sql import expand_gold_alternatives, load_questions

BENCH_DB = "graphagents_bench_t2s"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def postgres_url(admin: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (BENCH_DB,)).fetchone():
                conn.execute(f"CREATE DATABASE {BENCH_DB}")
    except Exception as exc:
        print(f"postgres: skipped ({str(exc).strip().splitlines()[0]})")
        return None
    url = urlunsplit(urlsplit(admin)._replace(path=f"/{BENCH_DB}"))
    load_postgres(url)
    return url


def bench(label: str, url: str, limit: int | None) -> None:
    questions = load_questions(demo_questions_path())[:limit]
    agent = Agent(SPEC, llm=None, checkpoint_url="memory", db=url, cache=False)
    db = open_checked(url)
    agent.session().send(questions[0].question)  # warm-up: embedder, schema graph, composer
    agent_s, gold_s, submitted = [], [], 0
    for q in questions:
        start = time.perf_counter()
        reply = agent.session().send(q.question)
        agent_s.append(time.perf_counter() - start)
        submitted += reply.state.get("status") == "submitted"
        start = time.perf_counter()
        db.fetch(expand_gold_alternatives(q.query)[0], max_rows=200_000, timeout_s=60)
        gold_s.append(time.perf_counter() - start)
    db.close()
    a50, a95, g50, g95 = pct(agent_s, 0.5), pct(agent_s, 0.95), pct(gold_s, 0.5), pct(gold_s, 0.95)
    print(f"{label}: {len(questions)} questions, {submitted} answered with SQL")
    print(f"  agent (offline, end to end)  p50 {a50 * 1000:8.1f} ms   p95 {a95 * 1000:8.1f} ms   "
          f"mean {statistics.mean(agent_s) * 1000:8.1f} ms")
    print(f"  baseline (gold SQL only)     p50 {g50 * 1000:8.1f} ms   p95 {g95 * 1000:8.1f} ms")
    print(f"  ratio agent/baseline         p50 {a50 / g50:8.1f} x    p95 {a95 / g95:8.1f} x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--pg", default=os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    bench("sqlite", demo_url(get_settings()), args.limit)
    url = postgres_url(args.pg)
    if url is not None:
        bench("postgres", url, args.limit)


if __name__ == "__main__":
    main()
