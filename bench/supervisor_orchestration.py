"""The note's fixed pipeline against adaptive orchestration, on the labelled dev queries.

    .venv/bin/python bench/supervisor_orchestration.py [--queries FILE] [--limit N] [--seeds N]

Both sides run the real supervisor graph (real teams, real data) in this process with the same
simulated planner, an LLM whose plans err at stated rates; the adaptive side adds a simulated
orchestrator that knows what a good plan needs and errs at a stated rate. Latency and tokens of
every model call and team run are drawn from the distributions below with common random numbers
(the same run of the same team on the same query costs the same on both sides), and each query's
wall time is computed from its trace: planning + per round (the decision call, then the slowest
team of the batch; parallel teams overlap) + the response. Prints team runs, model calls, wall
time and cost per query and answer completeness, for both sides and their ratio; figures are what
these assumptions give, not a claim about any particular model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

import graphagents as ga
from graphagents.agents.supervisor import data
from graphagents.agents.supervisor.oracle import plan_for
from graphagents.testing import FunctionChatModel

# ---- stated assumptions -------------------------------------------------------------------------
P_OVERPLAN = 0.35  # the planner adds a team the query does not need
P_UNDERPLAN = 0.15  # the planner drops a needed analysis/document team
P_SCOPE_MISS = 0.15  # the planner drops one needed search scope
P_ORCH_ERROR = 0.10  # the orchestrator answers at random
# latency: lognormal with these medians (seconds) and sigma 0.35
CALL_MEDIAN_S = {"plan": 1.2, "orchestrate": 0.8, "respond": 2.0}
TEAM_MEDIAN_S = {"search": 2.0, "analysis": 1.8, "document": 2.5}  # the note's teams call an LLM inside
SIGMA = 0.35
# tokens (input, output); team runs include the note's in-team LLM calls (search: keywords + tool choice)
CALL_TOKENS_OUT = {"plan": 250, "orchestrate": 80, "respond": 400}
TEAM_TOKENS = {"search": (1500, 200), "analysis": (1200, 300), "document": (1500, 600)}
TEAM_CALLS = {"search": 2, "analysis": 1, "document": 1}
PRICE_IN, PRICE_OUT = 0.15 / 1e6, 0.60 / 1e6  # USD per token (gpt-4o-mini list price, 2024)

_Q_PLAN = re.compile(r"## 질문\n(.*?)\n\n## ", re.S)
_Q_ORCH = re.compile(r"## 사용자 질문\n(.*?)\n\n## ", re.S)
_DONE = re.compile(r"## 현재까지의 결과 요약\n(.*?)\n\n## 남은 단계\n(.*?)\n\n## ", re.S)


def rng_for(seed: int, *key: object) -> random.Random:
    digest = hashlib.sha256(json.dumps([seed, *key], ensure_ascii=False).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def lognormal(rng: random.Random, median: float) -> float:
    return median * rng.lognormvariate(0.0, SIGMA)


@dataclass(frozen=True)
class Errors:
    over: float = P_OVERPLAN
    under: float = P_UNDERPLAN
    scope: float = P_SCOPE_MISS
    orchestrator: float = P_ORCH_ERROR


class Simulated:
    """The planner (both sides) and the orchestrator (adaptive side) as one function model."""

    def __init__(self, labels: Sequence[Mapping[str, Any]], articles: Mapping[str, Any], seed: int,
                 errors: Errors) -> None:
        self.by_query = {" ".join(str(q["query"]).split()): q for q in labels}
        self.articles, self.seed, self.errors = articles, seed, errors

    def label(self, query: str) -> Mapping[str, Any]:
        return self.by_query[" ".join(query.split())]

    def __call__(self, messages: list[BaseMessage]) -> str:
        text = str(messages[0].content)
        if text.startswith("당신은 부동산 상담 서비스의 계획 담당자"):
            m = _Q_PLAN.search(text)
            assert m
            return json.dumps(self.plan(self.label(m.group(1))), ensure_ascii=False)
        if text.startswith("당신은 실행 오케스트레이터"):
            m = _Q_ORCH.search(text)
            assert m
            return json.dumps(self.decide(self.label(m.group(1)), text), ensure_ascii=False)
        return "시뮬레이션 답변입니다."

    def plan(self, label: Mapping[str, Any]) -> dict[str, Any]:
        rng = rng_for(self.seed, "plan", label["id"])
        out = plan_for(label, self.articles)
        teams = out["teams"]
        present = {t["team"] for t in teams}
        if rng.random() < self.errors.over and len(present) < 3:
            extra = "analysis" if "analysis" not in present else "document"
            teams.append({"team": extra, "reason": "과잉 계획", "uses": ["search"]})
        if rng.random() < self.errors.under:
            needed = [t for t in teams if t["team"] != "search"]
            if needed:
                teams.remove(rng.choice(needed))
        search = teams[0]
        if rng.random() < self.errors.scope and len(search["scopes"]) > 1:
            search["scopes"] = [s for s in search["scopes"] if s != rng.choice(search["scopes"])]
        out["strategy"] = "parallel"
        return out

    def decide(self, label: Mapping[str, Any], prompt: str) -> dict[str, Any]:
        m = _DONE.search(prompt)
        summary, remaining_json = (m.group(1), m.group(2)) if m else ("", "[]")
        remaining = {r["team"] for r in json.loads(remaining_json)}
        done = set(re.findall(r"^- (\w+)#", summary, re.M))
        needed = set(label["teams"])
        rng = rng_for(self.seed, "decide", label["id"], len(re.findall(r"^- ", summary, re.M)))
        if rng.random() < self.errors.orchestrator:
            return {"action": rng.choice(["continue", "skip_remaining", "add_agent"]), "next_agent": "search",
                    "reasoning": "(simulated error)"}
        scopes = set(label.get("search_scopes") or []) | ({"laws"} if label.get("required_citations") else set())
        searched = {"laws": "법령" in summary, "market": "시세" in summary, "loans": "대출" in summary}
        missing_scopes = sorted(s for s in scopes if not searched.get(s, True))
        if missing_scopes and "search" in done:
            return {"action": "add_agent", "next_agent": "search", "scopes": missing_scopes,
                    "keywords": [self.articles[a].citation for a in label.get("required_citations") or []],
                    "reasoning": "필요한 검색 범위가 빠짐"}
        for team in ("analysis", "document"):
            if team in needed and team not in done and team not in remaining:
                return {"action": "add_agent", "next_agent": team, "reasoning": f"{team} 필요"}
        if remaining and not remaining & needed:
            return {"action": "skip_remaining", "reasoning": "남은 단계는 필요 없음"}
        return {"action": "continue", "reasoning": "계획대로"}


@dataclass
class Cost:
    runs: int
    calls: int
    wall_s: float
    usd: float
    complete: bool


def trace_cost(label: Mapping[str, Any], reply: Any, seed: int, prompts: list[tuple[str, int]]) -> Cost:
    """Wall time and money of one query from its trace, with the stated distributions."""
    qid = label["id"]
    wall, usd, calls = 0.0, 0.0, 0
    for n, (kind, tokens_in) in enumerate(prompts):
        rng = rng_for(seed, "call", qid, kind, n)
        usd += tokens_in * PRICE_IN + CALL_TOKENS_OUT[kind] * PRICE_OUT
        calls += 1
        if kind != "orchestrate":
            wall += lognormal(rng, CALL_MEDIAN_S[kind])
    decisions = {d["round"]: d for d in reply.state["decisions"]}
    runs = reply.state["team_runs"]
    orch_n = 0
    for rnd in sorted(decisions):
        d = decisions[rnd]
        if d["source"] in ("model", "fallback"):
            wall += lognormal(rng_for(seed, "call", qid, "orchestrate", orch_n), CALL_MEDIAN_S["orchestrate"])
            orch_n += 1
        batch = [r for r in runs if r["id"] in set(d.get("batch") or [])]
        wall += max((lognormal(rng_for(seed, "team", qid, r["id"]), TEAM_MEDIAN_S[r["team"]]) for r in batch),
                    default=0.0)
    for r in runs:
        tin, tout = TEAM_TOKENS[r["team"]]
        usd += tin * PRICE_IN + tout * PRICE_OUT
        calls += TEAM_CALLS[r["team"]]
    ran = set(reply.state["completed_teams"])
    cited = set(reply.state["citations"])
    complete = set(label["teams"]) <= ran and set(label.get("required_citations") or []) <= cited
    return Cost(len(runs), calls, wall, usd, complete)


SIDES = {"fixed (note)": {"orchestration": "fixed"}, "adaptive": {}, "adaptive+review": {"review_last": True}}


def run_side(options: Mapping[str, Any], labels: Sequence[Mapping[str, Any]], articles: Mapping[str, Any],
             seed: int, errors: Errors) -> list[Cost]:
    sim = Simulated(labels, articles, seed, errors)
    model = FunctionChatModel(function=sim)
    agent = ga.load("supervisor", model, models={"sql": "offline"}, checkpoint_url="memory", **options)
    out = []
    for label in labels:
        before = len(model.prompts)
        reply = agent.session().send(str(label["query"]))
        prompts = []
        for msgs in model.prompts[before:]:
            text = str(msgs[0].content)
            kind = ("plan" if text.startswith("당신은 부동산 상담 서비스") else
                    "orchestrate" if text.startswith("당신은 실행") else "respond")
            prompts.append((kind, len(text) // 2))  # ~2 characters per token for Korean prompts
        out.append(trace_cost(label, reply, seed, prompts))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(costs: list[Cost]) -> dict[str, float]:
    walls = [c.wall_s for c in costs]
    return {"team_runs": statistics.fmean(c.runs for c in costs),
            "model_calls": statistics.fmean(c.calls for c in costs),
            "wall_mean_s": statistics.fmean(walls), "wall_p50_s": pct(walls, 0.5), "wall_p95_s": pct(walls, 0.95),
            "usd_per_1k_queries": 1000 * statistics.fmean(c.usd for c in costs),
            "complete_pct": 100 * sum(c.complete for c in costs) / len(costs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seeds", type=int, default=3, help="independent draws of errors and latencies")
    args = parser.parse_args()
    root = data.find_dataset()
    labels = data.load_queries(root / data.QUERIES if args.queries is None else Path(args.queries))[: args.limit]
    articles = {a.id: a for a in data.load_articles(root)}
    scenarios = {"noisy planner, orchestrator errs 10%": Errors(),
                 "noisy planner, orchestrator never errs": Errors(orchestrator=0.0),
                 "exact planner, orchestrator errs 10%": Errors(0.0, 0.0, 0.0, P_ORCH_ERROR)}
    for name, errors in scenarios.items():
        print(f"\n== {name}: {len(labels)} labelled queries x {args.seeds} seeds; planner errors over "
              f"{errors.over:.0%}, under {errors.under:.0%}, scope {errors.scope:.0%}; orchestrator errors "
              f"{errors.orchestrator:.0%}")
        results = {side: summary([c for seed in range(args.seeds)
                                  for c in run_side(opts, labels, articles, seed, errors)])
                   for side, opts in SIDES.items()}
        base = results["fixed (note)"]
        print(f"{'metric':<20}" + "".join(f"{side:>18}" for side in results) + "   ratios vs fixed")
        for key in base:
            ratios = " ".join(f"{results[side][key] / base[key]:.2f}" if base[key] else "nan"
                              for side in list(results)[1:])
            print(f"{key:<20}" + "".join(f"{results[side][key]:>18.3f}" for side in results) + f"   {ratios}")

if __name__ == "__main__":
    main()
