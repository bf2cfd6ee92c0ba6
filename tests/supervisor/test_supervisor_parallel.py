"""Parallel teams (LangGraph Send): results that arrive out of order are merged in plan order,
nothing is lost, and the outcome equals the sequential run's."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sup_models import Script, decision, plan, scripted_supervisor

from graphagents.agents.supervisor.teams import analysis as analysis_team
from graphagents.events import StateUpdateEvent

QUERY = "송파구 아파트 매매 시세 분석해서 계약 체크리스트 만들어줘"
TEAMS = ({"team": "search", "reason": "시세", "scopes": ["market"]}, {"team": "analysis", "reason": "통계"},
         {"team": "document", "reason": "체크리스트"})


def comparable(runs: list[dict[str, Any]]) -> list[tuple[str, str, int, str]]:
    return [(r["id"], r["status"], r["count"], r["summary"]) for r in runs]


@pytest.fixture
def slow_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    real = analysis_team.run_analysis

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)  # the document team, started at the same time, finishes first
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis_team, "run_analysis", slow)


def test_results_arriving_out_of_order_are_merged_in_plan_order(slow_analysis: None) -> None:
    parallel = scripted_supervisor(Script([plan(*TEAMS, strategy="parallel")], [decision("continue")]))
    reply = parallel.session().send(QUERY)
    assert reply.state["plan"]["strategy"] == "parallel"
    assert reply.state["decisions"][1]["batch"] == ["analysis#1", "document#1"]  # one round, two teams
    arrived = [e.state["team_result"]["id"] for e in reply.events
               if isinstance(e, StateUpdateEvent) and "team_result" in e.state]
    assert arrived == ["search#1", "document#1", "analysis#1"]  # document finished first ...
    assert [r["id"] for r in reply.state["team_runs"]] == ["search#1", "analysis#1", "document#1"]  # ... plan order
    assert reply.state["rounds"] == 2

    sequential = scripted_supervisor(Script([plan(*TEAMS, strategy="sequential")], [decision("continue")]))
    again = sequential.session().send(QUERY)
    assert again.state["rounds"] == 3
    assert comparable(again.state["team_runs"]) == comparable(reply.state["team_runs"])
    assert again.text == reply.text


def test_team_events_carry_their_namespace() -> None:
    reply = scripted_supervisor(Script([plan(*TEAMS, strategy="parallel")], [decision("continue")])).session().send(
        QUERY)
    namespaces = {e.namespace[0] for e in reply.events if e.namespace}
    assert {"search_team", "analysis_team", "document_team"} <= namespaces
    assert any(e.namespace[:2] == ("search_team", "market") for e in reply.events if len(e.namespace) > 1)
