"""``graphagents eval rag`` on the harness, over the test slice: the report's figures, the oracle's
100 % citation correctness, wrong oracles and mutated outputs scoring zero, cache pairs and
emergency messages, and the scorer against constant scorers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.rag.eval import BUNDLED, EVALUATION, load_cases, oracle_model, retrieval_metrics, score
from graphagents.errors import InputError
from graphagents.evals import CaseResult, Dataset, Models, Report, assert_measuring_stick, expect, run_evaluation


def test_retrieval_metrics() -> None:
    m = retrieval_metrics(["x", "a", "y", "b"], frozenset({"a", "b", "c"}))
    assert m["recall@8"] == pytest.approx(2 / 3) and m["precision@8"] == pytest.approx(2 / 8)
    assert m["mrr"] == pytest.approx(0.5)
    assert 0 < m["ndcg@10"] < 1
    assert retrieval_metrics([], frozenset({"a"}))["mrr"] == 0.0


@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory: pytest.TempPathFactory, medical_passages: list[dict[str, Any]],
                 mini_corpus: Path) -> Path:
    """Two questions over the slice (in English and Korean), three trap pairs, three paraphrase
    pairs and four emergency messages (two look-alikes), in one file."""
    ids = {json.loads(line)["id"] for line in mini_corpus.read_text(encoding="utf-8").splitlines()}

    def passages(title: str) -> list[str]:
        return sorted(i for i in ids if any(p["id"] == i and p["title"] == title for p in medical_passages))

    rows: list[dict[str, Any]] = [
        {"id": "q1", "question": "What is high blood pressure?", "question_ko": "고혈압은 무엇인가요?",
         "relevant_passage_ids": passages("High Blood Pressure")[:3]},
        {"id": "q2", "question": "What are the symptoms of Diabetes Type 2?",
         "question_ko": "Diabetes Type 2의 증상은 무엇인가요?", "relevant_passage_ids": passages("Diabetes Type 2")},
        {"id": "e1", "text": "가슴이 쥐어짜듯 아프고 왼팔이 저려요", "emergency": True, "kind": "chest_pain"},
        {"id": "e2", "text": "I can't breathe and my lips are turning blue", "emergency": True},
        {"id": "e3", "text": "고혈압약은 언제 먹는 게 좋아요?", "emergency": False, "category": "look-alike"},
        {"id": "e4", "text": "What does metformin do?", "emergency": False},
    ]
    for name in ("drug_traps.jsonl", "paraphrases.jsonl"):
        rows += [json.loads(line) for line in (BUNDLED / name).read_text("utf-8").splitlines()[:3]]
    path = tmp_path_factory.mktemp("rag_eval") / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def oracle_run(dataset_file: Path, rag_options: dict[str, Any], mini_store: Any) -> Report:
    return run_evaluation(EVALUATION, str(dataset_file), llm="oracle", options=rag_options)


def test_the_report_and_the_oracles_citations(oracle_run: Report) -> None:
    data = oracle_run.to_json()
    assert data["groups"]["kind"]["question"]["n"] == 4 and data["groups"]["kind"]["emergency"]["n"] == 4
    assert data["groups"]["kind"]["cache"]["n"] >= 6
    assert set(data["metrics"]["retrieval"]) == {"bm25", "dense", "hybrid", "rerank"}
    for mode in data["metrics"]["retrieval"].values():
        assert set(mode) == {"recall@8", "precision@8", "mrr", "ndcg@10"}
    assert data["metrics"]["answers"]["citation_correct"] == 1.0
    assert data["metrics"]["cache"]["trap_false_hits"] == 0 and data["metrics"]["cache"]["trap_pairs"] >= 3
    assert set(data["metrics"]["emergency"]) >= {"precision", "recall", "missed", "false_alarms"}
    questions = [r for r in oracle_run.results if r.case.kind == "question"]
    assert all(r.status in ("right", "declined") for r in questions)  # declined: gold passage not retrieved
    assert any(r.status == "right" for r in questions)
    assert "## Figures" in oracle_run.to_markdown()


def _with(result: CaseResult, **data: Any) -> CaseResult:
    return replace(result, output=replace(result.output, data={**result.output.data, **data}))


def test_wrong_outputs_score_zero_and_the_scorer_is_a_measuring_stick(oracle_run: Report, dataset_file: Path,
                                                                      rag_options: dict[str, Any]) -> None:
    questions = [r for r in oracle_run.results if r.case.kind == "question" and r.status == "right"]
    cases = [r.case for r in oracle_run.results if r.case.kind == "question"]
    other = {str(c.input): frozenset(cases[(i + 2) % len(cases)].expected) for i, c in enumerate(cases)}
    liar = replace(EVALUATION, oracle=lambda cs, ctx: Models(oracle_model(other)))
    rotated = run_evaluation(liar, Dataset("q", tuple(cases)), llm="oracle", options=rag_options)
    assert rotated.counts()["right"] == 0  # it cites another question's passages, or finds none
    others = [_with(r, cited=[f"{c}-other" for c in r.output.data["cited"]]) for r in questions]
    nothing = [_with(r, cited=[]) for r in questions]
    diluted = [_with(r, cited=r.output.data["cited"][:1] + ["x1", "x2", "x3"]) for r in questions]
    pairs = [r for r in oracle_run.results if r.case.kind == "cache"]
    flipped_pairs = [_with(r, hit=not r.output.data["hit"]) for r in pairs]
    alarms = [r for r in oracle_run.results if r.case.kind == "emergency"]
    flipped_alarms = [_with(r, flagged=not r.output.data["flagged"]) for r in alarms]
    assert questions and pairs and alarms
    assert_measuring_stick(score, [
        *expect(questions, "right"), *expect(others, "wrong"), *expect(nothing, "declined"),
        *expect(diluted, "partial"), *expect(rotated.results, ("wrong", "declined")),
        *expect([r for r in pairs if r.status == "right"], "right"),
        *expect([r for r in flipped_pairs if r.case.expected == "miss"], "wrong"),
        *expect([r for r in flipped_pairs if r.case.expected == "hit"], "declined"),
        *expect([r for r in alarms if r.status == "right"], "right"),
        *expect([f for f, r in zip(flipped_alarms, alarms, strict=True) if r.status == "right"], "wrong")])


def test_emergency_figures(oracle_run: Report) -> None:
    alarms = [r for r in oracle_run.results if r.case.kind == "emergency"]
    e = oracle_run.metrics["emergency"]
    due = [r for r in alarms if r.case.expected]
    flagged = [r for r in alarms if r.output.data["flagged"]]
    assert e["messages"] == 4 and e["due"] == 2
    assert e["missed"] == sum(not r.output.data["flagged"] for r in due)
    assert e["false_alarms"] == sum(not r.case.expected for r in flagged)


def test_retrieval_only_and_language_selection(dataset_file: Path, rag_options: dict[str, Any],
                                               mini_store: Any) -> None:
    report = run_evaluation(EVALUATION, str(dataset_file), options=rag_options,
                            eval_options={"no_answers": True, "lang": "ko"})
    questions = [r for r in report.results if r.case.kind == "question"]
    assert [r.case.id for r in questions] == ["q1:ko", "q2:ko"]
    assert all(r.score.note.startswith("retrieval only") for r in questions)
    assert "answers" not in report.metrics and report.usage()["turns"] == 4  # the emergency messages only


def test_bad_files_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="q.jsonl line 1: a row needs question"):
        load_cases(bad)
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load_cases(bad)
    with pytest.raises(InputError, match="eval option lang"):
        run_evaluation(EVALUATION, str(bad), eval_options={"lang": "fr"})


def test_declines_warnings_and_repeats_are_scored(oracle_run: Report) -> None:
    """must_decline: any citation is wrong; reply_must_include: a reply without the warning is wrong;
    a reply that quotes the same line twice is at best partial."""
    from graphagents.evals import Case
    from graphagents.evals.scoring import score_case

    right = next(r for r in oracle_run.results if r.case.kind == "question" and r.status == "right")
    unanswerable = replace(right.case, expected=[], metadata={**right.case.metadata, "answerable": False})
    assert score_case(score, unanswerable, right.output).status == "wrong"
    assert score_case(score, unanswerable, _with(right, cited=[]).output).status == "right"
    label = {**right.case.metadata.get("label", {}), "reply_must_include": ["warfarin"]}
    warned: Case = replace(right.case, metadata={**right.case.metadata, "label": label})
    assert score(warned, _with(right, reply="nothing about it").output).status == "wrong"
    assert score(warned, _with(right, reply="Warfarin: ask your doctor.").output).status == "right"
    line = "- Blood thinners reduce the risk of heart attack and stroke. [1]"
    twice = _with(right, reply=f"From the documents:\n{line}\n{line.replace('[1]', '[2]')}")
    assert score(right.case, twice.output).status == "partial"
    assert score(right.case, _with(right, reply=f"From the documents:\n{line}").output).status == "right"


def test_the_heldout_files_load() -> None:
    from graphagents.agents.rag.eval import DATASETS

    cases = [c for source in DATASETS["heldout"]() for c in load_cases(source)]
    questions = [c for c in cases if c.kind == "question"]
    assert len(questions) >= 60 and {c.metadata["lang"] for c in questions} == {"en", "ko"}
    assert sum(c.metadata.get("answerable") is False for c in questions) >= 5
    assert sum(c.kind == "emergency" for c in cases) >= 100


def test_the_fresh_heldout_file_loads_with_gold_in_the_corpus() -> None:
    import json

    from graphagents.agents.rag.eval import BUNDLED, DATASETS
    from graphagents.packagedata import package_path

    cases = [c for source in DATASETS["heldout_fresh"]() for c in load_cases(source)]
    questions = [c for c in cases if c.kind == "question"]
    assert len(questions) >= 60 and {c.metadata["lang"] for c in questions} == {"en", "ko"}
    assert sum(c.metadata.get("answerable") is False for c in questions) >= 8
    corpus = package_path("graphagents.agents.rag", "data", "medquad", "passages.jsonl")
    ids = {json.loads(line)["id"] for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()}
    rows = [json.loads(line) for line in (BUNDLED / "heldout_fresh.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(set(row["relevant_passage_ids"]) <= ids for row in rows)


def test_each_question_is_its_own_user(tmp_path: Path, rag_options: dict[str, Any], mini_store: Any) -> None:
    """A profile built by one case's setup (warfarin) must not reach the next case: "부작용이 뭐예요?"
    with no profile names no drug."""
    rows = [{"id": "w", "question": "부작용이 뭐예요?", "setup": ["저는 와파린을 복용하고 있어요."],
             "relevant_passage_ids": []},
            {"id": "bare", "question": "부작용이 뭐예요?", "relevant_passage_ids": []}]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    report = run_evaluation(EVALUATION, str(path), options=rag_options, jobs=1)
    answers = {r.case.id: str(r.output.data.get("reply") or "") for r in report.results}
    assert "와파린" in answers["w"] or "warfarin" in answers["w"].lower()
    assert "와파린" not in answers["bare"] and "warfarin" not in answers["bare"].lower()
