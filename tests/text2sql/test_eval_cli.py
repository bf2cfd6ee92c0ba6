"""``graphagents eval text2sql`` on the harness: the oracle at 100%, wrong oracles at 0, the scorer
tested against constant scorers, the CLI and its own options; ``text2sql load-demo``."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphagents.agents.text2sql.eval import EVALUATION, score
from graphagents.agents.text2sql.oracle import OracleChatModel
from graphagents.agents.text2sql.spec import SPEC
from graphagents.cli.main import _mount_agent_commands, app
from graphagents.evals import Case, Dataset, Report, assert_measuring_stick, expect, resolve_dataset, run_evaluation
from graphagents.evals.checks import not_right
from graphagents.sql import load_defog_database

runner = CliRunner()
_mount_agent_commands()
app.add_typer(SPEC.cli(), name="text2sql")  # type: ignore[misc]


@pytest.fixture(scope="module")
def sample() -> Dataset:
    """One question of each of six categories of the dev set (their gold results all differ)."""
    dev = resolve_dataset(EVALUATION, "dev")
    seen: dict[str, Case] = {}
    for case in dev.cases:
        seen.setdefault(str(case.metadata["category"]), case)
    chosen = tuple(seen[c] for c in ("lookup", "aggregate", "join", "group_by", "top_n", "filter"))
    return Dataset("sample", chosen, dev.sources)


@pytest.fixture(scope="module")
def oracle_run(sample: Dataset) -> Report:
    return run_evaluation(EVALUATION, sample, llm="oracle")


def _rotated_oracle(sample: Dataset) -> OracleChatModel:
    """Answers each question with the next question's gold SQL."""
    golds = [str(c.expected).split(";")[0] for c in sample.cases]
    return OracleChatModel.from_pairs([(str(c.input), golds[(i + 1) % len(golds)])
                                       for i, c in enumerate(sample.cases)])


def test_oracle_reaches_100_percent_on_the_dev_set_on_sqlite() -> None:
    report = run_evaluation("text2sql", "dev", llm="oracle", jobs=2)
    assert report.n >= 45 and [(r.case.question, r.output.error) for r in report.results if r.status != "right"] == []
    assert report.metrics["execution_accuracy"] == 1.0
    assert set(report.group_counts()["category"]) >= {"lookup", "join", "group_by"}


def test_a_wrong_oracle_scores_zero_and_the_scorer_is_a_measuring_stick(sample: Dataset, oracle_run: Report) -> None:
    assert oracle_run.counts()["right"] == len(sample)
    rotated = run_evaluation(EVALUATION, sample, llm=_rotated_oracle(sample))
    assert rotated.counts()["right"] == 0
    submitted = [r for r in rotated.results if r.output.details["sql"]]  # the policy stops some on the way
    assert len(submitted) >= 3 and all(r.status == "wrong" for r in submitted)
    silent = run_evaluation(EVALUATION, sample, llm=OracleChatModel.from_pairs([]))
    assert silent.counts()["declined"] == len(sample)  # an empty answer is a decline, never right
    off_by_one = [replace(r, output=replace(r.output, data={**r.output.data, "rows": _plus_one(r.output.data["rows"])}))
                  for r in oracle_run.results if _plus_one(r.output.data["rows"]) != r.output.data["rows"]]
    assert len(off_by_one) >= 3
    assert_measuring_stick(score, [*expect(oracle_run.results, "right"), *expect(submitted, "wrong"),
                                   *expect(off_by_one, not_right()), *expect(silent.results, "declined")])


def _plus_one(rows: list[tuple]) -> list[tuple]:
    """Every number in the result one higher (a figure off by one)."""
    return [tuple(v + 1 if isinstance(v, int | float) and not isinstance(v, bool) else v for v in row) for row in rows]


