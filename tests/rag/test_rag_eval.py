"""``graphagents eval rag`` on a few questions over the test slice: the report's keys, the oracle's
100 % citation correctness, the metrics' arithmetic, and the cache trap measurement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.rag.eval import BUNDLED, load_pairs, load_questions, retrieval_metrics, run_eval


def test_retrieval_metrics() -> None:
    m = retrieval_metrics(["x", "a", "y", "b"], frozenset({"a", "b", "c"}))
    assert m["recall@8"] == pytest.approx(2 / 3) and m["precision@8"] == pytest.approx(2 / 8)
    assert m["mrr"] == pytest.approx(0.5)
    assert 0 < m["ndcg@10"] < 1
    assert retrieval_metrics([], frozenset({"a"}))["mrr"] == 0.0


@pytest.fixture
def questions_file(tmp_path: Path, medical_passages: list[dict[str, Any]], mini_corpus: Path) -> Path:
    ids = {json.loads(line)["id"] for line in mini_corpus.read_text(encoding="utf-8").splitlines()}
    hbp = sorted(i for i in ids if any(p["id"] == i and p["title"] == "High Blood Pressure"
                                       for p in medical_passages))[:3]
    rows = [
        {"id": "q1", "question": "What is high blood pressure?", "question_ko": "고혈압은 무엇인가요?",
         "relevant_passage_ids": hbp},
        {"id": "q2", "question": "What are the symptoms of Diabetes Type 2?",
         "question_ko": "Diabetes Type 2의 증상은 무엇인가요?",
         "relevant_passage_ids": sorted(i for i in ids if any(p["id"] == i and p["title"] == "Diabetes Type 2"
                                                              for p in medical_passages))},
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_oracle_cites_only_gold_passages(questions_file: Path, rag_options: dict[str, Any], mini_store: Any) -> None:
    questions = load_questions(questions_file)
    traps = load_pairs(BUNDLED / "drug_traps.jsonl")[:3]
    paraphrases = load_pairs(BUNDLED / "paraphrases.jsonl")[:3]
    report = run_eval(questions, traps, paraphrases, llm="oracle",
                      options=rag_options)
    data = report.to_json()
    assert data["n"] == 4
    assert set(data["retrieval"]) == {"bm25", "dense", "hybrid"}
    for mode in data["retrieval"].values():
        assert set(mode) == {"recall@8", "precision@8", "mrr", "ndcg@10"}
    assert {"trap_pairs", "trap_false_hits", "paraphrase_pairs", "paraphrase_hits"} <= set(data["cache"])
    assert {"citation_correct", "grounding", "not_found"} <= set(data["answers"])
    assert data["answers"]["citation_correct"] == 1.0
    assert any(r["status"] == "answered" for r in data["results"])
    for r in data["results"]:
        assert {"question", "correct", "status"} <= set(r)
    assert "## Retrieval" in report.to_markdown()


def test_bad_question_file_is_one_line(tmp_path: Path) -> None:
    from graphagents.errors import InputError

    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="relevant_passage_ids"):
        load_questions(bad)
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load_questions(bad)
