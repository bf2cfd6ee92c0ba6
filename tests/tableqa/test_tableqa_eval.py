"""The evaluation harness: loaders for the three layouts, scoring, reports, the oracle at 100%."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphagents.agents.tableqa.datasets import load_dataset, load_mmqa, load_wtq, question_type
from graphagents.agents.tableqa.eval import FAILURE_TYPES, run_eval
from graphagents.errors import InputError


@pytest.fixture(scope="module")
def wtq_path() -> Path:
    from graphagents.agents.tableqa.datasets import wtq_dev_path

    return wtq_dev_path()


def test_wtq_loader(wtq_path: Path) -> None:
    items = load_wtq(wtq_path)
    assert len(items) == 180 and items[0].answers == ("Joe Wolfinger",)
    [table] = items[0].load_tables()
    assert table.frame.shape == (12, 8)


def test_oracle_scores_everything_through_real_steps(wtq_path: Path) -> None:
    items = load_wtq(wtq_path)[:12]
    report = run_eval(items, llm="oracle", dataset="wtq").to_json()
    assert report["n"] == 12 and report["exact_match"] == 1.0
    assert report["failures"] == dict.fromkeys(FAILURE_TYPES, 0)
    assert report["avg_steps"] == 2.0  # one Retrieve through the sandbox, then Finish
    assert all(r["correct"] and r["status"] == "answered" for r in report["results"])


def test_offline_answers_are_right_or_declined(wtq_path: Path) -> None:
    report = run_eval(load_wtq(wtq_path)[:40], llm="offline", dataset="wtq").to_json()
    assert report["wrong"] == 0, [r for r in report["results"] if not r["correct"] and r["failure"] != "declined"]
    assert report["correct"] + report["declined"] == 40


def _mmqa_file(tmp_path: Path) -> Path:
    record = {
        "id_": "m1",
        "Question": "How many heads are older than 56?",
        "table_names": ["head", "management"],
        "tables": [
            {"table_columns": ["head_ID", "name", "age"], "table_content": [[1, "A", 67], [2, "B", 52], [3, "C", 69]]},
            {"table_columns": ["department_ID", "head_ID"], "table_content": [[2, 1], [7, 3]]},
        ],
        "answer": "2",
        "SQL": "SELECT count(*) FROM head WHERE age > 56",
        "foreign_keys": ["management.head_ID = head.head_ID"],
        "primary_keys": ["head.head_ID"],
    }
    path = tmp_path / "mmqa.json"
    path.write_text(json.dumps([record]))
    return path


def test_mmqa_layout_runs_and_scores_with_em_and_pm(tmp_path: Path) -> None:
    path = _mmqa_file(tmp_path)
    items = load_dataset(str(path))
    assert [i.scoring for i in items] == ["mmqa"] and items[0].gold_sql.startswith("SELECT")
    tables = items[0].load_tables()
    assert [t.name for t in tables] == ["head", "management"] and str(tables[0].frame["age"].dtype) == "int64"
    report = run_eval(load_mmqa(path), llm="offline").to_json()
    assert report["exact_match"] == 1.0 and report["partial_match"] == 1.0


def test_cli_writes_report_files(tmp_path: Path) -> None:
    from graphagents.cli.main import _mount_agent_commands, app

    _mount_agent_commands()
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["eval", "tableqa", "--dataset", str(_mmqa_file(tmp_path)), "--llm", "oracle",
                                      "--report", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "report.json").read_text())
    for key in ("n", "exact_match", "partial_match", "avg_steps", "failures", "results"):
        assert key in data
    assert {"question", "correct", "status"} <= set(data["results"][0])
    assert "exact match" in (out / "report.md").read_text()


def test_bad_dataset_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="neither wtq"):
        load_dataset("nope")
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"foo": 1}\n')
    with pytest.raises(InputError, match="table_csv"):
        load_dataset(str(bad))


def test_question_types() -> None:
    assert question_type("how many clubs are represented?") == "count"
    assert question_type("which team has the most wins?") == "superlative"
    assert question_type("what is the total number of episodes?") == "count"
    assert question_type("who was the coach?") == "lookup"


@pytest.mark.postgres
def test_defog_oracle_through_postgres(defog_csv: Path, pg_admin_url: str) -> None:
    from graphagents.agents.tableqa.datasets import load_defog
    from graphagents.sql import load_defog_database

    url = load_defog_database("geography", pg_admin_url)
    template = url.rsplit("/", 1)[0] + "/{db_name}"
    items = [i for i in load_defog(defog_csv, template) if i.db_name.endswith("/geography")][:6]
    report = run_eval(items, llm="oracle", dataset="defog-dev").to_json()
    assert report["n"] == 6 and report["exact_match"] == 1.0, report["failures"]
    offline = run_eval(items, llm="offline", dataset="defog-dev").to_json()
    assert offline["wrong"] == 0
