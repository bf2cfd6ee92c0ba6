"""The evaluation harness on a toy agent: datasets, statuses, --limit, --jobs, the per-case
timeout, oracles, unanswerable cases, the report's shape, and the measuring-stick checks."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from graphagents.errors import ConfigError, InputError
from graphagents.evals import (
    Case,
    CaseResult,
    Dataset,
    EvalContext,
    Evaluation,
    Models,
    Output,
    Score,
    Source,
    always,
    assert_measuring_stick,
    expect,
    read_jsonl,
    rescore,
    run_evaluation,
    scorer_failures,
)
from graphagents.evals.checks import not_right
from graphagents.usage import Usage

RELEASE = threading.Event()
"""Set at the end of the timeout test so the abandoned case's thread ends."""


class ToyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    offset: int = 0
    only_kind: str | None = None
    strict: bool = False


def load(source: Source) -> list[Case]:
    """Rows ``{"id", "a", "b", "kind"?, "answerable"?}``: the toy agent adds a and b."""
    cases = []
    for row in read_jsonl(source):
        meta = {"kind": row.get("kind", "sum"), "parity": "even" if (row["a"] + row["b"]) % 2 == 0 else "odd"}
        if "answerable" in row:
            meta["answerable"] = row["answerable"]
        cases.append(Case(str(row["id"]), f"{row['a']} + {row['b']}", row["a"] + row["b"], meta))
    return cases


@contextmanager
def start(ctx: EvalContext) -> Iterator[Any]:
    """The toy agent: offline it adds; a model instance (the oracle) is a dict id -> answer."""
    barrier: threading.Barrier | None = ctx.option("barrier")

    def run(case: Case) -> Output:
        a, b = (int(x) for x in str(case.input).split(" + "))
        if a == 999:
            raise RuntimeError("boom")
        if a == 888:
            RELEASE.wait(30)
        if a == 777 and barrier is not None:
            barrier.wait(timeout=20)  # both 777 cases must be running at once
        if a == 666:
            return Output("", {"answer": None}, usage=(Usage(model_calls=1, input_tokens=3),))
        if isinstance(ctx.llm, dict):
            answer = ctx.llm.get(case.id)
        else:
            answer = a + b + (ctx.option("offset") or 0)
        return Output(answer, {"answer": answer}, {"a": a}, (Usage(model_calls=2, input_tokens=5, output_tokens=1),))

    yield run


def score(case: Case, output: Output) -> Score:
    answer = output.data.get("answer")
    if answer is None:
        return Score("declined", {"off": None}, "no answer")
    if answer == case.expected:
        return Score("right", {"off": 0})
    if isinstance(answer, list) and case.expected in answer:
        return Score("partial", {"off": 0}, "the answer among others")
    return Score("wrong", {"off": abs(int(answer) - int(case.expected))})


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    offs = [r.score.metrics.get("off") for r in results if r.score.metrics.get("off") is not None]
    return {"accuracy": round(sum(r.status == "right" for r in results) / len(results), 4),
            "error": {"mean_off": round(sum(offs) / len(offs), 4) if offs else None}}


class BarrierOptions(ToyOptions):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    barrier: Any = None


def select(cases: Sequence[Case], options: ToyOptions) -> list[Case]:
    return [c for c in cases if options.only_kind in (None, c.kind)]


def toy(tmp_path: Path, rows: list[dict[str, Any]], **changes: Any) -> Evaluation:
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    settings: dict[str, Any] = {
        "agent": "toy", "load": load, "start": start, "scorer": score, "summarize": summarize,
        "datasets": {"dev": lambda: [dev], "heldout": lambda: [tmp_path / "missing.jsonl"]},
        "headline": ("accuracy",), "groups": ("parity",),
        "oracle": lambda cases, ctx: Models({c.id: c.expected for c in cases}),
        "options_model": BarrierOptions, "select": select, **changes}
    return Evaluation(**settings)


ROWS = [{"id": "r1", "a": 1, "b": 1}, {"id": "r2", "a": 2, "b": 3}, {"id": "r3", "a": 666, "b": 0},
        {"id": "r4", "a": 4, "b": 4, "kind": "other"}]


