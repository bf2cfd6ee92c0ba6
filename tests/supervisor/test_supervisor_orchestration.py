"""The orchestrate <-> execute_teams cycle with scripted models: each of the four actions, an
invalid action, garbage, a model that always adds a team (a cap ends it), one that never finds
anything new (stall ends it), caps on rounds, and the first round taken without a call."""

from __future__ import annotations

from typing import Any

import pytest
from sup_models import Script, decision, decisions_of, events_of, plan, scripted_supervisor

from graphagents.llm import GARBAGE

QUERY = "송파구 아파트 매매 시세 분석해서 계약 체크리스트 만들어줘"
MARKET = {"team": "search", "reason": "시세", "scopes": ["market"]}
ANALYSIS = {"team": "analysis", "reason": "통계", "uses": ["search"]}
DOCUMENT = {"team": "document", "reason": "체크리스트", "uses": ["search"]}
THREE = plan(MARKET, ANALYSIS, DOCUMENT)


def ask(script: Script, query: str = QUERY, **options: Any) -> Any:
    return scripted_supervisor(script, **options).session().send(query)


def test_continue_follows_the_plan_and_the_first_round_costs_no_call() -> None:
    script = Script([THREE], [decision("continue", "충분함")])
    reply = ask(script)
    assert [r["id"] for r in reply.state["team_runs"]] == ["search#1", "analysis#1", "document#1"]
    assert decisions_of(reply) == [("continue", "plan"), ("continue", "model"), ("continue", "model")]
    assert len(script.asked["orchestrate"]) == 2  # rounds 2 and 3; round 1 follows the plan
    assert reply.state["finish_reason"] == "plan_complete"
    assert reply.usage.model_calls == 1 + 2 + 1  # plan, two decisions, response
    shown = events_of(reply, "orchestration")
    assert [e.choice for e in shown] == ["continue"] * 3 and shown[1].reason == "충분함"


def test_add_agent_reruns_search_with_the_models_keywords() -> None:
    script = Script([THREE], [decision("add_agent", "부족함", next_agent="search_team", scopes=["market", "loans"]),
                              decision("continue")])
    reply = ask(script)
    runs = reply.state["team_runs"]
    assert [r["id"] for r in runs] == ["search#1", "search#2", "analysis#1", "document#1"]
    assert decisions_of(reply)[1] == ("add_agent", "model")
    assert "대출" in runs[1]["summary"]  # the re-run used the scopes the model asked for


def test_skip_remaining_ends_after_search() -> None:
    reply = ask(Script([THREE], [decision("skip_remaining", "검색만으로 충분")]))
    assert reply.state["completed_teams"] == ["search"]
    assert reply.state["finish_reason"] == "skip_remaining"


def test_collaborate_hands_one_teams_output_to_the_next() -> None:
    unplanned = plan(MARKET, {"team": "analysis", "reason": "통계", "uses": []}, DOCUMENT)
    script = Script([unplanned], [decision("collaborate", "분석에 시세 전달", next_agent="analysis",
                                           from_agents=["search"], focus="송파구 매매 통계"),
                                  decision("continue")])
    reply = ask(script)
    analysis = next(r for r in reply.state["team_runs"] if r["team"] == "analysis")
    assert analysis["count"] > 0 and "중앙값" in analysis["summary"]  # it computed over the rows it was handed
    assert decisions_of(reply)[1] == ("collaborate", "model")


def test_without_the_hand_off_analysis_has_nothing_to_compute() -> None:
    unplanned = plan(MARKET, {"team": "analysis", "reason": "통계", "uses": []}, DOCUMENT)
    reply = ask(Script([unplanned], [decision("continue")]))
    analysis = next(r for r in reply.state["team_runs"] if r["team"] == "analysis")
    assert analysis["status"] == "empty"


@pytest.mark.parametrize("bad", [decision("explode"), decision("add_agent", next_agent="lawyer_team"), GARBAGE,
                                 RuntimeError("provider down")])
def test_invalid_or_garbage_decisions_fall_back_to_continue_and_are_logged(bad: Any) -> None:
    script = Script([THREE], [bad])
    reply = ask(script)
    assert [r["team"] for r in reply.state["team_runs"]] == ["search", "analysis", "document"]
    fallbacks = [d for d in reply.state["decisions"] if d["source"] == "fallback"]
    assert len(fallbacks) == 2 and all(d["action"] == "continue" and d["error"] for d in fallbacks)
    assert not any(e.type == "error" for e in reply.events)


