"""The evaluation harness: loaders for the three layouts, scoring, reports, the oracle at 100%."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphagents.agents.tableqa.datasets import load_dataset, load_wtq, question_type
from graphagents.agents.tableqa.eval import EVALUATION, load_cases, score
from graphagents.agents.tableqa.oracle import OracleGold, gold_mapping, oracle_model
from graphagents.errors import InputError
from graphagents.evals import Dataset, Report, assert_measuring_stick, expect, run_evaluation


@pytest.fixture(scope="module")
def wtq_path() -> Path:
    from graphagents.agents.tableqa.datasets import wtq_dev_path

    return wtq_dev_path()


def test_wtq_loader(wtq_path: Path) -> None:
    items = load_wtq(wtq_path)
    assert len(items) == 180 and items[0].answers == ("Joe Wolfinger",)
    [table] = items[0].load_tables()
    assert table.frame.shape == (12, 8)


def _wtq(path: Path, n: int) -> Dataset:
    return Dataset("wtq", tuple(load_cases(path)[:n]))


@pytest.fixture(scope="module")
def oracle_run(wtq_path: Path) -> Report:
    return run_evaluation(EVALUATION, _wtq(wtq_path, 12), llm="oracle")


def test_oracle_scores_everything_through_real_steps(oracle_run: Report) -> None:
    data = oracle_run.to_json()
    assert data["n"] == 12 and data["right"] == 12 and data["metrics"]["exact_match"] == 1.0
    assert data["metrics"]["avg_steps"] == 2.0  # one Retrieve through the sandbox, then Finish
    assert all(r["details"]["status"] == "answered" for r in data["results"])


def _numeric_plus_one(answers: tuple[str, ...]) -> list[str] | None:
    try:
        return [str(int(float(a)) + 1) for a in answers]
    except ValueError:
        return None


def test_wrong_oracles_score_zero_and_the_scorer_is_a_measuring_stick(wtq_path: Path, oracle_run: Report) -> None:
    cases = _wtq(wtq_path, 12).cases
    answers = [c.metadata["item"].answers for c in cases]
    rotated = {c.input: list(answers[(i + 1) % len(answers)]) for i, c in enumerate(cases)
               if {a.lower() for a in answers[(i + 1) % len(answers)]} != {a.lower() for a in answers[i]}}
    off_by_one = {c.input: plus for c in cases if (plus := _numeric_plus_one(c.metadata["item"].answers))}
    assert len(rotated) >= 8 and len(off_by_one) >= 2
    another = run_evaluation(EVALUATION, Dataset("r", tuple(c for c in cases if c.input in rotated)),
                             llm=oracle_model(gold_mapping(rotated)))
    off = run_evaluation(EVALUATION, Dataset("o", tuple(c for c in cases if c.input in off_by_one)),
                         llm=oracle_model(gold_mapping(off_by_one)))
    silent = oracle_model(gold_mapping({str(c.input): [] for c in cases[:4]}))  # Finish[] with nothing in it
    empty = run_evaluation(EVALUATION, Dataset("e", cases[:4]), llm=silent)
    for report in (another, off, empty):
        assert report.counts()["right"] == 0, [(r.case.id, r.output.answer) for r in report.results]
    assert all(r.output.answer for r in another.results + off.results)  # they did answer: the scorer judged
    assert_measuring_stick(score, [*expect(oracle_run.results, "right"),
                                   *expect(another.results, ("wrong", "partial")), *expect(off.results, "wrong"),
                                   *expect(empty.results, ("declined", "wrong"))])


def test_a_table_answer_is_judged_by_its_rows(tmp_path: Path) -> None:
    (tmp_path / "staff.csv").write_text("name,dept\nKim,Sales\nLee,Sales\nPark,IT\n", encoding="utf-8")
    question = "How many staff per dept?"
    row = {"id": "t1", "question": question, "table_csv": ["staff.csv"], "answers": ["Sales 2", "IT 1"],
           "rows": [["Sales", "2"], ["IT", "1"]], "kind": "group_count", "lang": "en"}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    right = run_evaluation(EVALUATION, str(path), llm="oracle")
    assert right.counts()["right"] == 1 and right.group_counts()["lang"] == {
        "en": {"n": 1, "right": 1, "partial": 0, "declined": 0, "wrong": 0}}
    swapped = OracleGold()
    swapped.add(question, rows=[["Sales", 1], ["IT", 2]])
    wrong = run_evaluation(EVALUATION, str(path), llm=oracle_model(swapped))
    assert wrong.counts()["wrong"] == 1
    assert_measuring_stick(score, [*expect(right.results, "right"), *expect(wrong.results, "wrong")])


def test_offline_answers_are_right_or_declined(wtq_path: Path) -> None:
    report = run_evaluation(EVALUATION, _wtq(wtq_path, 40))
    assert report.counts()["wrong"] == 0, [(r.case.id, r.output.answer) for r in report.results if r.status == "wrong"]
    assert report.counts()["right"] + report.counts()["declined"] + report.counts()["partial"] == 40


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
    report = run_evaluation(EVALUATION, str(path)).to_json()
    assert report["metrics"]["exact_match"] == 1.0 and report["metrics"]["partial_match"] == 1.0


def test_cli_writes_report_files(tmp_path: Path) -> None:
    from graphagents.cli.main import _mount_agent_commands, app

    _mount_agent_commands()
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["eval", "tableqa", "--dataset", str(_mmqa_file(tmp_path)), "--llm", "oracle",
                                      "--report", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "report.json").read_text())
    assert (data["agent"], data["n"], data["right"]) == ("tableqa", 1, 1)
    for key in ("exact_match", "partial_match", "avg_steps", "failures"):
        assert key in data["metrics"]
    assert {"question", "status", "answer", "expected"} <= set(data["results"][0])
    assert "| **exact_match** | 1 |" in (out / "report.md").read_text()


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
    from graphagents.sql import load_defog_database

    url = load_defog_database("geography", pg_admin_url)
    template = url.rsplit("/", 1)[0] + "/{db_name}"
    cases = [c for c in load_cases(defog_csv) if c.metadata["item"].db_name == "geography"][:6]
    dataset = Dataset("defog", tuple(cases))
    report = run_evaluation(EVALUATION, dataset, llm="oracle", eval_options={"db": template})
    assert report.n == 6 and report.counts()["right"] == 6, report.metrics["failures"]
    offline = run_evaluation(EVALUATION, dataset, eval_options={"db": template})
    assert offline.counts()["wrong"] == 0


def test_cases_over_the_same_tables_at_once_keep_their_own_uploads(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Two cases over one table, run at once: the first to reach its tables is held until the other
    has finished and removed its upload records (what a loaded machine does to overlapping cases).
    Both must still be answered; sharing one user, the held case lost its table and was declined."""
    import threading

    from graphagents.agents.tableqa import uploads as uploads_module

    (tmp_path / "staff.csv").write_text("name,dept\nKim,Sales\nLee,Sales\nPark,IT\n", encoding="utf-8")
    rows = [{"id": "a", "question": "How many staff are there?", "table_csv": "staff.csv", "answers": ["3"]},
            {"id": "b", "question": "Who works in IT?", "table_csv": "staff.csv", "answers": ["Park"]}]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    forgotten, held, lock = threading.Event(), [], threading.Lock()
    real_forget, real_resolve = uploads_module.Uploads.forget, uploads_module.resolve_session_tables

    def forget(self: object, user_id: str, upload_id: str) -> None:
        real_forget(self, user_id, upload_id)  # type: ignore[arg-type]
        forgotten.set()

    def resolve(uploads: object, user_id: str, sources: list[str]) -> object:
        with lock:
            first = not held
            held.append(user_id)
        if first:
            held.append(forgotten.wait(60))  # the other case ran to its end meanwhile
        return real_resolve(uploads, user_id, sources)  # type: ignore[arg-type]

    monkeypatch.setattr(uploads_module.Uploads, "forget", forget)
    monkeypatch.setattr(uploads_module, "resolve_session_tables", resolve)
    report = run_evaluation(EVALUATION, str(path), llm="oracle", jobs=2)
    assert True in held, "the other case never finished while the first was held: the race was not staged"
    assert report.counts()["right"] == 2, [(r.case.id, r.status, r.output.error) for r in report.results]