def test_statuses_figures_and_the_report_shape(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS), "dev", eval_options={"offset": 0})
    assert report.counts() == {"right": 3, "partial": 0, "declined": 1, "wrong": 0}
    data = report.to_json()
    assert {"agent", "dataset", "llm", "n", "right", "partial", "declined", "wrong", "rates", "metrics", "usage",
            "results"} <= set(data)
    assert (data["agent"], data["dataset"], data["llm"], data["n"]) == ("toy", "dev", "offline", 4)
    assert data["rates"] == {"right": 0.75, "partial": 0.0, "declined": 0.25, "wrong": 0.0}
    assert data["metrics"] == {"accuracy": 0.75, "error": {"mean_off": 0.0}}
    assert data["usage"]["calls"] == 2 * 3 + 1 and data["usage"]["tokens"] == 6 * 3 + 3
    first = data["results"][0]
    assert {k: first[k] for k in ("id", "question", "status", "answer", "expected", "error")} == {
        "id": "r1", "question": "1 + 1", "status": "right", "answer": 2, "expected": 2, "error": ""}
    assert data["groups"]["parity"]["odd"] == {"n": 1, "right": 1, "partial": 0, "declined": 0, "wrong": 0}
    markdown = report.to_markdown()
    assert "| right | 3 | 75.0% |" in markdown and "| **accuracy** | 0.75 |" in markdown
    assert "## Declined (1)" in markdown and "| r3 |" in markdown and "## Wrong" not in markdown


def test_a_wrong_answer_is_wrong_and_shown(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS[:2]), "dev", eval_options={"offset": 1})
    assert report.counts()["wrong"] == 2 and report.metrics == {"accuracy": 0.0, "error": {"mean_off": 1.0}}
    assert "## Wrong (2)" in report.to_markdown()


def test_write_and_reload(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS), "dev")
    json_path, md_path = report.write(tmp_path / "out" / "r")
    assert json.loads(json_path.read_text("utf-8"))["n"] == 4 and md_path.read_text("utf-8").startswith("# toy")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot write the report"):
        report.write(blocker / "r")


def test_limit_keeps_the_first_cases_of_each_kind(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS), "dev", limit=1)
    assert [r.case.id for r in report.results] == ["r1", "r4"]
    with pytest.raises(InputError, match="--limit"):
        run_evaluation(toy(tmp_path, ROWS), "dev", limit=0)


def test_datasets_files_combinations_and_their_errors(tmp_path: Path) -> None:
    evaluation = toy(tmp_path, ROWS)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x1", "a": 5, "b": 5}) + "\n", encoding="utf-8")
    report = run_evaluation(evaluation, [str(other), "dev"])
    assert report.dataset == f"{other}+dev" and report.n == 5
    with pytest.raises(InputError, match="no dataset 'nope': give one of dev, heldout"):
        run_evaluation(evaluation, "nope")
    with pytest.raises(InputError, match="missing.jsonl"):
        run_evaluation(evaluation, "heldout")
    with pytest.raises(InputError, match="'r1' appears twice"):
        run_evaluation(evaluation, ["dev", "dev"])
    other.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="other.jsonl line 1: invalid JSON"):
        run_evaluation(evaluation, str(other))


def test_select_and_eval_options_are_validated(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS), "dev", eval_options={"only_kind": "other"})
    assert [r.case.id for r in report.results] == ["r4"]
    with pytest.raises(InputError, match="eval option offsett"):
        run_evaluation(toy(tmp_path, ROWS), "dev", eval_options={"offsett": 1})
    with pytest.raises(InputError, match="no cases to evaluate"):
        run_evaluation(toy(tmp_path, ROWS), "dev", eval_options={"only_kind": "none"})


def test_a_case_that_raises_is_wrong_and_the_run_goes_on(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, [{"id": "b", "a": 999, "b": 0}, *ROWS[:1]]), "dev")
    assert [r.status for r in report.results] == ["wrong", "right"]
    assert report.results[0].output.error == "RuntimeError: boom"