def test_a_model_that_always_adds_search_is_stopped_by_the_run_cap() -> None:
    script = Script([THREE], [decision("add_agent", "더 찾아", next_agent="search")])
    reply = ask(script, max_team_runs=2)
    assert [r["id"] for r in reply.state["team_runs"]] == ["search#1", "search#2", "analysis#1", "document#1"]
    assert "team_runs:search" in reply.state["caps_hit"]
    capped = [d for d in reply.state["decisions"] if d["source"] == "cap"]
    assert capped and all(d["action"] == "continue" for d in capped)
    assert reply.text.startswith("스크립트 답변")


def test_a_model_that_never_adds_information_stalls() -> None:
    script = Script([THREE], [decision("add_agent", "다시", next_agent="search")])
    reply = ask(script, max_team_runs=5)
    assert reply.state["finish_reason"] == "stall"
    assert [r["id"] for r in reply.state["team_runs"]] == ["search#1", "search#2", "search#3"]
    assert reply.state["decisions"][-1]["source"] == "stall"
    assert reply.text  # still answers with what it has


def test_the_round_cap_ends_the_orchestration_cleanly() -> None:
    reply = ask(Script([THREE], [decision("continue")]), max_rounds=2)
    assert reply.state["finish_reason"] == "round_cap" and "rounds" in reply.state["caps_hit"]
    assert reply.state["completed_teams"] == ["search", "analysis"]
    assert reply.text and not any(e.type == "error" for e in reply.events)


def test_a_greeting_is_answered_without_teams() -> None:
    script = Script([plan(intent="greeting")])
    reply = ask(script, query="안녕하세요")
    assert reply.state["team_runs"] == [] and reply.state["finish_reason"] == "direct"
    assert "부동산" in reply.text and script.asked["orchestrate"] == []


def test_the_fixed_pipeline_runs_every_planned_team_without_asking() -> None:
    script = Script([THREE], [decision("skip_remaining")])
    reply = ask(script, orchestration="fixed")
    assert reply.state["completed_teams"] == ["search", "analysis", "document"]
    assert script.asked["orchestrate"] == [] and reply.usage.model_calls == 2  # plan and response only


def test_a_planner_that_returns_garbage_falls_back_to_the_offline_plan_and_says_so() -> None:
    script = Script([GARBAGE], [decision("continue")])
    reply = ask(script)
    assert reply.state["plan_method"] == "fallback"
    assert len(script.asked["plan"]) == 2  # the answer and one repair request
    plan_event = next(e for e in events_of(reply, "plan"))
    assert plan_event.details["error"].startswith("unusable") and plan_event.details["method"] == "fallback"
    assert {"search", "analysis", "document"} == set(reply.state["completed_teams"])  # the offline plan ran


def test_the_models_entities_are_used_over_the_offline_ones() -> None:
    plan_json = plan(MARKET, ANALYSIS).replace('"entities": {}', '"entities": {"sigungu": "마포구"}')
    reply = ask(Script([plan_json], [decision("continue")]), query="아파트 매매 시세 알려줘")
    (sql,) = [a for a in reply.artifacts if a.kind == "sql"]
    assert "마포구" in sql.sql


def test_review_last_lets_the_orchestrator_add_a_team_the_plan_missed() -> None:
    script = Script([plan(MARKET)], [decision("add_agent", "통계가 필요함", next_agent="analysis"),
                                     decision("continue", "충분함")])
    reply = ask(script, review_last=True)
    assert reply.state["completed_teams"] == ["search", "analysis"]
    assert [d["action"] for d in reply.state["decisions"]] == ["continue", "add_agent", "continue"]
    without = ask(Script([plan(MARKET)], [decision("add_agent", next_agent="analysis")]))
    assert without.state["completed_teams"] == ["search"]  # the note's routing: nothing left, no decision


def test_running_out_of_steps_ends_in_an_answer_not_an_error() -> None:
    loans = plan({"team": "search", "reason": "대출", "scopes": ["loans"]}, ANALYSIS, DOCUMENT)
    agent = scripted_supervisor(Script([loans], [decision("continue")]))
    config = {"configurable": {"thread_id": "steps"}, "recursion_limit": 12}  # the teams' sub-graphs fit in it
    state = agent.graph.invoke({"user_input": "8억 아파트 대출 한도와 체크리스트", "session_options": {}}, config)
    assert state["finish_reason"] == "step_cap" and "steps" in state["caps_hit"]
    assert state["reply"] and [r["team"] for r in state["team_runs"]] == ["search", "analysis"]
    assert state["orchestration_decisions"][-1]["source"] == "step_cap"
