"""``graphagents eval supervisor``: plan accuracy, citation recall, team runs and model calls per
query, the decision distribution, stalls and caps, over a labelled query file (the shared dev file's
format).

Plan accuracy compares the planned team set with the labels; ``run_accuracy`` compares the teams
that actually ran (after orchestration added or skipped some). A query is ``correct`` when the
teams that ran are the labelled ones and every required article is cited.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from graphagents.errors import InputError

from . import data

ACK = ("데이터에 없", "시행령", "합성", "가상", "미포함", "확인이 필요", "질문에 없")


@dataclass
class QueryResult:
    id: str
    question: str
    correct: bool
    status: str
    label_teams: list[str]
    planned_teams: list[str]
    run_teams: list[str]
    plan_correct: bool
    run_correct: bool
    scopes_correct: bool
    required_citations: list[str]
    cited: list[str]
    citation_recall: float | None
    team_runs: int
    model_calls: int
    decisions: list[str]
    caps_hit: list[str]
    external_facts: list[str]
    external_acknowledged: bool | None
    seconds: float
    reply: str = ""
    error: str = ""


@dataclass
class Report:
    llm: str
    queries_file: str
    results: list[QueryResult] = field(default_factory=list)

    def _mean(self, values: Sequence[float]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    def to_json(self) -> dict[str, Any]:
        rs = self.results
        required = sum(len(r.required_citations) for r in rs)
        found = sum(len(set(r.required_citations) & set(r.cited)) for r in rs)
        decisions = Counter(d for r in rs for d in r.decisions)
        ext = [r for r in rs if r.external_acknowledged is not None]
        return {
            "llm": self.llm, "queries": self.queries_file, "n": len(rs),
            "plan_accuracy": self._mean([r.plan_correct for r in rs]),
            "run_accuracy": self._mean([r.run_correct for r in rs]),
            "scope_accuracy": self._mean([r.scopes_correct for r in rs]),
            "citation_recall": round(found / required, 4) if required else 1.0,
            "citation_precision": round(found / cited, 4) if (cited := sum(
                len(r.cited) for r in rs if r.required_citations)) else 1.0,
            "citations_required": required, "citations_found": found,
            "correct": sum(r.correct for r in rs),
            "team_runs_mean": self._mean([r.team_runs for r in rs]),
            "model_calls_mean": self._mean([r.model_calls for r in rs]),
            "decision_distribution": dict(sorted(decisions.items())),
            "stalls": sum(r.status == "stall" for r in rs),
            "caps_hit": sum(bool(r.caps_hit) for r in rs),
            "external_facts_acknowledged": f"{sum(bool(r.external_acknowledged) for r in ext)}/{len(ext)}",
            "errors": sum(r.status == "error" for r in rs),
            "seconds_mean": self._mean([r.seconds for r in rs]),
            "results": [asdict(r) for r in rs],
        }

    def to_markdown(self) -> str:
        j = self.to_json()
        lines = [f"# supervisor evaluation ({self.llm})", "", f"Queries: `{self.queries_file}` (n={j['n']})", "",
                 "| metric | value |", "| --- | --- |"]
        for key in ("plan_accuracy", "run_accuracy", "scope_accuracy", "citation_recall", "citation_precision",
                    "correct",
                    "team_runs_mean", "model_calls_mean", "stalls", "caps_hit", "external_facts_acknowledged",
                    "errors", "seconds_mean"):
            lines.append(f"| {key} | {j[key]} |")
        lines += ["", "Decisions: " + ", ".join(f"{k} {v}" for k, v in j["decision_distribution"].items()), "",
                  "| id | correct | planned | ran | labels | citations | runs | calls | status |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in self.results:
            cit = f"{len(set(r.required_citations) & set(r.cited))}/{len(r.required_citations)}"
            lines.append(f"| {r.id} | {'✓' if r.correct else '✗'} | {','.join(r.planned_teams)} | "
                         f"{','.join(r.run_teams)} | {','.join(r.label_teams)} | {cit} | {r.team_runs} | "
                         f"{r.model_calls} | {r.status} |")
        return "\n".join(lines) + "\n"


def default_queries() -> Path:
    return data.dev_queries_path()


def make_model(llm: Any, labels: Sequence[Mapping[str, Any]], root: Path) -> tuple[Any, dict[str, Any]]:
    """The model and the per-role models for ``--llm``: ``oracle`` plans from the labels."""
    if llm == "oracle":
        from .oracle import oracle_model

        articles = {a.id: a for a in data.load_articles(root)}
        # The SQL sub-agent keeps its offline brain: the oracle speaks the supervisor's prompts only.
        return oracle_model(labels, articles), {"sql": "offline"}
    return (llm or "offline"), {}


def run_eval(labels: Sequence[Mapping[str, Any]], *, llm: Any = "offline", options: Mapping[str, Any] | None = None,
             queries_file: str = "", on_result: Callable[[QueryResult], None] | None = None) -> Report:
    from graphagents.runtime import Agent

    from .spec import SPEC

    root = data.find_dataset((options or {}).get("data"))
    model, roles = make_model(llm, labels, root)
    agent = Agent(SPEC, llm=model, models=roles, checkpoint_url="memory", **(options or {}))
    name = llm if isinstance(llm, str) or llm is None else type(llm).__name__
    report = Report(str(name), queries_file)
    for label in labels:
        result = one(agent, label)
        report.results.append(result)
        if on_result:
            on_result(result)
    return report


def one(agent: Any, label: Mapping[str, Any]) -> QueryResult:
    start = time.perf_counter()
    reply = agent.session().send(str(label["query"]))
    seconds = time.perf_counter() - start
    state = reply.state
    errors = [e.to_dict().get("message", "") for e in reply.events if e.type == "error"]
    plan = state.get("plan") or {}
    planned = [t["team"] for t in plan.get("teams") or []]
    ran = list(dict.fromkeys(state.get("completed_teams") or []))
    search_task: dict[str, Any] = next((t for t in plan.get("teams") or [] if t["team"] == "search"), {})
    required = list(label.get("required_citations") or [])
    cited = list(state.get("citations") or [])
    ext = list(label.get("external_facts") or [])
    teams = set(label["teams"])
    recall = len(set(required) & set(cited)) / len(required) if required else None
    status = "error" if errors else str(state.get("finish_reason") or "")
    return QueryResult(
        id=str(label.get("id", "")), question=str(label["query"]),
        correct=not errors and set(ran) == teams and (recall is None or recall == 1.0), status=status,
        label_teams=sorted(teams), planned_teams=planned, run_teams=ran, plan_correct=set(planned) == teams,
        run_correct=set(ran) == teams,
        scopes_correct=set(search_task.get("scopes") or []) == set(label.get("search_scopes") or []),
        required_citations=required, cited=cited, citation_recall=recall,
        team_runs=len(state.get("team_runs") or []),
        model_calls=reply.usage.model_calls,
        decisions=[f"{d['action']}/{d['source']}" for d in state.get("decisions") or []],
        caps_hit=list(state.get("caps_hit") or []), external_facts=ext,
        external_acknowledged=any(w in reply.text for w in ACK) if ext else None,
        seconds=round(seconds, 3), reply=reply.text, error="; ".join(errors))


def eval_command(
    queries: Annotated[str | None, typer.Option(help="labelled queries (JSONL, the shared dev file's format)")] = None,
    llm: Annotated[str | None, typer.Option(help="offline, oracle or provider:model")] = "offline",
    report: Annotated[Path | None, typer.Option(help="directory for report.json and report.md")] = None,
    limit: Annotated[int | None, typer.Option(help="evaluate only the first N queries")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="agent option key=value")] = None,
) -> None:
    """Plan accuracy, citation recall, team runs, model calls, decisions, stalls and caps."""
    from rich.console import Console

    from graphagents.cli.main import parse_pairs

    path = Path(queries) if queries else default_queries()
    labels = data.load_queries(path)[: limit if limit is not None else None]
    if not labels:
        raise InputError(f"no queries in {str(path)!r}")
    console = Console()
    result = run_eval(labels, llm=llm, options=parse_pairs(option), queries_file=str(path),
                      on_result=lambda r: console.print(f"{'✓' if r.correct else '✗'} {r.id} {r.status} "
                                                        f"teams={','.join(r.run_teams)} runs={r.team_runs}"))
    j = result.to_json()
    for key in ("n", "plan_accuracy", "run_accuracy", "citation_recall", "team_runs_mean", "model_calls_mean",
                "stalls", "caps_hit", "decision_distribution"):
        console.print(f"{key}: {j[key]}")
    if report is not None:
        report.mkdir(parents=True, exist_ok=True)
        (report / "report.json").write_text(json.dumps(j, ensure_ascii=False, indent=2), encoding="utf-8")
        (report / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        console.print(f"report: {report / 'report.json'}, {report / 'report.md'}")
