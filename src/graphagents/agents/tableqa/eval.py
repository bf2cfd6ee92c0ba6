"""``graphagents eval tableqa``: exact match, MACT's partial match, steps and failure types.

Each question runs through the real agent in a fresh session with its tables. Scoring by dataset:
WTQ's denotation accuracy (``wtq``), MACT's EM (``mmqa``), or execution match against the gold
SQL's rows (``defog``, as ``eval text2sql`` scores). ``partial_match`` is MACT's token Jaccard for
every dataset. Failures are typed: declined, budget, timeout, code_error, wrong_table, wrong_answer.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from graphagents.errors import InputError

from .datasets import Item, load_dataset
from .metrics import denotation_match, exact_match, partial_match
from .scoring import answer_rows, gold_rows, gold_tables, matches_rows

__all__ = ["EvalReport", "ItemResult", "eval_command", "run_eval"]


FAILURE_TYPES = ("wrong_table", "code_error", "timeout", "budget", "wrong_answer", "declined", "error")
"""Every failure type, counted in report.json's ``failures`` (0 when none)."""


@dataclass
class ItemResult:
    id: str
    question: str
    qtype: str
    correct: bool
    partial: float
    status: str
    failure: str
    answer: list[str]
    gold: list[str]
    steps: int
    seconds: float
    tables_used: list[str] = field(default_factory=list)
    error: str = ""


