"""Decisions: model answers validated, caps enforced, and the batch each action produces."""

from __future__ import annotations

from typing import Any

import pytest

from graphagents.agents.supervisor.decisions import (
    Decision,
    DecisionOut,
    Limits,
    apply,
    fallback,
    from_model,
    next_from_plan,
)
from graphagents.agents.supervisor.offline import orchestration as rules
from graphagents.agents.supervisor.plan import build_plan

PLAN = build_plan([{"team": "search", "scopes": ["laws", "market"]}, {"team": "analysis"}, {"team": "document"}],
                  "parallel")


def run(team: str, n: int = 1, count: int = 5, **task: Any) -> dict[str, Any]:
    return {"id": f"{team}#{n}", "team": team, "status": "ok" if count else "empty", "count": count,
            "task": {"id": f"{team}#{n}", "team": team, **task}, "output": {}, "info": []}


def test_the_plan_runs_analysis_and_document_together_after_search() -> None:
    tasks = PLAN["teams"]
    assert PLAN["strategy"] == "parallel"
    assert next_from_plan(tasks, [], "parallel") == [tasks[0]]
    assert [t["team"] for t in next_from_plan(tasks[1:], ["search"], "parallel")] == ["analysis", "document"]
    assert [t["team"] for t in next_from_plan(tasks[1:], ["search"], "sequential")] == ["analysis"]


def test_a_chain_is_not_parallel() -> None:
    plan = build_plan([{"team": "search"}, {"team": "analysis"}, {"team": "document", "after": ["analysis"]}],
                      "parallel")
    assert plan["strategy"] == "sequential"


@pytest.mark.parametrize(("out", "problem"), [
    ({"action": "add_agent"}, "needs next_agent"),
    ({"action": "add_agent", "next_agent": "legal_team"}, "unknown team"),
    ({"action": "collaborate", "next_agent": "analysis", "from_agents": ["nobody"]}, "unknown team"),
    ({"action": "collaborate"}, "needs next_agent"),
])
def test_invalid_model_decisions_are_refused(out: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        from_model(DecisionOut.model_validate(out))


def test_team_names_are_normalised() -> None:
    d = from_model(DecisionOut.model_validate({"action": "add_agent", "next_agent": "Search_Team",
                                               "keywords": ["대항력", " "], "scopes": ["laws", "weather"]}))
    assert (d.next_agent, d.keywords, d.scopes) == ("search", ("대항력",), ("laws",))


def apply_(decision: Decision, runs: list[dict[str, Any]], queue: list[Any] | None = None) -> Any:
    q = list(PLAN["teams"][1:] if queue is None else queue)
    return apply(decision, queue=q, pending=[], runs=runs, completed=[r["team"] for r in runs], strategy="parallel",
                 limits=Limits(max_rounds=6, max_team_runs=2))


def test_add_agent_reruns_the_team_broadened_and_keeps_the_plan() -> None:
    d, batch, updates = apply_(Decision("add_agent", "too few", next_agent="search", keywords=("임대인",)),
                               [run("search", scopes=["laws"])])
    assert [t["id"] for t in batch] == ["search#2"] and batch[0]["broaden"] and batch[0]["keywords"] == ["임대인"]
    assert batch[0]["scopes"] == ["laws"] and "plan_queue" in updates and len(updates["plan_queue"]) == 2


def test_add_agent_past_the_team_cap_is_downgraded_and_logged() -> None:
    d, batch, updates = apply_(Decision("add_agent", "again", next_agent="search"), [run("search"), run("search", 2)])
    assert d.action == "continue" and d.source == "cap" and updates["caps_hit"] == ["team_runs:search"]
    assert [t["team"] for t in batch] == ["analysis", "document"]


def test_collaborate_hands_the_output_over_and_consumes_the_planned_task() -> None:
    d, batch, updates = apply_(Decision("collaborate", "use analysis", next_agent="document", from_teams=("analysis",),
                                        focus="위험도 반영"), [run("search"), run("analysis")], queue=PLAN["teams"][2:])
    (task,) = batch
    assert task["id"] == "document#1" and task["origin"] == "collaborate" and task["focus"] == "위험도 반영"
    assert set(task["inputs_from"]) == {"search", "analysis"} and updates["plan_queue"] == []


def test_skip_remaining_runs_nothing() -> None:
    d, batch, updates = apply_(Decision("skip_remaining", "enough"), [run("search")])
    assert batch == [] and updates["skip_remaining"] is True


def test_fallback_continues_with_the_error() -> None:
    d = fallback("ModelOutputError: garbage")
    assert (d.action, d.source) == ("continue", "fallback") and "garbage" in d.error


def test_offline_rules_follow_the_notes_criteria() -> None:
    queue = list(PLAN["teams"][1:])
    few = rules.decide(intent={}, last_runs=[run("search", count=2, scopes=["laws"])],
                       runs=[run("search", count=2)], queue=queue, max_team_runs=3)
    assert few.action == "add_agent" and few.next_agent == "search" and few.scopes == ("laws",)
    again = rules.decide(intent={}, last_runs=[run("search", 2, count=2, broaden=True)],
                         runs=[run("search", count=2), run("search", 2, count=2)], queue=queue, max_team_runs=3)
    assert again.action == "continue"  # broadened once already: no third identical try
    many = rules.decide(intent={}, last_runs=[run("search", count=7)], runs=[run("search", count=7)], queue=queue,
                        max_team_runs=3)
    assert many.action == "continue" and "7건" in many.reasoning
    hedged = [dict(queue[0], optional=True)]
    simple = rules.decide(intent={"simple": True}, last_runs=[run("search", count=4)], runs=[run("search", count=4)],
                          queue=hedged, max_team_runs=3)
    assert simple.action == "skip_remaining"
    unplanned = [dict(queue[0], inputs_from=[])]
    collab = rules.decide(intent={}, last_runs=[run("search", count=7)], runs=[run("search", count=7)],
                          queue=unplanned, max_team_runs=3)
    assert (collab.action, collab.next_agent, collab.from_teams) == ("collaborate", "analysis", ("search",))
    with_insights = dict(run("analysis"), output={"insights": ["전세가율 85%"]})
    doc = rules.decide(intent={}, last_runs=[with_insights], runs=[run("search"), with_insights],
                       queue=list(PLAN["teams"][2:]), max_team_runs=3)
    assert (doc.action, doc.next_agent, doc.from_teams) == ("collaborate", "document", ("analysis",))
