"""Sandbox cost per step, with same-run baselines.

1. Round trip of one small step (the shape of a tableqa Retrieve/Operate on a WTQ-sized table):
   the pooled worker (fork per run, table cached by id) against a fresh process per step, both
   a fresh sandbox worker and the bare minimum (``python -c "import pandas; ..."``), and against
   plain ``exec`` in this process (no isolation at all: the floor).
2. Operations on a 1,000,000-row table: bare pandas in this process against the same code in the
   sandbox, cold (the table is sent to the worker) and warm (the worker has its id).

    .venv/bin/python bench/sandbox_roundtrip.py [--steps 30] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from graphagents.sandbox import ArtifactStore, Limits, SandboxPool

STEP = "new_table = df[df['salary'] > 100].sort_values('salary', ascending=False).head(5)"
LIMITS = Limits(timeout_seconds=60, memory_mb=4096)


def timed(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def summary(label: str, ms: list[float], base: float | None = None) -> str:
    p50 = statistics.median(ms)
    p95 = sorted(ms)[max(0, int(len(ms) * 0.95) - 1)]
    ratio = f"  {p50 / base:8.1f}x" if base else ""
    return f"  {label:<44} p50 {p50:9.2f} ms   p95 {p95:9.2f} ms{ratio}"


def small_step(steps: int) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"name": [f"p{i}" for i in range(40)], "salary": rng.integers(50, 300, 40)})
    with tempfile.TemporaryDirectory() as tmp:
        store = ArtifactStore(tmp)
        table_id = store.put(frame)
        pool = SandboxPool(size=1, limits=LIMITS, store=store)
        pool.warm()
        pool.run(STEP, {"df": table_id}, result_var="new_table")
        pooled = timed(lambda: pool.run(STEP, {"df": table_id}, result_var="new_table"), steps)
        pooled_frame = timed(lambda: pool.run(STEP, {"df": frame}, result_var="new_table"), steps)
        pool.close()

        def fresh_worker() -> None:
            one = SandboxPool(size=1, limits=LIMITS, store=store)
            one.run(STEP, {"df": table_id}, result_var="new_table")
            one.close()

        fresh = timed(fresh_worker, max(3, steps // 6))
        bare_cmd = [sys.executable, "-c", f"import pandas as pd\ndf = pd.DataFrame({{'salary': range(40)}})\n{STEP}"]
        bare_fresh = timed(lambda: subprocess.run(bare_cmd, check=True), max(3, steps // 6))

    def in_process() -> None:
        env = {"df": frame.copy(deep=False), "pd": pd}
        exec(compile(STEP, "<bench>", "exec"), env)

    floor = timed(in_process, steps)
    base = statistics.median(pooled)
    print(f"1. one small step (40-row table), {steps} steps")
    print(summary("pooled worker, table id cached (baseline)", pooled))
    print(summary("pooled worker, DataFrame passed each step", pooled_frame, base))
    print(summary("fresh sandbox worker per step", fresh, base))
    print(summary("fresh `python -c 'import pandas ...'` per step", bare_fresh, base))
    print(summary("plain exec in this process (no isolation)", floor, base))
    print(f"  => a fresh process per step costs {statistics.median(fresh) / base:.0f}x the pooled step")


OPERATIONS = {
    "groupby-aggregate": "df.groupby('k')['v'].agg(['sum', 'mean', 'count'])",
    "filter 10% of rows": "df[df['v'] > 0.9]",
    "string filter + sort + head": "df[df['s'].str.endswith('7')].sort_values('v').head(100)",
}


def million_rows(rows: int, repeats: int) -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {"k": rng.integers(0, 1000, rows), "v": rng.random(rows), "s": [f"id{i}" for i in range(rows)]}
    )
    print(f"\n2. {rows:,}-row table ({frame.memory_usage(deep=True).sum() / 2**20:.0f} MiB in pandas)")
    with tempfile.TemporaryDirectory() as tmp:
        store = ArtifactStore(tmp, memory_bytes=1 << 30)
        started = time.perf_counter()
        table_id = store.put(frame)
        print(f"  store.put (hash + Parquet write): {(time.perf_counter() - started) * 1000:.0f} ms")
        pool = SandboxPool(size=1, limits=LIMITS, store=store, cache_mb=2048)
        pool.warm()
        for label, code in OPERATIONS.items():
            bare = timed(lambda code=code: eval(code, {"df": frame, "pd": pd}), repeats)  # noqa: S307  the baseline
            cold_pool = SandboxPool(size=1, limits=LIMITS, store=store, cache_mb=2048)
            cold_pool.warm()
            cold = timed(lambda code=code, p=cold_pool: p.run(code, {"df": table_id}), 1)
            cold_pool.close()
            pool.run(code, {"df": table_id})
            warm = timed(lambda code=code: pool.run(code, {"df": table_id}), repeats)
            check = pool.run(code, {"df": table_id})
            assert check.ok, check.error
            base = statistics.median(bare)
            print(f"  {label}: result {check.kind} of {check.rows_total or 1:,} rows")
            print(summary("bare pandas in this process (baseline)", bare))
            print(summary("sandbox, table already in the worker", warm, base))
            print(summary("sandbox, first use (table sent to worker)", cold, base))
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    small_step(args.steps)
    million_rows(args.rows, args.repeats)


if __name__ == "__main__":
    main()
