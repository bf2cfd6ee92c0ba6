"""slotfill's utterance set read by the offline brain and by a model, side by side, on a fixed sample.

``graphagents eval slotfill`` measures the offline brain only (it takes no ``--llm``); this runs the
same scorer (``score_utterances``) twice on every ``--step``-th utterance: once offline, once with
the model filling what the offline brain left open (the agent's real path: the model is asked only
then). Right / declined (intent ``unclear`` while the label is not) / wrong, with model calls,
tokens and seconds per utterance.

    .venv/bin/python scripts/local_eval_slotfill.py --llm local [--step 17] [--report DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from graphagents.agents.slotfill.engine import Engine
from graphagents.agents.slotfill.eval import Report, load_utterances, score_utterances
from graphagents.agents.slotfill.scenario import load_scenario
from graphagents.agents.slotfill.understanding import Understanding
from graphagents.llm import load_chat_model
from graphagents.usage import UsageRecorder


def run(rows: list[dict[str, Any]], llm: str) -> list[dict[str, Any]]:
    sc = load_scenario(None)
    recorder = UsageRecorder()
    model = load_chat_model(llm, callbacks=[recorder]) if llm != "offline" else None
    engine = Engine(sc, Understanding(model))
    out = []
    for row in rows:
        before = (recorder.model_calls, recorder.input_tokens, recorder.output_tokens)
        report = Report()
        t0 = time.perf_counter()
        score_utterances(sc, [row], engine, report)
        seconds = time.perf_counter() - t0
        result = report.results[0]
        got = report.intent_errors[0]["got"] if report.intent_errors else row["intent"]
        outcome = ("right" if result["correct"] else
                   "declined" if got == "unclear" and row["intent"] != "unclear" else "wrong")
        out.append({"text": row["text"], "stage": row["stage"], "expected": row["intent"], "got": got,
                    "outcome": outcome, "detail": report.intent_errors[0] if report.intent_errors else None,
                    "seconds": round(seconds, 2), "calls": recorder.model_calls - before[0],
                    "input_tokens": recorder.input_tokens - before[1],
                    "output_tokens": recorder.output_tokens - before[2]})
        if model is not None:
            r = out[-1]
            print(f"  [{len(out)}/{len(rows)}] {r['outcome']} calls={r['calls']} tokens={r['input_tokens']}+"
                  f"{r['output_tokens']} {seconds:.1f}s {row['text']!r} expected {row['intent']}, got {r['got']}",
                  flush=True)
    return out


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results) or 1
    return {"n": len(results), **{k: sum(r["outcome"] == k for r in results) for k in ("right", "declined", "wrong")},
            "calls_per_q": sum(r["calls"] for r in results) / n,
            "tokens_per_q": sum(r["input_tokens"] + r["output_tokens"] for r in results) / n,
            "seconds_per_q": sum(r["seconds"] for r in results) / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local")
    parser.add_argument("--step", type=int, default=17, help="every N-th utterance of the bundled set")
    parser.add_argument("--data", type=Path, default=None, help="utterances .jsonl (default: the bundled dev set)")
    parser.add_argument("--report", type=Path, default=None, help="directory for report.json")
    args = parser.parse_args()
    rows = load_utterances(args.data)[:: args.step]
    both = {"offline": run(rows, "offline"), args.llm: run(rows, args.llm)}
    for name, results in both.items():
        print(name, json.dumps(summary(results)))
    for a, b in zip(both["offline"], both[args.llm], strict=True):
        if a["outcome"] != b["outcome"] or b["calls"]:
            print(f"  {a['outcome']:>8} -> {b['outcome']:<8} calls={b['calls']} {b['seconds']:>6.1f}s "
                  f"[{a['stage']}] {a['text']!r} expected {a['expected']}, got {b['got']}"
                  + (f" {b['detail']['slots']} vs {b['detail']['expected_slots']}" if b["detail"] else ""))
    if args.report:
        args.report.mkdir(parents=True, exist_ok=True)
        (args.report / "report.json").write_text(json.dumps(
            {name: {"summary": summary(r), "results": r} for name, r in both.items()}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
