"""tableqa's evaluation: exact match, MACT's partial match, steps and failure types.

Each question runs through the real agent in a fresh session with its tables, uploaded for the
case's own user and removed after the question (what a user with their own tables gets). Scoring
by layout (docs/evaluation.md): WTQ's denotation match (``wtq``), a table answer's rows as a
multiset (a question with ``rows``), MACT's EM (``mmqa``), or execution match against the gold
SQL's rows (``defog``, as ``eval text2sql`` scores).

``right``: the answer matches; ``partial``: a list answer whose every value is right but some gold
values are missing; ``declined``: no answer (the agent said it could not, ran out of steps or
failed: nothing false was claimed; the failure type says which); ``wrong``: an answer that does
not match. ``partial_match`` (MACT's token Jaccard) is reported for every dataset.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphagents.errors import ConfigError
from graphagents.evals import Case, CaseResult, EvalContext, Evaluation, Models, Output, Score, Source
from graphagents.evals.evaluation import missing_dataset
from graphagents.evals.scoring import errors_of, mean
from graphagents.packagedata import defog_dev_questions

from .datasets import Item, load_dataset, wtq_dev_path
from .metrics import denotation_match, exact_match, partial_match, to_value

__all__ = ["EVALUATION", "FAILURE_TYPES", "load_cases", "score"]

FAILURE_TYPES = ("wrong_table", "code_error", "timeout", "budget", "wrong_answer", "declined", "error")
"""Every failure type, counted in the report's ``failures`` (0 when none)."""

HELDOUT = Path(__file__).parent / "evaldata" / "heldout" / "questions.jsonl"
EVAL_USER = "tableqa-eval"
"""The users the eval's tables are uploaded for: one per case, ``tableqa-eval-<run>-<n>``. Upload
records are keyed by (user, content id), so two cases of one user over the same database shared a
record, and the first to finish removed it from under the other: the later case was declined "no
uploaded table". The more cases overlap (a loaded machine, ``--jobs``), the more were lost."""


def _heldout() -> list[Source]:
    if not HELDOUT.is_file():
        raise missing_dataset("tableqa", "heldout", HELDOUT)
    return [HELDOUT]


DATASETS: dict[str, Callable[[], Sequence[Source]]] = {
    "dev": lambda: [wtq_dev_path()],
    "wtq": lambda: [wtq_dev_path()],
    "heldout": _heldout,
    "defog-dev": lambda: [defog_dev_questions()],
}


class EvalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    db: str | None = Field(None, description="database URL template with {db_name} (defog questions)")
    plan_samples: int = Field(1, description="planner samples per step (MACT: 5)")
    code_samples: int = Field(1, description="coder samples per step (MACT: 5)")
    max_steps: int = Field(6, description="planner steps per question (MACT: 6)")
    no_chain: bool = Field(False, description="MACT's release: df is always the original")


def load_cases(source: Source) -> list[Case]:
    """A WTQ / MMQA ``.jsonl`` or ``.json``, or a defog ``.csv`` (its tables come from ``--db``)."""
    path = Path(str(source))
    items = load_dataset(str(path), db="{db_name}")
    return [Case(item.id, item.question, _expected(item),
                 {"qtype": item.qtype, "scoring": item.scoring, "source": str(path), "item": item,
                  **({"lang": item.lang} if item.lang else {})}) for item in items]


def _expected(item: Item) -> Any:
    if item.scoring == "defog":
        return item.gold_sql
    if item.rows is not None:
        return [list(r) for r in item.rows]
    return list(item.answers)


@contextmanager
def _start(ctx: EvalContext) -> Iterator[Any]:
    from graphagents.runtime import Agent
    from graphagents.sandbox import get_store
    from graphagents.store import database_for

    from .scoring import answer_rows, gold_alternatives
    from .spec import SPEC
    from .uploads import Uploads

    items = _items(ctx)
    options = {"plan_samples": ctx.option("plan_samples"), "code_samples": ctx.option("code_samples"),
               "max_steps": ctx.option("max_steps"), "chain": not ctx.option("no_chain")}
    agent = Agent(SPEC, **ctx.agent_kwargs(checkpoint_url="memory", **options))
    uploads = Uploads(database_for(agent.settings.resolved_database_url), get_store())
    run_id = uuid.uuid4().hex[:12]  # concurrent runs never remove each other's records
    numbers = itertools.count(1)  # next() on a count is atomic: every case its own number
    golds: dict[str, Any] = {}
    lock = threading.Lock()

    def gold(item: Item) -> Any:
        with lock:
            if item.id not in golds:
                golds[item.id] = gold_alternatives(item)
            return golds[item.id]

    def run(case: Case) -> Output:
        item = items[case.id]
        user = f"{EVAL_USER}-{run_id}-{next(numbers)}"  # concurrent cases never remove each other's records
        added: list[str] = []
        try:
            tables = item.load_tables()
            added = [uploads.add_frame(user, table.name, table.frame).id for table in tables]
            sources = [f"{t.name}={i}" for t, i in zip(tables, added, strict=True)]
            reply = agent.session(None, user_id=user, tables=sources).send(item.question)
            state = reply.state
            answer = [str(a) for a in state.get("answer") or []]
            rows = answer_rows(answer, state.get("answer_table")) if answer else []
        finally:
            for table_id in dict.fromkeys(added):
                uploads.forget(user, table_id)
        steps = state.get("steps") or []
        found = {"answer": answer, "rows": rows, "status": str(state.get("status", "")),
                 "steps": len(steps), "error_types": sorted({str(s.get("error_type")) for s in steps
                                                            if not s.get("ok") and s.get("error_type")}),
                 "tables_used": list(state.get("tables_used") or []),
                 "gold": gold(item) if item.scoring == "defog" else None}
        return Output(answer, found, {"status": found["status"], "steps": len(steps),
                                      "tables_used": found["tables_used"]}, (reply.usage,),
                      errors_of(reply.events) or str(state.get("reason", ""))[:300])

    yield run