def test_offline_results_are_right_declined_or_wrong_with_their_confidence() -> None:
    cases = (Case("c1", "How many customers are there?", "SELECT COUNT(*) FROM customers",
                  {"db_name": "demo", "category": "aggregate"}),
             Case("c2", "What is the median salary?", "SELECT 1", {"db_name": "demo", "category": "aggregate"}),
             Case("c3", "How many products are there?", "SELECT COUNT(*) FROM customers",
                  {"db_name": "demo", "category": "aggregate"}))
    report = run_evaluation(EVALUATION, Dataset("given", cases))
    assert [r.status for r in report.results] == ["right", "declined", "wrong"]
    assert report.results[0].score.metrics["confidence"] == 1.0
    assert report.results[1].score.metrics["confidence"] is None and "median" in report.results[1].output.error
    assert report.metrics["wrong_rate"] == round(1 / 3, 4)
    assert report.metrics["mean_confidence"]["right"] == 1.0


def test_eval_command_writes_the_report(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "text2sql", "--llm", "oracle", "--limit", "3", "--report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert (data["agent"], data["dataset"], data["llm"], data["n"]) == ("text2sql", "dev", "oracle", 3)
    assert (data["right"], data["declined"], data["wrong"]) == (3, 0, 0)
    assert data["metrics"]["execution_accuracy"] == 1.0 and data["groups"]["category"]
    assert data["results"][0]["details"]["sql"] and data["results"][0]["expected"].upper().startswith("SELECT")
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| **execution_accuracy** | 1 |" in markdown and "## By category" in markdown


def test_eval_command_filters_by_category_and_reads_the_heldout_set() -> None:
    result = runner.invoke(app, ["eval", "text2sql", "--llm", "oracle", "--category", "join", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["n"] >= 5 and set(data["groups"]["category"]) == {"join"} and data["right"] == data["n"]
    heldout = resolve_dataset(EVALUATION, "heldout-demo")
    assert len(heldout) >= 30 and heldout.cases[0].id.startswith("questions_heldout:")
    defog_heldout = resolve_dataset(EVALUATION, "heldout")
    assert len(defog_heldout) == 104 and defog_heldout.cases[0].id.startswith("heldout_questions:")
    assert {c.metadata["db_name"] for c in defog_heldout.cases} == {"restaurants", "scholar", "yelp"}


def test_questions_for_other_databases_need_a_db() -> None:
    cases = (Case("x", "How many?", "SELECT 1", {"db_name": "academic", "category": "lookup"}),)
    from graphagents.errors import ConfigError

    with pytest.raises(ConfigError, match="pass --db"):
        run_evaluation(EVALUATION, Dataset("given", cases))


def test_load_demo_builds_sqlite(tmp_path: Path) -> None:
    target = tmp_path / "demo.db"
    result = runner.invoke(app, ["text2sql", "load-demo", "--db", f"sqlite:///{target}"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(target)
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT COUNT(*) FROM customers").fetchone() == (5000,)


def test_the_defog_questions_ship_in_the_package(defog_csv: Path) -> None:
    import graphagents

    defog = resolve_dataset(EVALUATION, "defog-dev")
    assert defog.sources == (str(defog_csv),) and len(defog) > 100
    assert defog_csv.is_relative_to(Path(graphagents.__file__).parent)


@pytest.mark.postgres
@pytest.mark.slow
def test_oracle_reaches_100_percent_on_defog_dev(pg_url: str, defog_csv: Path) -> None:
    dataset = resolve_dataset(EVALUATION, "defog-dev")
    names = sorted({str(c.metadata["db_name"]) for c in dataset.cases})
    urls = {name: load_defog_database(name, pg_url) for name in names}
    template = next(iter(urls.values())).rsplit("/", 1)[0] + "/{db_name}"
    report = run_evaluation(EVALUATION, dataset, llm="oracle", eval_options={"db": template})
    assert [(r.case.metadata["db_name"], r.case.question, r.output.error) for r in report.results
            if r.status != "right"] == []
    assert report.n == len(dataset)
