"""Chaining ``df`` (ours) against MACT's released behaviour (every step sees the original table).

A scripted planner (the offline planner, deterministic) answers multi-step questions built from
the shared WTQ dev tables: "which <text column> has the most <number column>?" plans as
[drop summary rows ->] rows with the largest value -> keep the answer column -> Finish. The gold
comes from plain pandas in this process. The same plans run twice, with ``chain=True`` and
``chain=False``; the figures are exact-match, wrong and declined counts, and seconds per question
(every step runs in the sandbox).

    .venv/bin/python bench/tableqa_chain_ablation.py [--limit 180]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

import graphagents as ga
from graphagents.agents.tableqa.datasets import load_wtq
from graphagents.agents.tableqa.metrics import answer_strings, denotation_match
from graphagents.agents.tableqa.offline.linking import tokens
from graphagents.agents.tableqa.offline.rules import summary_rows
from graphagents.agents.text2sql.eval import find_shared
from graphagents.sandbox import get_store


def questions(limit: int) -> list[tuple[str, str, list[str]]]:
    """(question, table source, gold answers) for tables with one clear winner."""
    path = find_shared("datasets/tableqa/dev/wtq.jsonl") or find_shared("datasets/tableqa/dev/wtq.jsonl", Path.cwd())
    if path is None:
        sys.exit("shared/datasets/tableqa/dev/wtq.jsonl not found")
    out = []
    for item in load_wtq(path)[:limit]:
        [table] = item.load_tables()
        frame = table.frame
        text = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c]) and tokens(c)]
        numbers = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and tokens(c)]
        if not text or not numbers:
            continue
        who, what = text[0], numbers[-1]
        rows = frame[~summary_rows(frame)]
        best = rows[rows[what] == rows[what].max()].drop_duplicates(subset=[who])
        if len(best) != 1:
            continue
        source = f"{table.name}={get_store().put(frame)}"
        question = f"which {' '.join(tokens(who))} has the most {' '.join(tokens(what))}?"
        out.append((question, source, answer_strings([best[who].iloc[0]])))
    return out


def run(items: list[tuple[str, str, list[str]]], chain: bool) -> dict[str, float]:
    agent = ga.load("tableqa", checkpoint_url="memory", chain=chain)
    right = wrong = declined = 0
    seconds = []
    multi = 0
    for question, source, gold in items:
        started = time.perf_counter()
        reply = agent.session(None, tables=[source]).send(question)
        seconds.append(time.perf_counter() - started)
        answer = list(reply.state.get("answer") or [])
        code_steps = sum(1 for s in reply.state.get("steps", []) if s.get("code"))
        multi += code_steps >= 2
        if not answer:
            declined += 1
        elif denotation_match(gold, answer):
            right += 1
        else:
            wrong += 1
    return {"right": right, "wrong": wrong, "declined": declined, "multi_step": multi,
            "p50_s": statistics.median(seconds) if seconds else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=180)
    args = parser.parse_args()
    items = questions(args.limit)
    print(f"{len(items)} multi-step questions from the WTQ dev tables (one clear winner each)")
    for chain in (True, False):
        r = run(items, chain)
        label = "chained df (ours)" if chain else "MACT release (df = original)"
        print(f"  {label:<30} right {r['right']:3d}  wrong {r['wrong']:3d}  declined {r['declined']:3d}  "
              f"(plans with >= 2 code steps: {r['multi_step']}; p50 {r['p50_s'] * 1000:.0f} ms per question)")


if __name__ == "__main__":
    main()
