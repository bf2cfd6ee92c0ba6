"""Issue 23 (tableqa): the offline planner on a user's own tables - total and per-group counts, sums
and averages with conditions, top-k, lookups by a key, joins on a shared key, Korean words for
English columns, numbers written as text - answered with real steps, or declined with what it could
not link and what would work. These are the tuning tables (the held-out set has its own)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

import graphagents as ga
from graphagents.sandbox import get_store

EMPLOYEES = pd.DataFrame({
    "id": ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8"],
    "name": ["Alice", "Bob", "Carol", "Dan", "Eve", "Frank", "Grace", "Heidi"],
    "dept": ["ENG", "ENG", "OPS", "OPS", "ENG", "MKT", "MKT", "OPS"],
    "grade": ["Lead", "Junior", "Lead", "Junior", "Senior", "Lead", "Junior", "Senior"],
    "bonus": ["1,200", "300", "950", "-", "2,100", "800", "450", "1,000"],  # text: "-" is no bonus
    "salary": [5200, 3100, 4800, 2900, 6100, 4500, 3300, 4700],
    "city": ["Austin", "Boston", "Austin", "Denver", "Boston", "Austin", "Denver", "Boston"],
    "joined": [2015, 2021, 2016, 2022, 2012, 2018, 2020, 2017],
})
DEPTS = pd.DataFrame({"dept": ["ENG", "OPS", "MKT"], "budget": ["900,000", "420,000", "310,000"], "floor": [7, 2, 4]})
KOREAN_NAMES = EMPLOYEES.assign(name=["김하나", "이두리", "박세나", "최네오", "정다섯", "강여섯", "조일곱", "윤여덟"])


def ask(question: str, *tables: tuple[str, pd.DataFrame], **session: Any) -> Any:
    tables = tables or (("employees", EMPLOYEES),)
    sources = [f"{name}={get_store().put(frame)}" for name, frame in tables]
    return ga.load("tableqa", tables=sources).session(**session).send(question)


BOTH = (("employees", EMPLOYEES), ("depts", DEPTS))


@pytest.mark.parametrize(
    ("question", "tables", "expected"),
    [
        ("How many employees are there?", (), ["8"]),
        ("직원은 모두 몇 명인가요?", (), ["8"]),
        ("How many employees are in ENG?", (), ["3"]),
        ("How many employees joined after 2017?", (), ["4"]),
        ("What is the total bonus?", (), ["6800"]),  # "-" is no bonus, "1,200" is 1200
        ("보너스 합계는?", (), ["6800"]),
        ("What is the total salary in the OPS department?", (), ["12400"]),
        ("ENG 부서 급여 합계는?", (), ["14400"]),
        ("Who are the top 2 earners by salary?", (), ["Eve", "Alice"]),
        ("급여 상위 2명은 누구야?", (), ["Eve", "Alice"]),
        ("List the 3 employees with the lowest salary.", (), ["Dan", "Bob", "Grace"]),
        ("What are the 3 largest bonuses?", (), ["2100", "1200", "1000"]),
        ("What is the bonus of Eve?", (), ["2100"]),
        ("Which city is Dan in?", (), ["Denver"]),
        ("A3 직원의 이름은?", (), ["Carol"]),
        ("What is the name with the largest salary?", (), ["Eve"]),
        ("보너스가 가장 많은 사람은?", (), ["Eve"]),
        ("What grade is 최네오?", (("employees", KOREAN_NAMES),), ["Junior"]),
        ("What is the budget of MKT?", (("depts", DEPTS),), ["310000"]),
        ("Which dept is on floor 7?", (("depts", DEPTS),), ["ENG"]),
        ("What is the budget of the dept Bob works in?", BOTH, ["900000"]),
        ("How many employees work on floor 2?", BOTH, ["3"]),
    ],
)
def test_answers_on_own_tables(question: str, tables: tuple[tuple[str, pd.DataFrame], ...],
                               expected: list[str]) -> None:
    reply = ask(question, *tables)
    assert reply.state["answer"] == expected, reply.state.get("reason")
    assert all(s["ok"] for s in reply.state["steps"]) and reply.state["intermediate_tables"]


@pytest.mark.parametrize(
    ("question", "rows"),
    [
        ("How many employees does each grade have?", {"Junior": 3, "Lead": 3, "Senior": 2}),
        ("직급별 직원 수는?", {"Junior": 3, "Lead": 3, "Senior": 2}),
        ("Count the employees in each city.", {"Austin": 3, "Boston": 3, "Denver": 2}),
        ("What is the average salary by dept?", {"ENG": 4800, "MKT": 3900, "OPS": 12400 / 3}),
        ("부서별 평균 급여는?", {"ENG": 4800, "MKT": 3900, "OPS": 12400 / 3}),
    ],
)
def test_per_group_answers_are_tables(question: str, rows: dict[str, float]) -> None:
    reply = ask(question)
    frame = get_store().get(reply.state["answer_table"])
    got = {str(r[0]): float(r[1]) for r in frame.itertuples(index=False)}
    assert got == pytest.approx(rows), reply.state.get("reason")


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("영업부 급여 합계는?", "'영업부'"),  # no sales department: never the whole column's sum
        ("What is the color of Bob?", "'color'"),
        ("How many teams are there?", "'team'"),
        ("When was the ENG budget approved?", ""),
        ("What is the name with the largest shoe size?", ""),
        ("2018년 이후 입사한 직원은 몇 명?", ""),  # 이후: inclusive or not is a guess
    ],
)
def test_declines_name_what_was_not_linked_and_what_works(question: str, words: str) -> None:
    reply = ask(question, *BOTH)
    assert reply.state["status"] == "declined" and reply.state["answer"] == [], reply.state["answer"]
    reason = reply.state["reason"]
    assert words in reason
    assert "columns:" in reason or "열:" in reason  # what would work: the columns as the tables write them
    assert "Error" not in reply.text and "Traceback" not in reply.text


def test_the_page_decline_points_at_the_upload_button() -> None:
    page = ask("What is the color of Bob?", channel="page")
    assert "upload button" in page.state["reason"] and "--table" not in page.text
    cli = ask("What is the color of Bob?")
    assert "upload button" not in cli.state["reason"]
    none = ga.load("tableqa").session(channel="page").send("How many?")
    assert "'표 파일 올리기' 버튼" in none.text and "--table" not in none.text
    assert "--table" in ga.load("tableqa").session().send("How many?").text


def test_a_failed_step_is_declined_without_python_text() -> None:
    from graphagents.agents.tableqa.offline import OfflineBrain
    from graphagents.agents.tableqa.offline.rules import Plan, Planned

    class Broken(OfflineBrain):
        def _plan(self, question: str, names: list[str], frames: list[Any]) -> Any:
            return Plan((Planned("Retrieve", "the bonus", "new_table = df_orig_1['bonus_2']"),))

    from graphagents.agents.tableqa.config import AgentContext
    from graphagents.agents.tableqa.graph import build_graph
    from graphagents.registry import BuildContext
    from graphagents.settings import Settings

    actx = AgentContext.open({"tables": [f"employees={get_store().put(EMPLOYEES)}"]})
    graph = build_graph(actx, BuildContext(llm=None, checkpointer=None, settings=Settings()), brain=Broken())
    state = graph.invoke({"user_input": "What is the total bonus?", "session_options": {}})
    assert state["status"] == "declined" and "KeyError" not in state["reason"] and "bonus_2" not in state["reply"]
    assert "could not run" in state["reason"]


MEMBERS = pd.DataFrame({"name": ["Ana", "Ben", "Cho", "Dee"], "role": ["Member", "Guest", "Member", "Admin"],
                        "age": [31, 25, 40, 38], "fee": [100, 0, 120, 300]})


@pytest.mark.parametrize("question", ["How many members are there?", "Which member pays the largest fee?",
                                      "회원은 몇 명인가요?", "인원은 몇 명인가요?"])
def test_a_word_naming_both_the_table_and_a_cell_is_declined(question: str) -> None:
    """A table named "members" whose role column holds "Member": all rows, or the Member rows?"""
    reply = ask(question, ("members", MEMBERS))
    assert reply.state["status"] == "declined" and reply.state["answer"] == [], reply.state["answer"]


def test_an_english_question_naming_a_korean_cell_gets_an_english_decline() -> None:
    reply = ask("What is the shoe size of 최네오?", ("employees", KOREAN_NAMES))
    assert reply.state["status"] == "declined" and "columns:" in reply.state["reason"]
    assert "열:" not in reply.state["reason"]


def test_a_korean_people_word_is_never_a_translated_cell() -> None:
    """인원 is "staff" in English, but never the grade "Staff" of a table of people."""
    people = pd.DataFrame({"name": ["Kim", "Lee", "Park"], "grade": ["Staff", "Lead", "Staff"], "age": [30, 41, 28]})
    reply = ask("직급별 인원 수는?", ("people", people))
    frame = get_store().get(reply.state["answer_table"])
    assert {str(r[0]): int(r[1]) for r in frame.itertuples(index=False)} == {"Lead": 1, "Staff": 2}
    assert ask("전체 인원은 몇 명인가요?", ("people", people)).state["answer"] == ["3"]
