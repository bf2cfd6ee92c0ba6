"""The policy rewrite rules of the design note, plus the minimum-exploration rule."""

from __future__ import annotations

import pytest

from graphagents.agents.text2sql.policy import (
    LAST_CALL_FORCE_SUBMIT,
    REQUIRE_EXPLAIN_FIRST,
    REQUIRE_EXPLORATION_FIRST,
    maybe_rewrite_tool_call_for_policy,
)
from graphagents.agents.text2sql.state import ReactSessionState
from graphagents.llm.xml_protocol import ReactStep, ToolCall, error_step

SQL = "SELECT COUNT(*) FROM customers"
Q = "고객은 몇 명이야?"


def step(name: str, **params: str) -> ReactStep:
    return ReactStep(tool_call=ToolCall(name, dict(params)))


def rewrite(s: ReactStep, state: ReactSessionState) -> dict[str, str] | None:
    return maybe_rewrite_tool_call_for_policy(step=s, state=state, question=Q)


def explored(**kw: int) -> ReactSessionState:
    st = ReactSessionState(**kw)
    st.record_tool_use("search_tables", ok=True)
    return st


@pytest.mark.parametrize("tool", ["submit_sql", "execute_sql_preview"])
def test_finishing_before_exploration_becomes_search_tables(tool: str) -> None:
    s = step(tool, sql=SQL)
    assert rewrite(s, ReactSessionState()) == {"from": tool, "to": "search_tables", "reason": REQUIRE_EXPLORATION_FIRST}
    assert s.tool_call == ToolCall("search_tables", {"query": Q})


@pytest.mark.parametrize("tool", ["submit_sql", "execute_sql_preview"])
def test_finishing_before_explain_becomes_explain_of_the_same_sql(tool: str) -> None:
    s = step(tool, sql=SQL)
    assert rewrite(s, explored()) == {"from": tool, "to": "explain", "reason": REQUIRE_EXPLAIN_FIRST}
    assert s.tool_call == ToolCall("explain", {"sql": SQL})


def test_min_exploration_zero_goes_straight_to_explain() -> None:
    s = step("submit_sql", sql=SQL)
    assert rewrite(s, ReactSessionState(min_exploration=0))["to"] == "explain"  # type: ignore[index]


def test_min_exploration_counts_calls() -> None:
    st = explored(min_exploration=2)
    assert rewrite(step("submit_sql", sql=SQL), st)["reason"] == REQUIRE_EXPLORATION_FIRST  # type: ignore[index]
    st.record_tool_use("search_columns", ok=True)
    assert rewrite(step("submit_sql", sql=SQL), st)["reason"] == REQUIRE_EXPLAIN_FIRST  # type: ignore[index]


def test_after_one_successful_explain_submit_stands_even_for_other_sql() -> None:
    st = explored()
    st.record_tool_use("explain", ok=True, sql_key=SQL, sql=SQL)
    assert rewrite(step("submit_sql", sql=SQL), st) is None
    assert rewrite(step("submit_sql", sql=SQL + " WHERE 1 = 1"), st) is None


def test_failed_explain_does_not_count() -> None:
    st = explored()
    st.record_tool_use("explain", ok=False, sql_key=SQL)
    assert rewrite(step("submit_sql", sql=SQL), st)["to"] == "explain"  # type: ignore[index]


def test_exploration_and_explain_are_never_rewritten_before_the_last_call() -> None:
    for name in ("search_tables", "search_columns", "search_column_values", "find_similar_query", "explain"):
        assert rewrite(step(name, sql=SQL, query="x"), ReactSessionState()) is None


@pytest.mark.parametrize("tool", ["execute_sql_preview", "explain", "search_tables"])
def test_last_call_forces_submit_with_the_latest_sql(tool: str) -> None:
    st = ReactSessionState(max_calls=3)
    st.record_tool_use("search_tables", ok=True)
    st.record_tool_use("explain", ok=True, sql_key=SQL, sql=SQL)
    assert st.remaining_tool_calls == 1
    s = step(tool, query="x")
    assert rewrite(s, st) == {"from": tool, "to": "submit_sql", "reason": LAST_CALL_FORCE_SUBMIT}
    assert s.tool_call == ToolCall("submit_sql", {"sql": SQL})


def test_last_call_prefers_the_steps_own_sql_and_skips_other_rules() -> None:
    st = ReactSessionState(max_calls=1)  # no exploration, no explain: the budget wins
    s = step("execute_sql_preview", sql="SELECT 2")
    assert rewrite(s, st)["reason"] == LAST_CALL_FORCE_SUBMIT  # type: ignore[index]
    assert s.tool_call == ToolCall("submit_sql", {"sql": "SELECT 2"})
    assert rewrite(step("submit_sql", sql="SELECT 3"), st) is None


def test_last_call_without_any_sql_is_left_alone() -> None:
    s = step("search_tables", query="x")
    assert rewrite(s, ReactSessionState(max_calls=1)) is None
    assert s.tool_call is not None and s.tool_call.name == "search_tables"


def test_error_steps_are_not_rewritten() -> None:
    assert rewrite(error_step("bad xml"), ReactSessionState(max_calls=1)) is None


def test_state_round_trips_through_a_dict() -> None:
    st = explored(max_calls=5)
    st.record_tool_use("explain", ok=True, sql_key="k", sql=SQL)
    again = ReactSessionState.from_dict(st.to_dict())
    assert again == st and again.remaining_tool_calls == 3 and again.has_any_explained_sql()
