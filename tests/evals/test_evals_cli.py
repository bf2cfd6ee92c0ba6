"""``graphagents eval <agent>`` (the same flags for every agent) and ``graphagents eval compare A B``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from test_evals_harness import ROWS, toy
from typer.testing import CliRunner

from graphagents.errors import InputError
from graphagents.evals import compare_reports, load_report, run_evaluation
from graphagents.evals.cli import compare_command, eval_command

runner = CliRunner()

COMMON_FLAGS = ("--dataset", "--report", "--llm", "--limit", "--jobs", "--timeout", "--option", "--model", "--json")


def _app(tmp_path: Path) -> typer.Typer:
    app = typer.Typer()
    app.command("toy")(eval_command(toy(tmp_path, ROWS)))
    app.command("compare")(compare_command)
    return app


def test_the_command_takes_the_common_flags_and_the_evaluations_own(tmp_path: Path) -> None:
    result = runner.invoke(_app(tmp_path), ["toy", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for flag in (*COMMON_FLAGS, "--offset", "--only-kind", "--strict"):
        assert flag in result.output, flag


def test_the_command_runs_and_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = runner.invoke(_app(tmp_path), ["toy", "--report", str(out), "--offset", "1", "--limit", "1",
                                            "--jobs", "2", "--timeout", "30", "--strict"])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "report.json").read_text("utf-8"))
    assert (data["n"], data["wrong"], data["options"]["offset"], data["options"]["strict"]) == (2, 2, 1, True)
    assert "wrong" in result.output and "report:" in result.output
    assert (out / "report.md").read_text("utf-8").startswith("# toy evaluation: dev (offline)")


def test_json_output_and_an_unknown_dataset(tmp_path: Path) -> None:
    app = _app(tmp_path)
    result = runner.invoke(app, ["toy", "--json", "-d", "dev"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.strip().splitlines()[-1])["right"] == 3
    result = runner.invoke(app, ["toy", "-d", "nope"])
    assert isinstance(result.exception, InputError) and "no dataset 'nope'" in str(result.exception)


def test_compare_shows_figures_deltas_and_changed_cases(tmp_path: Path) -> None:
    before = run_evaluation(toy(tmp_path, ROWS), "dev", eval_options={"offset": 1})
    after = run_evaluation(toy(tmp_path, ROWS), "dev")
    before.write(tmp_path / "a")
    after.write(tmp_path / "b")
    comparison = compare_reports(load_report(tmp_path / "a"), load_report(tmp_path / "b" / "report.json"))
    rows = {r.name: r for r in comparison.rows}
    assert (rows["right"].a, rows["right"].b, rows["right"].delta) == (0, 3, 3)
    assert (rows["wrong"].a, rows["wrong"].b, rows["wrong"].delta) == (3, 0, -3)
    assert rows["accuracy"].delta == 0.75 and rows["accuracy"].headline
    assert rows["error.mean_off"].delta == -1.0
    assert [(c.id, c.a, c.b) for c in comparison.changed] == [("r1", "wrong", "right"), ("r2", "wrong", "right"),
                                                              ("r4", "wrong", "right")]
    assert comparison.warnings == [] and "| **accuracy** | 0 | 0.75 | +0.75 |" in comparison.to_markdown()
    result = runner.invoke(_app(tmp_path), ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                            "--markdown", str(tmp_path / "c.md")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "3 cases changed status" in result.output and "r2" in result.output and "+0.75" in result.output
    assert (tmp_path / "c.md").read_text("utf-8").startswith("# toy:")
    as_json = json.loads(runner.invoke(_app(tmp_path), ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                                        "--json"]).stdout)
    assert len(as_json["changed"]) == 3


def test_compare_warns_on_other_datasets_and_refuses_other_agents(tmp_path: Path) -> None:
    a = load_report_from(run_evaluation(toy(tmp_path, ROWS), "dev"), tmp_path / "a")
    b = dict(a, dataset="heldout")
    assert compare_reports(a, b).warnings == ["dataset differs: 'dev' in A, 'heldout' in B"]
    with pytest.raises(InputError, match="different agents"):
        compare_reports(a, dict(a, agent="other"))
    with pytest.raises(InputError, match="no report at"):
        load_report(tmp_path / "none")
    (tmp_path / "x.json").write_text("[]")
    with pytest.raises(InputError, match="not an evaluation report"):
        load_report(tmp_path / "x.json")


def load_report_from(report: object, directory: Path) -> dict:
    report.write(directory)  # type: ignore[attr-defined]
    return load_report(directory)
