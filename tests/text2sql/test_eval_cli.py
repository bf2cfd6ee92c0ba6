"""``graphagents eval text2sql`` and ``graphagents text2sql load-demo``; the oracle at 100%."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphagents.agents.text2sql.demo import demo_questions_path
from graphagents.agents.text2sql.eval import EvalReport, QuestionResult, resolve_questions, run_eval
from graphagents.agents.text2sql.oracle import OracleChatModel
from graphagents.agents.text2sql.spec import SPEC
from graphagents.cli.main import app, eval_app
from graphagents.sql import Question, load_defog_database, load_questions

runner = CliRunner()
eval_app.command("text2sql")(SPEC.eval_cli())  # type: ignore[misc]
app.add_typer(SPEC.cli(), name="text2sql")  # type: ignore[misc]


def test_oracle_reaches_100_percent_on_the_demo_set_on_sqlite() -> None:
    questions = load_questions(demo_questions_path())
    assert len(questions) >= 45
    report = run_eval(questions, llm="oracle")
    assert [(r.question, r.error) for r in report.results if not r.correct] == []
    assert report.accuracy == 1.0 and set(report.by_category()) >= {"lookup", "join", "group_by"}


def test_eval_detects_wrong_answers() -> None:
    """The comparison is real: an oracle for other answers scores zero."""
    questions = [q for q in load_questions(demo_questions_path()) if q.query_category == "lookup"][:2]
    liar = OracleChatModel.from_pairs([(q.question, "SELECT 12345 AS x") for q in questions])
    report = run_eval(questions, llm=liar)
    assert report.accuracy == 0.0 and report.llm == "OracleChatModel"
    assert all(r.status == "submitted" and r.sql == "SELECT 12345 AS x" for r in report.results)


def test_eval_command_writes_json_and_markdown_reports(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval", "text2sql", "--llm", "oracle", "--limit", "6", "--report", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert data["n"] == 6 and data["accuracy"] == 1.0 and data["by_category"]
    assert (data["correct"], data["declined"], data["wrong"]) == (6, 0, 0)
    assert "correct 6 · declined 0 · wrong 0" in result.output
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Execution accuracy: **100.0%**" in markdown and "| category |" in markdown


def test_eval_command_filters_by_category() -> None:
    result = runner.invoke(app, ["eval", "text2sql", "--llm", "oracle", "--category", "join"])
    assert result.exit_code == 0, result.output
    assert "join" in result.output and "100.0%" in result.output


def test_report_separates_correct_declined_and_wrong() -> None:
    results = [
        QuestionResult("q1", "demo", "join", False, "answered", 0.1, error="no SQL submitted"),
        QuestionResult("q2", "demo", "join", False, "submitted", 0.1, sql="SELECT 1", confidence=0.6),
        QuestionResult("q3", "demo", "lookup", True, "submitted", 0.1, sql="SELECT 2", confidence=0.9),
    ]
    report = EvalReport("offline", "q.csv", results)
    assert [r.outcome for r in results] == ["declined", "wrong", "correct"]
    assert report.split() == {"correct": 1, "declined": 1, "wrong": 1}
    data = report.to_json()
    assert (data["correct"], data["declined"], data["wrong"]) == (1, 1, 1) and data["wrong_rate"] == 1 / 3
    assert data["by_category"]["join"] == {"correct": 0, "declined": 1, "wrong": 1, "n": 2, "accuracy": 0.0}
    assert data["mean_confidence"] == {"correct": 0.9, "wrong": 0.6}
    assert [r["outcome"] for r in data["results"]] == ["declined", "wrong", "correct"]
    markdown = report.to_markdown()
    assert "Correct **1** · declined **1** · wrong **1**" in markdown
    wrong_part, declined_part = markdown.split("## Wrong answers")[1].split("## Declined")
    assert "q2" in wrong_part and "q1" not in wrong_part and "q1" in declined_part


def test_offline_eval_records_the_stated_confidence_and_the_split(tmp_path: Path) -> None:
    questions = [Question("How many customers are there?", "SELECT COUNT(*) FROM customers", "demo", "aggregate"),
                 Question("What is the median salary?", "SELECT 1", "demo", "aggregate"),
                 Question("How many products are there?", "SELECT COUNT(*) FROM customers", "demo", "aggregate")]
    report = run_eval(questions, llm="offline")
    assert [r.outcome for r in report.results] == ["correct", "declined", "wrong"]
    assert report.results[0].confidence == 1.0 and report.results[1].confidence is None
    assert "median" in report.results[1].error


def test_load_demo_builds_sqlite(tmp_path: Path) -> None:
    target = tmp_path / "demo.db"
    result = runner.invoke(app, ["text2sql", "load-demo", "--db", f"sqlite:///{target}"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(target)
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT COUNT(*) FROM customers").fetchone() == (5000,)


def test_the_defog_questions_ship_in_the_package(defog_csv: Path) -> None:
    import graphagents

    assert resolve_questions("defog-dev") == defog_csv
    assert defog_csv.is_relative_to(Path(graphagents.__file__).parent)
    assert len(defog_csv.read_text(encoding="utf-8").splitlines()) > 100


@pytest.mark.postgres
@pytest.mark.slow
def test_oracle_reaches_100_percent_on_defog_dev(pg_url: str, defog_csv: Path) -> None:
    questions = load_questions(defog_csv)
    urls = {name: load_defog_database(name, pg_url) for name in sorted({q.db_name for q in questions})}
    template = next(iter(urls.values())).rsplit("/", 1)[0] + "/{db_name}"
    report = run_eval(questions, db=template, llm="oracle")
    assert [(r.db_name, r.question, r.error) for r in report.results if not r.correct] == []
    assert len(report.results) == len(questions) and report.accuracy == 1.0
