"""Offline turn latency and memory of the slotfill agent vs a bare one-interrupt LangGraph graph.

Both run through the same runtime (``Session.send``) on the same kind of SQLite checkpointer in
a temporary directory, measured in this run, so the ratio is the cost of the scenario engine and
the Korean NLU per turn, not of LangGraph or the machine.

    .venv/bin/python bench/slotfill_latency.py [--sessions 20]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import START, StateGraph
from langgraph.types import interrupt

import graphagents as ga
from graphagents.agents.slotfill.spec import SPEC
from graphagents.registry import AgentSpec, BuildContext
from graphagents.settings import Settings

HAPPY = ["안녕하세요", "번호가 틀렸어요 010-9876-5432", "네", "네", "네", "모바일 OTP로 하고 1회 500만원, 하루 2천만원",
         "네", "출금 알림만 빼고 다 사용할게요", "네", "네 신청해 주세요"]


class BareState(TypedDict, total=False):
    user_input: str
    turns: int


def _bare_build(ctx: BuildContext) -> Any:
    def ask(state: BareState) -> dict[str, Any]:
        answer = interrupt("next?")
        return {"user_input": answer, "turns": state.get("turns", 0) + 1}

    g = StateGraph(BareState)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    g.add_edge("ask", "ask")
    return g.compile(checkpointer=ctx.checkpointer)


BARE = AgentSpec(name="bare_interrupt", title="bare", description="one interrupt node", build=_bare_build,
                 step_cap=1000)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(agent: ga.Agent, sessions: int) -> list[float]:
    times: list[float] = []
    for _ in range(sessions):
        s = agent.session()
        for text in HAPPY:
            start = time.perf_counter()
            s.send(text)
            times.append((time.perf_counter() - start) * 1000)
    return times


def session_memory_kib(agent: ga.Agent) -> tuple[float, float]:
    """(peak, retained) Python heap in KiB while one whole conversation runs (tracemalloc)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    s = agent.session()
    for text in HAPPY:
        s.send(text)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (peak - before) / 1024, (current - before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    ga.register(SPEC)
    ga.register(BARE)
    with tempfile.TemporaryDirectory(prefix="slotfill-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp), llm="offline")
        slotfill = ga.load("slotfill", "offline", settings=settings)
        bare = ga.load("bare_interrupt", "offline", settings=settings)
        measure(slotfill, 2)  # warm-up: Kiwi model load, SQLite files, caches
        measure(bare, 2)
        sf, base = measure(slotfill, args.sessions), measure(bare, args.sessions)
        sf_mem, base_mem = session_memory_kib(slotfill), session_memory_kib(bare)
    rows = [("slotfill (offline)", sf), ("bare interrupt graph", base)]
    print(f"turns per agent: {len(sf)} ({args.sessions} sessions x {len(HAPPY)} turns)")
    print(f"{'':24}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
    for name, values in rows:
        print(f"{name:24}{percentile(values, 0.5):10.2f}{percentile(values, 0.95):10.2f}"
              f"{statistics.fmean(values):10.2f}")
    print(f"ratio slotfill / bare: p50 {percentile(sf, 0.5) / percentile(base, 0.5):.2f}x, "
          f"p95 {percentile(sf, 0.95) / percentile(base, 0.95):.2f}x")
    print(f"python heap per conversation (peak / retained KiB): slotfill {sf_mem[0]:.0f} / {sf_mem[1]:.0f}, "
          f"bare {base_mem[0]:.0f} / {base_mem[1]:.0f}; peak ratio {sf_mem[0] / max(base_mem[0], 1e-9):.2f}x")


if __name__ == "__main__":
    main()