def _items(ctx: EvalContext) -> dict[str, Item]:
    """The cases' items, with defog questions bound to the ``--db`` template."""
    items = {c.id: c.metadata["item"] for c in ctx.dataset.cases}
    defog = {str(c.metadata["source"]) for c in ctx.dataset.cases if c.metadata.get("scoring") == "defog"}
    if defog:
        from .datasets import load_defog

        template = ctx.option("db")
        if not template:
            raise ConfigError("defog questions need --db with a {db_name} template, "
                              "e.g. postgresql://postgres@127.0.0.1/{db_name}")
        for source in defog:
            items.update({i.id: i for i in load_defog(source, template) if i.id in items})
    return items


def score(case: Case, output: Output) -> Score:
    item: Item = case.metadata["item"]
    answer = [str(a) for a in output.data.get("answer") or []]
    gold_text = [" ".join(str(v) for v in row) for row in case.expected] if item.rows is not None else \
        [str(case.expected)] if item.scoring == "defog" else list(case.expected)
    metrics: dict[str, Any] = {"partial_match": round(partial_match(" ".join(gold_text), " ".join(answer)), 4)
                               if answer else 0.0, "steps": output.data.get("steps", 0)}
    if not answer:
        metrics["failure"] = _failure(output)
        return Score("declined", metrics, f"no answer ({metrics['failure']})")
    if item.scoring == "defog":
        from .scoring import matches_rows

        right = matches_rows(item.gold_sql, item.question, list(output.data.get("rows") or []),
                             output.data.get("gold") or {})
    elif item.rows is not None:
        from .scoring import table_matches

        right = table_matches(item.rows, output.data.get("rows") or [])
    elif item.scoring == "mmqa":
        right = exact_match(item.answers[0] if item.answers else "", ", ".join(answer))
    else:
        right = denotation_match(list(item.answers), answer)
    if right:
        return Score("right", metrics, "matches the gold")
    if item.scoring == "wtq" and item.rows is None and _proper_subset(answer, list(item.answers)):
        metrics["failure"] = "incomplete"
        return Score("partial", metrics, "every value right, some gold values missing")
    metrics["failure"] = _failure(output, item)
    return Score("wrong", metrics, f"does not match the gold ({metrics['failure']})")


def _proper_subset(answer: Sequence[str], gold: Sequence[str]) -> bool:
    values = [to_value(g) for g in gold]
    chosen = list(dict.fromkeys(to_value(a) for a in answer))
    return 0 < len(chosen) < len(set(values)) and all(any(c.match(g) for g in values) for c in chosen)


def _failure(output: Output, item: Item | None = None) -> str:
    status = str(output.data.get("status", ""))
    types = set(output.data.get("error_types") or [])
    if status in ("declined", "error"):
        return status
    if types & {"timeout", "cpu"}:
        return "timeout"
    if status == "budget":
        return "budget"
    if types & {"exception", "syntax", "refused", "memory", "output", "crashed", "code_error"}:
        return "code_error"
    if item is not None:
        from .scoring import gold_tables

        needed = gold_tables(item)
        if needed and not needed & {u.lower() for u in output.data.get("tables_used") or []}:
            return "wrong_table"
    return "wrong_answer" if item is not None else "declined"


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    failures = Counter(str(r.score.metrics.get("failure")) for r in results if r.status != "right")
    n = len(results)
    return {"exact_match": round(sum(r.status == "right" for r in results) / n, 4) if n else None,
            "partial_match": mean([r.score.metrics.get("partial_match") for r in results]),
            "avg_steps": mean([r.output.data.get("steps") for r in results]),
            "failures": {t: failures.get(t, 0) for t in (*FAILURE_TYPES, "incomplete")}}


def _oracle(cases: Sequence[Case], ctx: EvalContext) -> Models:
    """Knows each question's gold (answer strings, or the gold rows of a table answer) and still
    goes through the real pipeline: one Retrieve in the sandbox, then Finish."""
    from .oracle import OracleGold, oracle_model
    from .scoring import gold_rows

    gold = OracleGold()
    for item in _items(ctx).values():
        if item.scoring == "defog":
            gold.add(item.question, rows=gold_rows(item))
        elif item.rows is not None:
            gold.add(item.question, rows=[[_value(v) for v in row] for row in item.rows])
        else:
            gold.add(item.question, answers=item.answers)
    return Models(oracle_model(gold))


def _value(text: str) -> Any:
    value = to_value(text)
    if value.number is None:
        return text
    return int(value.number) if value.number.is_integer() else value.number


EVALUATION = Evaluation(
    agent="tableqa",
    load=load_cases,
    start=_start,
    scorer=score,
    summarize=summarize,
    datasets=DATASETS,
    headline=("exact_match", "partial_match", "avg_steps"),
    groups=("qtype", "lang"),
    oracle=_oracle,
    options_model=EvalOptions,
    description="Exact match (WTQ denotation, table rows, MMQA EM or defog execution match), partial match, steps "
                "and failure types of tableqa.",
)
