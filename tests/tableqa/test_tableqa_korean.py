"""Korean questions offline: Kiwi analysis, linking with exact cells and the shared (multilingual)
embedder, restated into the offline patterns and answered with the same real steps - or declined."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from tableqa_helpers import DEPARTMENT, MANAGEMENT

import graphagents as ga
from graphagents.agents.tableqa.offline.korean import restate
from graphagents.sandbox import get_store

CITIES = pd.DataFrame({
    "도시": ["서울", "부산", "인천", "대구", "수원"],
    "인구": [9_500_000, 3_300_000, 2_950_000, 2_400_000, 1_190_000],
    "면적": [605, 770, 1063, 883, 121],
    "도": ["서울특별시", "부산광역시", "인천광역시", "대구광역시", "경기도"],
})
HEAD = str(Path(DEPARTMENT).with_name("head.csv"))


@pytest.fixture(scope="module")
def cities() -> ga.Agent:
    return ga.load("tableqa", tables=[f"cities={get_store().put(CITIES)}"])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("인구가 가장 많은 도시는?", ["서울"]),
        ("면적이 가장 큰 도시는?", ["인천"]),
        ("면적이 가장 작은 도시는 어디이고 그 인구는?", ["수원", "1190000"]),
        ("부산의 면적은?", ["770"]),
        ("서울의 인구는 몇 명인가요?", ["9500000"]),
        ("인구가 300만 이상인 도시는 몇 개인가요?", ["2"]),  # 300만 = 3,000,000
        ("면적이 800보다 큰 도시는 몇 개?", ["2"]),
        ("경기도에 있는 도시는 몇 개?", ["1"]),
        ("인구의 합계는?", ["19340000"]),
        ("평균 면적은?", ["688.4"]),
    ],
)
def test_korean_questions_over_a_korean_table(cities: ga.Agent, question: str, expected: list[str]) -> None:
    reply = cities.session().send(question)
    assert reply.state["answer"] == expected, reply.state.get("reason")
    assert all(s["code"] for s in reply.state["steps"] if s["action"] in ("Retrieve", "Operate"))
    assert len(reply.state["intermediate_tables"]) >= 1  # real steps through the sandbox


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("가장 예쁜 도시는?", "모델 없이는"),  # no operation the offline planner has
        ("인천의 시장은 누구인가요?", "'시장'"),  # a noun that names nothing in the table
        ("인구가 가장 많고 평균 면적은?", "여러 연산"),
        ("2020년 인구는?", "숫자"),  # a number that is not a comparison
    ],
)
def test_korean_questions_it_cannot_link_are_declined(cities: ga.Agent, question: str, words: str) -> None:
    reply = cities.session().send(question)
    assert reply.state["answer"] == [] and reply.state["status"] == "declined"
    assert words in reply.state["reason"], reply.state["reason"]


def test_cross_lingual_linking_answers_the_done_question_in_korean() -> None:
    agent = ga.load("tableqa", tables=[DEPARTMENT, MANAGEMENT, HEAD])
    reply = agent.session().send("직원이 가장 많은 부서는 어디이고, 그 예산은 얼마인가요?")
    assert reply.state["answer"] == ["Defense", "439.3"], reply.state.get("reason")
    assert "nlargest(1, 'Num_Employees'" in reply.state["steps"][0]["code"]
    assert "Defense | 439.3" in reply.text
    # a Korean name of a cell in an English table: the embedder links 국방부 to Defense
    reply = agent.session().send("국방부의 예산은?")
    assert reply.state["answer"] == ["439.3"], reply.state.get("reason")
    # 부서장 (department head) is as close to 'department' as to 'management': declined, not guessed
    reply = agent.session().send("나이가 56세보다 많은 부서장은 몇 명인가요?")
    assert reply.state["status"] == "declined" and "부서장" in reply.state["reason"]


def test_restatement_uses_the_tables_own_names() -> None:
    english = restate("인구가 300만 이상인 도시는 몇 개인가요?", ["cities"], [CITIES], None)
    assert english == "how many 도시 with 인구 at least 3000000?"
    # without an embedder, a noun that is neither literally a column or cell nor in the lexicon is declined
    department = pd.read_csv(DEPARTMENT)
    assert isinstance(restate("규모가 가장 큰 부서는?", ["department"], [department], None), tuple)
    # the lexicon links 직원 -> Num_Employees and 부서 -> the department table without one
    assert restate("직원이 가장 많은 부서는?", ["department"], [department], None) == (
        "which department has the most employee?")


def test_an_embedder_that_fails_to_load_is_a_decline() -> None:
    def broken() -> None:
        raise RuntimeError("no key")

    reason = restate("규모가 가장 큰 부서는?", ["department"], [pd.read_csv(DEPARTMENT)], broken)
    assert isinstance(reason, tuple) and "임베딩" in reason[0]
