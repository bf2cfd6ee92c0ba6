"""``graphagents eval supervisor`` on the harness: the gold plan at 100%, wrong plans scoring zero,
the answer checks of a label, and the scorer against constant scorers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.supervisor.data import load_articles
from graphagents.agents.supervisor.eval import EVALUATION, score
from graphagents.agents.supervisor.oracle import oracle_model
from graphagents.evals import (
    Case,
    CaseResult,
    Dataset,
    Models,
    Output,
    Report,
    assert_measuring_stick,
    expect,
    resolve_dataset,
    run_evaluation,
)


@pytest.fixture(scope="module")
def sample(dataset: Path) -> Dataset:
    """Dev queries of one, two and three teams, with and without required articles."""
    dev = resolve_dataset(EVALUATION, "dev")
    many = [c for c in dev.cases if len(c.expected["teams"]) > 1][:4]
    laws = [c for c in dev.cases if c.expected["teams"] == ["search"] and c.expected.get("required_citations")][:4]
    assert len(many) == 4 and len(laws) == 4
    return Dataset("sample", (*many, *laws))


@pytest.fixture(scope="module")
def oracle_run(sample: Dataset) -> Report:
    return run_evaluation(EVALUATION, sample, llm="oracle")


def _run_with_labels(sample: Dataset, dataset: Path, labels: list[dict[str, Any]]) -> Report:
    """The sample scored against its true labels, run by an oracle that plans from other labels."""
    articles = {a.id: a for a in load_articles(dataset)}
    wrong = Models(oracle_model(labels, articles), {"sql": "offline"})
    evaluation = replace(EVALUATION, oracle=lambda cases, ctx: wrong)
    return run_evaluation(evaluation, sample, llm="oracle")


def test_the_gold_plan_is_right_everywhere(oracle_run: Report) -> None:
    assert oracle_run.counts()["right"] == oracle_run.n, [(r.case.id, r.score.note) for r in oracle_run.results]
    assert oracle_run.metrics["plan_accuracy"] == 1.0 and oracle_run.metrics["citation_recall"] == 1.0
    assert oracle_run.metrics["model_calls_mean"] >= 2  # planning and response at least


def test_wrong_plans_score_zero_and_the_scorer_is_a_measuring_stick(sample: Dataset, dataset: Path,
                                                                    oracle_run: Report) -> None:
    minus_a_team = [dict(c.expected, teams=c.expected["teams"][:-1]) for c in sample.cases]
    fewer = _run_with_labels(sample, dataset, minus_a_team)
    assert fewer.counts()["right"] == 0, [(r.case.id, r.output.details["ran"]) for r in fewer.results]
    assert fewer.metrics["plan_accuracy"] == 0.0  # plan_correct is measured, not assumed
    single = [r for r in fewer.results if len(r.case.expected["teams"]) == 1]
    assert all(r.status == "declined" for r in single)  # no team at all: it says what it can help with
    laws = [r for r in oracle_run.results if r.case.expected.get("required_citations")]
    elsewhere = [_reply(r, r.output.data["reply"], cited=[f"{a}의99" for a in r.output.data["cited"]]) for r in laws]
    silent = [_reply(r, "") for r in laws]
    assert_measuring_stick(score, [*expect(oracle_run.results, "right"),
                                   *expect(fewer.results, ("partial", "wrong", "declined")),
                                   *expect(elsewhere, "wrong"), *expect(silent, "declined")])


def _reply(result: CaseResult, text: str, **data: Any) -> CaseResult:
    return replace(result, output=replace(result.output, data={**result.output.data, "reply": text, **data}))


def _case(**label: Any) -> Case:
    base = {"id": "x", "query": "q", "teams": ["search", "analysis"], "search_scopes": ["laws"],
            "required_citations": []}
    return Case("x", "q", {**base, **label})


def _output(reply: str, ran: tuple[str, ...] = ("search", "analysis"), cited: tuple[str, ...] = (),
            error: str = "") -> Output:
    return Output(reply, {"reply": reply, "ran": list(ran), "planned": list(ran), "cited": list(cited),
                          "scopes": ["laws"]}, error=error)


def test_the_answer_checks_of_a_label() -> None:
    ratio = _case(answer_must=[r"116\.7\s*%"], answer_must_not=[r"83\.3\s*%"])
    assert score(ratio, _output("(2억 5천 + 1억) ÷ 3억 = 116.7% → 위험")).status == "right"
    assert score(ratio, _output("(2억 5천 + 0원) ÷ 3억 = 83.3% → 주의")).status == "wrong"
    assert score(ratio, _output("계산하지 못했습니다.")).status == "declined"
    assert score(ratio, _output("116.7%", ran=("search",))).status == "partial"  # the analysis team never ran
    scope = _case(expect="not_covered", teams=["search"])
    assert score(scope, _output("청약 자격은 제공된 법령과 데이터에 없습니다.")).status == "right"
    assert score(scope, _output("관련된 법 조문을 찾았습니다: 주택임대차보호법 제3조")).status == "wrong"
    late = "주택임대차보호법 제3조 ... " + "설명 " * 150 + "이 내용은 데이터에 없습니다."
    assert score(scope, _output(late)).status == "partial"
    cited = _case(required_citations=["주임법:제3조", "주임법:제6조"], teams=["search"])
    assert score(cited, _output("...", ran=("search",), cited=("주임법:제3조", "주임법:제6조"))).status == "right"
    assert score(cited, _output("...", ran=("search",), cited=("주임법:제3조",))).status == "partial"
    assert score(cited, _output("...", ran=("search",), cited=("주임법:제8조",))).status == "wrong"
    assert score(cited, _output("...", ran=("search",), error="boom")).status == "wrong"


def test_the_eval_command_writes_the_report(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from graphagents.agents.supervisor.data import dev_queries_path
    from graphagents.cli.main import _mount_agent_commands, app

    rows = [json.loads(line) for line in dev_queries_path().read_text("utf-8").splitlines()[:3]]
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    _mount_agent_commands()
    out = CliRunner().invoke(app, ["eval", "supervisor", "--dataset", str(queries), "--llm", "oracle",
                                   "--report", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    report = json.loads((tmp_path / "r" / "report.json").read_text("utf-8"))
    assert (report["agent"], report["n"], report["right"]) == ("supervisor", 3, 3)
    for key in ("plan_accuracy", "citation_recall", "team_runs_mean", "model_calls_mean", "stalls", "caps_hit",
                "decision_distribution"):
        assert key in report["metrics"]
    assert report["results"][0]["details"]["planned"] == rows[0]["teams"]
    assert (tmp_path / "r" / "report.md").read_text("utf-8").startswith("# supervisor evaluation: ")
