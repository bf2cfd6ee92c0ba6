"""Judge the supervisor's answers on a labelled query file: right / partial / declined / wrong,
citation recall and plan accuracy, per query and in total.

    .venv/bin/python scripts/supervisor_answers.py                      # dev and held-out, offline
    .venv/bin/python scripts/supervisor_answers.py --set heldout --llm oracle
    .venv/bin/python scripts/supervisor_answers.py --queries FILE --report DIR

``--llm oracle`` plans from the labels (the gold plan): its citation recall must be 100% on any
query set; its replies are canned, so its verdicts measure the pipeline, not the prose. This script
stands in for ``graphagents eval supervisor`` until the shared evaluation harness judges answers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from graphagents.agents.supervisor import data
from graphagents.agents.supervisor.judge import VERDICTS, judge

HELDOUT = data.dev_queries_path().with_name("heldout_queries.jsonl")
LATE = data.dev_queries_path().with_name("heldout_statutes_late.jsonl")


def sets(choice: str, queries: str | None) -> list[tuple[str, Path]]:
    if queries:
        return [(Path(queries).stem, Path(queries))]
    dev = ("dev", data.dev_queries_path())
    held = ("heldout", HELDOUT)
    late = ("late", LATE)
    return {"dev": [dev], "heldout": [held], "late": [late], "both": [dev, held], "all": [dev, held, late]}[choice]


def seen_text(reply: Any) -> str:
    """What the user reads: the reply and any document draft shown with it (the page and the CLI
    render the draft artifact below the reply)."""
    items = [a if isinstance(a, dict) else {"kind": getattr(a, "kind", ""), "text": getattr(a, "text", "")}
             for a in reply.artifacts]
    drafts = [str(a.get("text", "")) for a in items if a.get("kind") == "document"]
    return "\n\n".join([reply.text, *drafts])


def run(labels: list[dict[str, Any]], llm: str) -> list[dict[str, Any]]:
    from graphagents.agents.supervisor.spec import SPEC
    from graphagents.runtime import Agent

    model: Any = llm
    roles: dict[str, Any] = {}
    if llm == "oracle":
        from graphagents.agents.supervisor.oracle import oracle_model

        articles = {a.id: a for a in data.load_articles(data.find_dataset())}
        model, roles = oracle_model(labels, articles), {"sql": "offline"}
    agent = Agent(SPEC, llm=model, models=roles, checkpoint_url="memory")
    out = []
    for label in labels:
        start = time.perf_counter()
        reply = agent.session().send(str(label["query"]))
        state = reply.state
        errors = "; ".join(str(e.to_dict().get("message", "")) for e in reply.events if e.type == "error")
        cited = list(state.get("citations") or [])
        ran = list(dict.fromkeys(state.get("completed_teams") or []))
        planned = [t["team"] for t in (state.get("plan") or {}).get("teams") or []]
        shown = seen_text(reply)
        j = judge(label, shown, cited, ran=ran, error=errors)
        out.append({"id": label.get("id"), "query": label["query"], "verdict": j.verdict, "reasons": list(j.reasons),
                    "required": list(label.get("required_citations") or []), "cited": cited,
                    "citation_recall": j.citation_recall, "planned": planned, "ran": ran,
                    "labels": sorted(label.get("teams") or []), "plan_correct": set(planned) == set(label["teams"]),
                    "seconds": round(time.perf_counter() - start, 2), "reply": shown})
        print(f"{j.verdict:8} {label.get('id')} {'; '.join(j.reasons)[:150]}", file=sys.stderr)
    return out


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    counts = Counter(r["verdict"] for r in results)
    required = sum(len(r["required"]) for r in results)
    found = sum(len(set(r["required"]) & set(r["cited"])) for r in results)
    return {"n": len(results), **{v: counts.get(v, 0) for v in VERDICTS},
            "citation_recall": round(found / required, 4) if required else None,
            "citations": f"{found}/{required}",
            "plan_accuracy": round(sum(r["plan_correct"] for r in results) / len(results), 4) if results else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("dev", "heldout", "late", "both", "all"), default="both")
    parser.add_argument("--queries", help="a labelled JSONL file instead of --set")
    parser.add_argument("--llm", default="offline", help="offline or oracle")
    parser.add_argument("--report", type=Path, help="directory for <set>.json")
    args = parser.parse_args()
    for name, path in sets(args.set, args.queries):
        labels = data.load_queries(path)
        results = run(labels, args.llm)
        s = summary(results)
        print(f"{name} ({args.llm}): " + ", ".join(f"{k} {v}" for k, v in s.items()))
        if args.report:
            args.report.mkdir(parents=True, exist_ok=True)
            (args.report / f"{name}-{args.llm}.json").write_text(
                json.dumps({"summary": s, "results": results}, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
