"""The offline planner: the patterns it answers (with real steps), and the ones it declines."""

from __future__ import annotations

import pandas as pd
import pytest

import graphagents as ga
from graphagents.agents.tableqa.offline.rules import Decline, Plan, plan_question
from graphagents.sandbox import get_store

MEDALS = pd.DataFrame(
    {
        "Nation": ["United States", "Greece", "Kenya", "Total"],
        "Gold": [5, 2, 2, 9],
        "Silver": [3, 6, 1, 10],
        "Bronze": [1, 1, 4, 6],
    }
)
PLAYERS = pd.DataFrame(
    {"Player": ["Ann Lee", "Bo Kim", "Cy Park"], "Team": ["Reds", "Blues", "Reds"], "Points": [10, 25, 7],
     "Age": [21, 30, 19]}
)
TEAMS = pd.DataFrame({"Team": ["Reds", "Blues"], "City": ["Seoul", "Busan"]})


def answer(question: str, *tables: tuple[str, pd.DataFrame]) -> tuple[list[str], dict]:
    sources = [f"{name}={get_store().put(frame)}" for name, frame in tables]
    reply = ga.load("tableqa", tables=sources).session().send(question)
    return list(reply.state.get("answer") or []), reply.state


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which nation won the most silver?", ["Greece"]),  # the Total row is left out first
        ("what is the highest gold?", ["5"]),
        ("how many nations have more than 1 gold?", ["3"]),
        ("what is the total silver?", ["10"]),
        ("which player has the least points?", ["Cy Park"]),
        ("who is the youngest player?", ["Cy Park"]),
        ("how many players are on the reds?", ["2"]),
        ("what is the average points?", ["14"]),
        ("how many points did bo kim have?", ["25"]),
        ("how many players?", ["3"]),  # the different players of the only table
        ("who had more points, ann lee or cy park?", ["Ann Lee"]),
        ("what is the difference in points between bo kim and ann lee?", ["15"]),
    ],
)
def test_answers(question: str, expected: list[str]) -> None:
    tables = [("medals", MEDALS)] if "nation" in question or "gold" in question or "silver" in question else [
        ("players", PLAYERS)]
    got, state = answer(question, *tables)
    assert got == expected, state.get("reason")
    assert state["steps"][0]["action"] == "Retrieve" and state["steps"][-1]["action"] == "Finish"
    assert all(s["ok"] for s in state["steps"])


def test_total_rows_are_removed_by_a_visible_step() -> None:
    _, state = answer("which nation won the most silver?", ("medals", MEDALS))
    first = state["steps"][0]
    assert first["argument"] == "the rows of medals that are not totals" and "is_total" in first["code"]


def test_two_tables_are_joined_on_a_detected_key() -> None:
    got, state = answer("how many players are in seoul?", ("players", PLAYERS), ("teams", TEAMS))
    assert got == ["2"], state.get("reason")
    assert "merge(df_orig_2, left_on='Team', right_on='Team'" in state["steps"][0]["code"]
    assert set(state["tables_used"]) == {"players", "teams"}


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("which player is the most fun to watch?", "most/least"),
        ("how many teams?", "what to count"),
        ("who scored the most points in the second half?", "account for"),
        ("which nation would win the most gold next year?", "account for"),
        ("가장 점수가 높은 선수는?", "한국어"),
        ("summarise the table", "needs a model"),
    ],
)
def test_declines_with_a_reason(question: str, words: str) -> None:
    tables = [PLAYERS] if "player" in question or "선수" in question or "scored" in question else [MEDALS]
    result = plan_question(question, ["t"], tables)
    assert isinstance(result, Decline) and words in result.reason, result


def test_ties_are_declined() -> None:
    frame = pd.DataFrame({"Player": ["A", "B"], "Points": [5, 5]})
    got, state = answer("which player has the most points?", ("players", frame))
    assert got == [] and state["status"] == "declined" and "tie" in state["reason"]


def test_plans_are_real_code() -> None:
    plan = plan_question("how many players are on the reds?", ["players"], [PLAYERS])
    assert isinstance(plan, Plan)
    assert [p.code for p in plan.steps] == ["new_table = df_orig_1[(df_orig_1['Team'] == 'Reds')]",
                                            "new_table = len(df)"]


LOOSE = pd.DataFrame({
    "Nation": ["China\xa0(CHN)", "South Korea\xa0(KOR)", "North Korea\xa0(PRK)", "Japan\xa0(JPN)"],
    "Gold": [127, 32, 6, 46], "Silver": [63, 48, 10, 56],
})
MAYORS = pd.DataFrame({"Mayor": ["A. Smith", "B. Jones", "C. Brown"],
                       "Town": ["Witwatersrand", "Johannesburg", "Witwatersrand"]})


def test_cells_link_by_their_core_text_and_close_spellings() -> None:
    got, state = answer("what is the silver of south korea?", ("medals", LOOSE))
    assert got == ["48"], state.get("reason")
    assert "'South Korea\\xa0(KOR)'" in state["steps"][0]["code"]  # the filter uses the real cell
    got, state = answer("how many mayors were in witswaterand?", ("mayors", MAYORS))  # a misspelling
    assert got == ["2"], state.get("reason")


def test_a_phrase_that_fits_two_cells_links_to_neither() -> None:
    frame = pd.DataFrame({"Player": ["Kim (Reds)", "Kim (Blues)", "Lee (Reds)"], "Points": [3, 4, 5]})
    got, state = answer("what is the points of kim?", ("players", frame))
    assert got == [] and state["status"] == "declined"


RIVERS = pd.DataFrame({"river_name": ["Nile", "Volga", "Rhine", "Elbe", "Danube"],
                       "length": [6650, 3530, 1230, 1094, 2850],
                       "country_name": ["Egypt", "Russia", "Germany", "Germany", "Germany"]})


def test_per_group_counts_and_averages_answer_with_a_table() -> None:
    got, state = answer("How many rivers are there in each country?", ("river", RIVERS))
    assert state["answer_table"] is not None, state.get("reason")
    table = get_store().get(state["answer_table"])
    assert dict(zip(table["country_name"], table["count"], strict=True)) == {"Egypt": 1, "Russia": 1, "Germany": 3}
    assert "groupby('country_name', dropna=False).size()" in state["steps"][0]["code"]
    got, state = answer("What is the average length of rivers in each country?", ("river", RIVERS))
    table = get_store().get(state["answer_table"])
    assert dict(zip(table["country_name"], table["length"], strict=True))["Germany"] == pytest.approx(1724.6667, 1e-4)


def test_per_group_without_a_clear_column_is_declined() -> None:
    got, state = answer("What is the ratio of length to width for each country?", ("river", RIVERS))
    assert got == [] and state["status"] == "declined"
    got, state = answer("How many rivers are there in each continent?", ("river", RIVERS))
    assert got == [] and "each continent" in state["reason"]
