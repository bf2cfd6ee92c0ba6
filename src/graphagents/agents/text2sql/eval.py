"""``graphagents eval text2sql``: execution accuracy of the agent on a gold question set.

Each question runs through the real agent (a fresh session, no query cache); its submitted rows
are compared with the gold rows the way defog sql-eval and Spider/BIRD do (``evaluation.compare``).
Every result is one of three outcomes, reported separately because they cost a user differently:
``correct``, ``declined`` (no SQL submitted: the agent said it could not) and ``wrong`` (a query
ran and answered something else, which the user cannot tell from a right one). The confidence the
reply stated (see ``offline.result.confidence_line``) is recorded with each result.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from graphagents.errors import ConfigError, InputError
from graphagents.packagedata import defog_dev_questions
from graphagents.settings import Settings, get_settings
from graphagents.sql import Question, expand_gold_alternatives, load_questions, matches_gold
from graphagents.usage import Usage, UsageSummary

from .offline.result import stated_confidence

Outcome = Literal["correct", "declined", "wrong"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "declined", "wrong")
EVAL_MAX_ROWS = 200_000


def resolve_questions(value: str | None) -> Path:
    if value in (None, "", "demo"):
        from .demo import demo_questions_path

        return demo_questions_path()
    if value == "defog-dev":
        return defog_dev_questions()
    return Path(value)


@dataclass
class QuestionResult:
    question: str
    db_name: str
    category: str
    correct: bool
    status: str
    seconds: float
    tool_calls: list[str] = field(default_factory=list)
    rewrites: int = 0
    sql: str | None = None
    error: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None  # what the reply said; None when it stated none (a model, a refusal)

    @property
    def outcome(self) -> Outcome:
        if self.correct:
            return "correct"
        return "wrong" if self.sql else "declined"


@dataclass
class EvalReport:
    llm: str
    questions_file: str
    results: list[QuestionResult]

    @property
    def accuracy(self) -> float:
        return sum(r.correct for r in self.results) / len(self.results) if self.results else 0.0

    def split(self, results: Sequence[QuestionResult] | None = None) -> dict[Outcome, int]:
        """How many results were correct, declined and wrong."""
        chosen = self.results if results is None else results
        return {o: sum(r.outcome == o for r in chosen) for o in OUTCOMES}

    def by_category(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in self.results:
            out[r.category][0] += int(r.correct)
            out[r.category][1] += 1
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    def mean_confidence(self, outcome: Outcome) -> float | None:
        """Mean stated confidence of the answers with ``outcome``: a check that it means something."""
        values = [r.confidence for r in self.results if r.outcome == outcome and r.confidence is not None]
        return round(sum(values) / len(values), 3) if values else None

    def to_json(self) -> dict[str, Any]:
        n = len(self.results)
        split = self.split()
        categories = {}
        for k, (c, total) in self.by_category().items():
            cat_split = self.split([r for r in self.results if r.category == k])
            categories[k] = {"correct": c, "declined": cat_split["declined"], "wrong": cat_split["wrong"],
                             "n": total, "accuracy": c / total}
        counts: dict[str, int] = {str(k): v for k, v in split.items()}
        return {"llm": self.llm, "questions": self.questions_file, "accuracy": self.accuracy, "n": n,
                **counts, "wrong_rate": split["wrong"] / n if n else 0.0,
                "declined_rate": split["declined"] / n if n else 0.0,
                "mean_confidence": {o: self.mean_confidence(o) for o in ("correct", "wrong")},
                "by_category": categories,
                "usage": UsageSummary().extend(Usage(**r.usage) for r in self.results if r.usage).to_dict(),
                "results": [{**asdict(r), "outcome": r.outcome} for r in self.results]}

    def to_markdown(self) -> str:
        n, split = len(self.results), self.split()
        lines = [f"# text2sql evaluation ({self.llm})", "", f"Questions: `{self.questions_file}`", "",
                 f"Execution accuracy: **{self.accuracy:.1%}** ({split['correct']}/{n})", "",
                 f"Correct **{split['correct']}** · declined **{split['declined']}** · wrong **{split['wrong']}** "
                 f"({split['wrong'] / n if n else 0.0:.1%} of questions answered wrongly)", "",
                 "| category | correct | declined | wrong | n | accuracy |", "| --- | --- | --- | --- | --- | --- |"]
        for k, (c, total) in self.by_category().items():
            cat = self.split([r for r in self.results if r.category == k])
            lines.append(f"| {k} | {c} | {cat['declined']} | {cat['wrong']} | {total} | {c / total:.1%} |")
        u = self.to_json()["usage"]
        lines += ["", f"Usage: {u['model_calls']} model calls, {u['input_tokens']} + {u['output_tokens']} tokens, "
                      f"p50 {u['latency_ms_p50']} ms per question, {u['steps_per_turn']} steps per question"]
        for title, outcome in (("Wrong answers", "wrong"), ("Declined", "declined")):
            chosen = [r for r in self.results if r.outcome == outcome]
            if chosen:
                lines += ["", f"## {title}", "", "| db | category | status | question | SQL or reason |",
                          "| --- | --- | --- | --- | --- |"]
                lines += [f"| {r.db_name} | {r.category} | {r.status} | {_cell(r.question)} "
                          f"| {_cell(r.sql or r.error)[:160]} |" for r in chosen]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "/")


def db_url_for(template: str | None, db_name: str, settings: Settings) -> str:
    if not template:
        from .agent_context import demo_url

        return demo_url(settings)
    return template.replace("{db_name}", db_name)


def _make_llm(llm: Any, questions: Sequence[Question]) -> Any:
    """``oracle`` knows the gold of these questions; a model instance is used as it is."""
    if llm == "oracle":
        from .oracle import OracleChatModel

        return OracleChatModel.from_pairs([(q.question, expand_gold_alternatives(q.query)[0]) for q in questions])
    return llm or "offline"


def run_eval(
    questions: Sequence[Question],
    *,
    db: str | None = None,
    llm: Any = "offline",
    settings: Settings | None = None,
    options: dict[str, Any] | None = None,
    questions_file: str = "",
    on_result: Callable[[QuestionResult], None] | None = None,
) -> EvalReport:
    from graphagents.runtime import Agent

    from .agent_context import open_checked
    from .spec import SPEC

    settings = settings or get_settings()
    model = _make_llm(llm, questions)
    results: list[QuestionResult] = []
    by_db: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_db[q.db_name].append(q)
    for db_name, group in by_db.items():
        url = db_url_for(db, db_name, settings)
        agent = Agent(SPEC, llm=model, settings=settings, checkpoint_url="memory", db=url, cache=False,
                      max_rows=EVAL_MAX_ROWS, **(options or {}))
        gold_db = open_checked(url)
        try:
            for q in group:
                result = _one(agent, gold_db, q)
                results.append(result)
                if on_result:
                    on_result(result)
        finally:
            gold_db.close()
    name = llm if isinstance(llm, str) or llm is None else type(llm).__name__
    return EvalReport(str(name), questions_file, results)


def _one(agent: Any, gold_db: Any, q: Question) -> QuestionResult:
    start = time.perf_counter()
    reply = agent.session().send(q.question)
    seconds = time.perf_counter() - start
    state = reply.state
    errors = [e.to_dict().get("message", "") for e in reply.events if e.type == "error"]
    result = QuestionResult(q.question, q.db_name, q.query_category, False, str(state.get("status", "")),
                            round(seconds, 4), list(state.get("tool_calls", [])), len(state.get("rewrites", [])),
                            state.get("sql"), "; ".join(errors), asdict(reply.usage),
                            stated_confidence(state.get("reply")))
    table = state.get("table")
    if not state.get("sql") or not isinstance(table, dict):
        result.sql = None
        said = " ".join(str(state.get("reply") or "").split())
        result.error = result.error or f"no SQL submitted ({result.status}): {said[:200]}"
        return result

    def run_gold(sql: str) -> list[tuple[Any, ...]]:
        return list(gold_db.fetch(sql, max_rows=EVAL_MAX_ROWS, timeout_s=60.0).rows)

    try:
        result.correct = matches_gold(q.query, [tuple(r) for r in table["rows"]], run_gold, question=q.question,
                                      dialect=gold_db.dialect)
    except Exception as exc:  # a broken gold is reported, not fatal for the whole run
        result.error = f"gold failed: {exc}"
    return result


def eval_command(
    questions: Annotated[str | None, typer.Option(help="question CSV (defog layout), 'demo' or 'defog-dev'")] = None,
    db: Annotated[str | None, typer.Option(help="database URL, or a template with {db_name}")] = None,
    llm: Annotated[str | None, typer.Option(help="offline, oracle or provider:model")] = "offline",
    report: Annotated[Path | None, typer.Option(help="directory for report.json and report.md")] = None,
    limit: Annotated[int | None, typer.Option(help="evaluate only the first N questions")] = None,
    category: Annotated[str | None, typer.Option(help="only this query_category")] = None,
    load_defog: Annotated[bool, typer.Option("--load-defog", help="load the needed defog databases first")] = False,
    admin_url: Annotated[str | None, typer.Option(help="Postgres admin URL for --load-defog")] = None,
) -> None:
    """Execution accuracy of text2sql on a question set, per category, with an optional report."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    path = resolve_questions(questions)
    qs = load_questions(path)
    if category:
        qs = [q for q in qs if q.query_category == category]
    if limit is not None:
        qs = qs[:limit]
    if not qs:
        raise InputError("no questions to evaluate: check --questions, --category and --limit")
    if load_defog:
        from graphagents.sql import DEFAULT_ADMIN_URL, load_defog_database

        names = sorted({q.db_name for q in qs})
        urls = {name: load_defog_database(name, admin_url or DEFAULT_ADMIN_URL) for name in names}
        if db is None:
            db = next(iter(urls.values())).rsplit("/", 1)[0] + "/{db_name}"
    elif db is None and any(q.db_name != "demo" for q in qs):
        raise ConfigError("these questions are not for the demo database: pass --db URL (or a {db_name} template)")
    console = Console()
    with Progress(TextColumn("[bold]text2sql eval"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[acc]}"), TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("eval", total=len(qs), acc="")
        done: list[QuestionResult] = []

        def tick(r: QuestionResult) -> None:
            done.append(r)
            progress.update(task, advance=1, acc=f"acc {sum(x.correct for x in done) / len(done):.1%}")

        result = run_eval(qs, db=db, llm=llm, questions_file=str(path), on_result=tick)
    table = Table("category", "correct", "declined", "wrong", "n", "accuracy")
    for cat, (c, n) in result.by_category().items():
        split = result.split([r for r in result.results if r.category == cat])
        table.add_row(cat, str(c), str(split["declined"]), str(split["wrong"]), str(n), f"{c / n:.1%}")
    split = result.split()
    table.add_row("[bold]all", str(split["correct"]), str(split["declined"]), str(split["wrong"]),
                  str(len(result.results)), f"[bold]{result.accuracy:.1%}")
    console.print(table)
    wrong_rate = split["wrong"] / len(result.results)
    console.print(f"correct {split['correct']} · declined {split['declined']} · wrong {split['wrong']} "
                  f"({wrong_rate:.1%} answered wrongly)")
    if report is not None:
        report.mkdir(parents=True, exist_ok=True)
        (report / "report.json").write_text(json.dumps(result.to_json(), ensure_ascii=False, indent=2, default=str),
                                            encoding="utf-8")
        (report / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        console.print(f"report: {report / 'report.json'}, {report / 'report.md'}")