def test_jobs_run_cases_at_once_and_keep_their_order(tmp_path: Path) -> None:
    rows = [{"id": "p1", "a": 777, "b": 1}, {"id": "p2", "a": 777, "b": 2}, *ROWS[:2]]
    barrier = threading.Barrier(2)
    report = run_evaluation(toy(tmp_path, rows), "dev", jobs=2, eval_options={"barrier": barrier})
    assert [r.case.id for r in report.results] == ["p1", "p2", "r1", "r2"]
    assert report.counts()["right"] == 4  # with one job at a time the barrier would have broken
    with pytest.raises(InputError, match="--jobs"):
        run_evaluation(toy(tmp_path, rows), "dev", jobs=0)


def test_a_case_over_the_timeout_is_wrong_and_the_others_run(tmp_path: Path) -> None:
    rows = [{"id": "slow", "a": 888, "b": 0}, *ROWS[:2]]
    try:
        report = run_evaluation(toy(tmp_path, rows), "dev", timeout=0.5)
    finally:
        RELEASE.set()
    assert [(r.case.id, r.status, r.output.error) for r in report.results] == [
        ("slow", "wrong", "timeout"), ("r1", "right", ""), ("r2", "right", "")]
    with pytest.raises(InputError, match="--timeout"):
        run_evaluation(toy(tmp_path, rows), "dev", timeout=0)


def test_the_oracle_and_an_agent_without_one(tmp_path: Path) -> None:
    report = run_evaluation(toy(tmp_path, ROWS), "dev", llm="oracle", eval_options={"offset": 5})
    assert report.llm == "oracle" and report.counts()["right"] == 3
    with pytest.raises(ConfigError, match="has no oracle"):
        run_evaluation(toy(tmp_path, ROWS, oracle=None), "dev", llm="oracle")


def test_a_model_instance_is_named_by_its_class(tmp_path: Path) -> None:
    class Liar(dict):  # the toy agent reads a dict as its model
        pass

    report = run_evaluation(toy(tmp_path, ROWS[:2]), "dev", llm=Liar(r1=3, r2=[5, 6]))
    assert report.llm == "Liar" and [r.status for r in report.results] == ["wrong", "partial"]


def test_unanswerable_cases_are_right_only_when_declined(tmp_path: Path) -> None:
    rows = [{"id": "u1", "a": 666, "b": 0, "answerable": False}, {"id": "u2", "a": 1, "b": 1, "answerable": False}]
    report = run_evaluation(toy(tmp_path, rows), "dev")
    assert [(r.status, r.score.note) for r in report.results] == [
        ("right", "declined a question its data does not answer"),
        ("wrong", "answered a question its data does not answer")]


def test_the_measuring_stick_checks(tmp_path: Path) -> None:
    evaluation = toy(tmp_path, ROWS)
    right = run_evaluation(evaluation, "dev", llm="oracle").results
    wrong = run_evaluation(evaluation, "dev", eval_options={"offset": 1}).results
    expectations = [*expect([r for r in right if r.case.id != "r3"], "right"),
                    *expect([r for r in wrong if r.case.id != "r3"], not_right()),
                    *expect([r for r in right if r.case.id == "r3"], "declined")]
    assert_measuring_stick(score, expectations)
    assert scorer_failures(always("right"), expectations)
    assert [r.status for r in rescore(wrong, always("right"))] == ["right"] * 4
    with pytest.raises(AssertionError, match="misjudges"):
        assert_measuring_stick(always("right"), expectations)
    with pytest.raises(AssertionError, match="says 'right' to everything"):
        assert_measuring_stick(score, expect(right[:1], "right"))


def test_dataset_limit_and_combine_keep_sources() -> None:
    a = Dataset("a", (Case("1", "x"), Case("2", "y", metadata={"kind": "k"})), ("a.jsonl",))
    b = Dataset("b", (Case("3", "z"),), ("b.jsonl",))
    both = Dataset.combine("a+b", [a, b])
    assert both.sources == ("a.jsonl", "b.jsonl") and [c.id for c in both.limit(1).cases] == ["1", "2"]
    assert Case("d", ["hi", "yes"]).question == '["hi", "yes"]'
    assert Case("d", "x", metadata={"question": "a  dialog"}).question == "a dialog"


def test_a_score_has_one_of_the_four_statuses() -> None:
    with pytest.raises(ValueError, match="status must be one of"):
        Score("correct")  # type: ignore[arg-type]