@dataclass
class EvalReport:
    llm: str
    dataset: str
    options: dict[str, Any]
    results: list[ItemResult]

    def _share(self, pred: Callable[[ItemResult], bool]) -> float:
        return sum(pred(r) for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def exact_match(self) -> float:
        return self._share(lambda r: r.correct)

    def to_json(self) -> dict[str, Any]:
        n = len(self.results)
        failures = Counter(r.failure for r in self.results if r.failure)
        by_type: dict[str, list[ItemResult]] = defaultdict(list)
        for r in self.results:
            by_type[r.qtype or "other"].append(r)
        return {
            "llm": self.llm,
            "dataset": self.dataset,
            "options": self.options,
            "n": n,
            "exact_match": self.exact_match,
            "partial_match": sum(r.partial for r in self.results) / n if n else 0.0,
            "avg_steps": sum(r.steps for r in self.results) / n if n else 0.0,
            "correct": sum(r.correct for r in self.results),
            "declined": failures.get("declined", 0),
            "wrong": n - sum(r.correct for r in self.results) - failures.get("declined", 0),
            "failures": {t: failures.get(t, 0) for t in FAILURE_TYPES},
            "by_type": {
                t: {"n": len(rs), "exact_match": sum(r.correct for r in rs) / len(rs),
                    "declined": sum(r.failure == "declined" for r in rs)}
                for t, rs in sorted(by_type.items())
            },
            "results": [asdict(r) for r in self.results],
        }

    def to_markdown(self) -> str:
        data = self.to_json()
        lines = [
            f"# tableqa evaluation ({self.llm})", "", f"Dataset: `{self.dataset}`, n = {data['n']}", "",
            f"- exact match: **{data['exact_match']:.1%}** ({data['correct']}/{data['n']})",
            f"- declined: {data['declined']}, wrong: {data['wrong']}",
            f"- partial match: {data['partial_match']:.3f}", f"- average steps: {data['avg_steps']:.2f}", "",
            "| failure | count |", "| --- | --- |",
        ]
        lines += [f"| {k} | {v} |" for k, v in data["failures"].items()]
        lines += ["", "| type | n | exact match | declined |", "| --- | --- | --- | --- |"]
        lines += [f"| {t} | {v['n']} | {v['exact_match']:.1%} | {v['declined']} |" for t, v in data["by_type"].items()]
        wrong = [r for r in self.results if not r.correct and r.failure != "declined"]
        if wrong:
            lines += ["", "## Wrong answers", "", "| question | answer | gold | failure |", "| --- | --- | --- | --- |"]
            lines += [f"| {_cell(r.question)} | {_cell(' / '.join(r.answer))} | {_cell(' / '.join(r.gold))} "
                      f"| {r.failure} |" for r in wrong[:100]]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")[:120]


EVAL_USER = "tableqa-eval"
"""The user the eval's tables are uploaded for (one per run: ``tableqa-eval-<random>``; its records
are removed after each question)."""


def run_eval(
    items: Sequence[Item],
    *,
    llm: Any = "offline",
    options: dict[str, Any] | None = None,
    dataset: str = "",
    on_result: Callable[[ItemResult], None] | None = None,
) -> EvalReport:
    from graphagents.runtime import Agent
    from graphagents.sandbox import get_store
    from graphagents.store import database_for

    from .spec import SPEC
    from .uploads import Uploads

    store = get_store()
    golds = {item.id: gold_rows(item) if item.scoring == "defog" else None for item in items}
    model = _model(llm, items, golds)
    agent = Agent(SPEC, llm=model, checkpoint_url="memory", **(options or {}))
    uploads = Uploads(database_for(agent.settings.resolved_database_url), store)
    user = f"{EVAL_USER}-{uuid.uuid4().hex[:12]}"  # concurrent runs never remove each other's records
    results = []
    for item in items:
        started = time.perf_counter()
        added: list[str] = []
        try:  # each item's tables as uploads of the eval's own user, removed after the question
            tables = item.load_tables()
            added = [uploads.add_frame(user, table.name, table.frame).id for table in tables]
            sources = [f"{t.name}={i}" for t, i in zip(tables, added, strict=True)]
            reply = agent.session(None, user_id=user, tables=sources).send(item.question)
            errors = [e.to_dict().get("message", "") for e in reply.events if e.type == "error"]
            state, error = reply.state, "; ".join(errors)
        except Exception as exc:  # one broken item is a reported failure, not the end of the run
            state, error = {"status": "error", "answer": [], "steps": []}, f"{type(exc).__name__}: {exc}"
        finally:
            for table_id in dict.fromkeys(added):
                uploads.forget(user, table_id)
        result = _score(item, state, golds.get(item.id), error, time.perf_counter() - started)
        results.append(result)
        if on_result:
            on_result(result)
    name = llm if isinstance(llm, str) or llm is None else type(llm).__name__
    return EvalReport(str(name), dataset, dict(options or {}), results)


def _model(llm: Any, items: Sequence[Item], golds: dict[str, Any]) -> Any:
    if llm != "oracle":
        return llm or "offline"
    from .oracle import OracleGold, oracle_model

    gold = OracleGold()
    for item in items:
        rows = golds.get(item.id)
        if rows is not None:
            gold.add(item.question, rows=rows)
        else:
            gold.add(item.question, answers=item.answers)
    return oracle_model(gold)


def _score(item: Item, state: dict[str, Any], gold: Any, error: str, seconds: float) -> ItemResult:
    answer = [str(a) for a in state.get("answer") or []]
    status = str(state.get("status", ""))
    steps = state.get("steps") or []
    if item.scoring == "defog":
        rows = answer_rows(answer, state.get("answer_table"))
        correct = bool(answer) and matches_rows(item, rows)
        gold_text = [" ".join(str(v) for v in row) for row in (gold or [])][:20]
    elif item.scoring == "mmqa":
        correct = bool(answer) and exact_match(item.answers[0] if item.answers else "", ", ".join(answer))
        gold_text = list(item.answers)
    else:
        correct = bool(answer) and denotation_match(list(item.answers), answer)
        gold_text = list(item.answers)
    partial = partial_match(" ".join(gold_text), " ".join(answer)) if answer else 0.0
    failure = "" if correct else _failure(item, status, steps, state.get("tables_used") or [])
    return ItemResult(item.id, item.question, item.qtype, correct, round(partial, 4), status, failure, answer,
                      gold_text, len(steps), round(seconds, 3), list(state.get("tables_used") or []),
                      error or str(state.get("reason", ""))[:300])


def _failure(item: Item, status: str, steps: list[dict[str, Any]], used: list[str]) -> str:
    if status in ("declined", "error"):
        return "declined" if status == "declined" else "error"
    types = {s.get("error_type") for s in steps if not s.get("ok")}
    if types & {"timeout", "cpu"}:
        return "timeout"
    if status == "budget":
        return "budget"
    if types & {"exception", "syntax", "refused", "memory", "output", "crashed", "code_error"}:
        return "code_error"
    needed = gold_tables(item)
    if needed and not needed & {u.lower() for u in used}:
        return "wrong_table"
    return "wrong_answer"


def eval_command(
    dataset: Annotated[str, typer.Option(help="wtq, defog-dev, or a .jsonl (WTQ/MMQA) / .csv (defog) file")] = "wtq",
    db: Annotated[str | None, typer.Option(help="database URL template with {db_name} (defog)")] = None,
    llm: Annotated[str | None, typer.Option(help="offline, oracle or provider:model")] = "offline",
    plan_samples: Annotated[int, typer.Option(help="planner samples per step (MACT: 5)")] = 1,
    code_samples: Annotated[int, typer.Option(help="coder samples per step (MACT: 5)")] = 1,
    max_steps: Annotated[int, typer.Option(help="planner steps per question (MACT: 6)")] = 6,
    no_chain: Annotated[bool, typer.Option("--no-chain", help="MACT's release: df is always the original")] = False,
    limit: Annotated[int | None, typer.Option(help="only the first N questions")] = None,
    report: Annotated[Path | None, typer.Option(help="directory for report.json and report.md")] = None,
) -> None:
    """Exact match, partial match, steps and failure types of tableqa on a question set."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    items = load_dataset(dataset, db=db)
    items = items[:limit] if limit is not None else items
    if not items:
        raise InputError("no questions to evaluate: check --dataset and --limit")
    options = {"plan_samples": plan_samples, "code_samples": code_samples, "max_steps": max_steps,
               "chain": not no_chain}
    console = Console()
    done: list[ItemResult] = []
    with Progress(TextColumn("[bold]tableqa eval"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[em]}"),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("eval", total=len(items), em="")

        def tick(r: ItemResult) -> None:
            done.append(r)
            progress.update(task, advance=1, em=f"EM {sum(x.correct for x in done) / len(done):.1%}")

        result = run_eval(items, llm=llm, options=options, dataset=dataset, on_result=tick)
    data = result.to_json()
    console.print(f"exact match {data['exact_match']:.1%} ({data['correct']}/{data['n']}), "
                  f"declined {data['declined']}, wrong {data['wrong']}, partial match {data['partial_match']:.3f}, "
                  f"avg steps {data['avg_steps']:.2f}")
    console.print(f"failures: {data['failures']}")
    if report is not None:
        report.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
        (report / "report.json").write_text(text, encoding="utf-8")
        (report / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        console.print(f"report: {report / 'report.json'}, {report / 'report.md'}")