def test_the_heldout_set_is_shipped_and_its_golds_are_a_measuring_stick() -> None:
    """The held-out set (issue 23) loads by name, spans its four tables and both languages, and its
    golds (values and table answers) score the oracle right and a shuffled oracle not right."""
    from graphagents.agents.tableqa.eval import DATASETS

    [path] = DATASETS["heldout"]()
    cases = load_cases(path)
    assert len(cases) >= 60 and {c.metadata["lang"] for c in cases} == {"en", "ko"}
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    files = {f for r in records for f in ([r["table_csv"]] if isinstance(r["table_csv"], str) else r["table_csv"])}
    assert len(files) >= 3 and all((Path(path).parent / f).is_file() for f in files)
    picked = tuple(c for c in cases if c.metadata["qtype"] in ("group", "topk", "join", "lookup"))[::3]
    assert any(c.metadata["item"].rows for c in picked) and len(picked) >= 8
    right = run_evaluation(EVALUATION, Dataset("h", picked), llm="oracle")
    assert right.counts()["right"] == len(picked), [(r.case.id, r.output.answer) for r in right.results]
    shuffled = OracleGold()
    for i, case in enumerate(picked):
        other = picked[(i + 1) % len(picked)].metadata["item"]
        if other.rows:
            shuffled.add(case.input, rows=[list(r) for r in other.rows])
        else:
            shuffled.add(case.input, answers=other.answers)
    wrong = run_evaluation(EVALUATION, Dataset("h", picked), llm=oracle_model(shuffled))
    assert wrong.counts()["right"] == 0, [(r.case.id, r.output.answer) for r in wrong.results if r.status == "right"]
    assert_measuring_stick(score, [*expect(right.results, "right"), *expect(wrong.results, ("wrong", "partial"))])
