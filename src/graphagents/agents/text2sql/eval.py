"""text2sql's evaluation: execution accuracy of the agent on gold question sets.

Each question runs through the real agent (a fresh session, no query cache); its submitted rows
are compared with the gold rows the way defog sql-eval and Spider/BIRD do (``graphagents.sql``).
``right``: the rows match a gold; ``declined``: no SQL submitted (the agent said it could not);
``wrong``: a query ran and answered something else, which the user cannot tell from a right one.
The confidence the reply stated (``offline.result.confidence_line``) is kept with each result.

Datasets (defog sql-eval's CSV layout, docs/evaluation.md): ``dev`` (the demo questions),
``heldout`` (104 questions over the defog databases the dev set does not use, frozen before tuning;
needs ``--db`` with ``{db_name}`` or ``--load-defog``), ``heldout-demo`` (demo questions written by
someone who had not read the composer), ``dev2``, ``en`` and ``defog-dev`` (needs ``--db`` or
``--load-defog`` too).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphagents.errors import ConfigError
from graphagents.evals import Case, CaseResult, EvalContext, Evaluation, Models, Output, Score, Source
from graphagents.evals.scoring import errors_of, mean
from graphagents.packagedata import defog_dev_questions
from graphagents.settings import Settings, get_settings

__all__ = ["EVAL_MAX_ROWS", "EVALUATION", "load_cases", "score"]

EVAL_MAX_ROWS = 200_000


def _demo_file(name: str) -> Path:
    from .demo import demo_questions_path

    return demo_questions_path().with_name(name)


def _heldout_file() -> Path:
    return Path(__file__).with_name("evaldata") / "heldout_questions.csv"


DATASETS: dict[str, Callable[[], Sequence[Source]]] = {
    "dev": lambda: [_demo_file("questions.csv")],
    "heldout": lambda: [_heldout_file()],
    "heldout-demo": lambda: [_demo_file("questions_heldout.csv")],
    "dev2": lambda: [_demo_file("questions_dev2.csv")],
    "en": lambda: [_demo_file("questions_en.csv")],
    "defog-dev": lambda: [defog_dev_questions()],
}


class EvalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    db: str | None = Field(None, description="database URL, or a template with {db_name}")
    category: str | None = Field(None, description="only this query_category")
    load_defog: bool = Field(False, description="load the needed defog databases first")
    admin_url: str | None = Field(None, description="Postgres admin URL for --load-defog")


def load_cases(source: Source) -> list[Case]:
    """A defog-layout CSV (question, query, db_name, query_category[, instructions]) as cases
    ``<file stem>:<row>``; the gold SQL is the expected value."""
    from graphagents.sql import load_questions

    path = Path(str(source))
    return [Case(f"{path.stem}:{n}", q.question, q.query,
                 {"db_name": q.db_name, "category": q.query_category, "instructions": q.instructions})
            for n, q in enumerate(load_questions(path), 1)]


def _select(cases: Sequence[Case], options: EvalOptions) -> list[Case]:
    return [c for c in cases if options.category in (None, c.metadata.get("category"))]


def db_url_for(template: str | None, db_name: str, settings: Settings) -> str:
    if not template:
        from .agent_context import demo_url

        return demo_url(settings)
    return template.replace("{db_name}", db_name)


@contextmanager
def _start(ctx: EvalContext) -> Iterator[Any]:
    from graphagents.runtime import Agent
    from graphagents.sql import expand_gold_alternatives

    from .agent_context import open_checked
    from .offline.result import stated_confidence
    from .spec import SPEC

    settings = ctx.settings or get_settings()
    template = ctx.option("db")
    names = sorted({str(c.metadata.get("db_name", "demo")) for c in ctx.dataset.cases})
    if ctx.option("load_defog"):
        from graphagents.sql import DEFAULT_ADMIN_URL, load_defog_database

        urls = {name: load_defog_database(name, ctx.option("admin_url") or DEFAULT_ADMIN_URL) for name in names}
        template = template or next(iter(urls.values())).rsplit("/", 1)[0] + "/{db_name}"
    elif template is None and any(name != "demo" for name in names):
        raise ConfigError("these questions are not for the demo database: pass --db URL (or a {db_name} template)")
    opened: dict[str, tuple[Any, Any]] = {}
    lock = threading.Lock()

    def for_db(db_name: str) -> tuple[Any, Any]:
        with lock:
            if db_name not in opened:
                url = db_url_for(template, db_name, settings)
                agent = Agent(SPEC, **ctx.agent_kwargs(checkpoint_url="memory", db=url, cache=False,
                                                       max_rows=EVAL_MAX_ROWS))
                opened[db_name] = (agent, open_checked(url))
            return opened[db_name]

    def run(case: Case) -> Output:
        agent, gold_db = for_db(str(case.metadata.get("db_name", "demo")))
        reply = agent.session().send(str(case.input))
        state = reply.state
        sql, table = state.get("sql"), state.get("table")
        details = {"status": str(state.get("status", "")), "sql": sql, "tool_calls": list(state.get("tool_calls", [])),
                   "rewrites": len(state.get("rewrites", [])), "confidence": stated_confidence(state.get("reply"))}
        error = errors_of(reply.events)
        if not sql or not isinstance(table, dict):
            said = " ".join(str(state.get("reply") or "").split())
            return Output(said[:300], {"rows": None}, {**details, "sql": None}, (reply.usage,),
                          error or f"no SQL submitted ({details['status']}): {said[:200]}")
        rows = [tuple(r) for r in table["rows"]]
        gold: dict[str, Any] = {}
        for alternative in expand_gold_alternatives(str(case.expected)):
            try:
                gold[alternative] = list(gold_db.fetch(alternative, max_rows=EVAL_MAX_ROWS, timeout_s=60.0).rows)
            except Exception as exc:  # a broken alternative is skipped by the comparison
                gold[alternative] = exc
        return Output(rows[:20], {"rows": rows, "gold": gold, "dialect": gold_db.dialect}, details, (reply.usage,),
                      error)

    try:
        yield run
    finally:
        for _, gold_db in opened.values():
            gold_db.close()


def score(case: Case, output: Output) -> Score:
    """Right when the submitted rows match a gold alternative; declined without SQL; else wrong."""
    from graphagents.sql import matches_gold

    rows = output.data.get("rows")
    confidence = output.details.get("confidence")
    if rows is None:
        return Score("declined", {"confidence": confidence}, "no SQL submitted")
    gold: dict[str, Any] = dict(output.data.get("gold") or {})

    def run_gold(sql: str) -> Any:
        found = gold.get(sql, KeyError(f"gold alternative not run: {sql[:80]}"))
        if isinstance(found, Exception):
            raise found
        return found

    try:
        same = matches_gold(str(case.expected), rows, run_gold, question=str(case.input),
                            dialect=str(output.data.get("dialect", "postgres")))
    except Exception as exc:  # every gold alternative failed: the gold is broken
        return Score("wrong", {"confidence": confidence}, f"gold failed: {exc}")
    if same:
        return Score("right", {"confidence": confidence}, "rows match the gold")
    return Score("wrong", {"confidence": confidence}, "rows differ from the gold")


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    n = len(results)

    def confidence(status: str) -> float | None:
        values = [r.score.metrics.get("confidence") for r in results if r.status == status]
        kept = [float(v) for v in values if isinstance(v, int | float)]
        return round(sum(kept) / len(kept), 3) if kept else None

    return {"execution_accuracy": round(sum(r.status == "right" for r in results) / n, 4) if n else 0.0,
            "wrong_rate": round(sum(r.status == "wrong" for r in results) / n, 4) if n else 0.0,
            "mean_confidence": {"right": confidence("right"), "wrong": confidence("wrong")},
            "tool_calls_mean": mean([len(r.output.details.get("tool_calls") or []) for r in results])}


def _oracle(cases: Sequence[Case], ctx: EvalContext) -> Models:
    """Knows the gold SQL of these questions and drives the pipeline with it, step by step."""
    from graphagents.sql import expand_gold_alternatives

    from .oracle import OracleChatModel

    return Models(OracleChatModel.from_pairs([(str(c.input), expand_gold_alternatives(str(c.expected))[0])
                                              for c in cases]))


EVALUATION = Evaluation(
    agent="text2sql",
    load=load_cases,
    start=_start,
    scorer=score,
    summarize=summarize,
    datasets=DATASETS,
    headline=("execution_accuracy", "wrong_rate"),
    groups=("category",),
    oracle=_oracle,
    options_model=EvalOptions,
    select=_select,
    description="Execution accuracy of text2sql on a gold question set (right / declined / wrong, per category).",
)
