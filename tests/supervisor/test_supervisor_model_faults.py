"""supervisor on the model path under faults (issue 24 defects 2, 4, 6, 9, 11, 12; issue 26 item 6)."""

from __future__ import annotations

import json

from sup_models import Script, decision, plan, scripted_supervisor

from graphagents.agents.supervisor.state import PROVENANCE, merge_team_results
from graphagents.events import DegradedEvent, TokenEvent

QUERY = "송파구 아파트 매매 시세 분석해서 대출 가능 금액도 알려줘"
SEARCH = {"team": "search", "reason": "시세와 대출", "scopes": ["market", "loans"]}
ANALYSIS = {"team": "analysis", "reason": "통계", "uses": ["search"]}


def test_a_rerun_team_merges_with_its_first_run() -> None:
    """Defect 2: the orchestrator re-runs search for laws only; analysis still gets the first run's
    market rows and loan figures (before: only the latest output, and analysis computed nothing)."""
    script = Script([plan(SEARCH, ANALYSIS, strategy="sequential", intent="market_loan")],
                    [decision("add_agent", "법 조문도 필요", next_agent="search", scopes=["laws"],
                              keywords=["대출 규제"]),
                     decision("continue")])
    reply = scripted_supervisor(script).session().send(QUERY)
    runs = reply.state["team_runs"]
    assert [r["id"] for r in runs][:2] == ["search#1", "search#2"]
    analysis = next(r for r in runs if r["team"] == "analysis")
    assert analysis["count"] > 0, analysis["summary"]


def test_the_team_results_reducer_keeps_every_runs_data_with_provenance() -> None:
    first = {"search": {"market": {"rows": [{"price": 1}]}, "loans": {"ltv": 0.5}, "laws": {"hits": []},
                        PROVENANCE: {"market": "search#1", "loans": "search#1", "laws": "search#1"}}}
    second = {"search": {"market": None, "loans": None, "laws": {"hits": [{"id": "a"}]},
                         PROVENANCE: {"market": "search#2", "loans": "search#2", "laws": "search#2"}}}
    merged = merge_team_results(merge_team_results({}, first), second)["search"]
    assert merged["market"] == {"rows": [{"price": 1}]} and merged["loans"] == {"ltv": 0.5}
    assert merged["laws"] == {"hits": [{"id": "a"}]}
    assert merged[PROVENANCE] == {"market": "search#1", "loans": "search#1", "laws": "search#1+search#2"}
    assert merge_team_results(merged, None) == {}


def test_an_empty_responder_answer_falls_back_and_says_so() -> None:
    """Defect 4: before, the reply was only the disclaimer lines and the citation footer."""
    script = Script([plan(SEARCH, ANALYSIS, intent="market_loan")], [decision("continue")], reply="")
    reply = scripted_supervisor(script).session().send(QUERY)
    assert ("respond", "empty") in [(e.step, e.reason) for e in reply.events if isinstance(e, DegradedEvent)]
    assert "억" in reply.text or "만원" in reply.text  # the offline composer's figures


def test_the_responders_answer_streams() -> None:
    answer = "송파구 아파트 매매 중위가격은 데이터 기준으로 계산했습니다. 대출 한도는 규제 비율로 따졌습니다."
    script = Script([plan(SEARCH, ANALYSIS, intent="market_loan")], [decision("continue")], reply=answer)
    reply = scripted_supervisor(script).session().send(QUERY)
    tokens = [e for e in reply.events if isinstance(e, TokenEvent) and not e.namespace and e.section == "reply"]
    assert tokens and "".join(t.text for t in tokens).strip() == answer
    assert answer in reply.text


def test_a_provider_failure_is_logged_not_shown() -> None:
    """Defect 11: the orchestrator's provider error text reached decision events."""
    secret = "Error code: 500 - upstream secret-4711"
    script = Script([plan(SEARCH, ANALYSIS, intent="market_loan")], [RuntimeError(secret)])
    reply = scripted_supervisor(script).session().send(QUERY)
    wire = json.dumps([e.to_dict() for e in reply.events], ensure_ascii=False)
    assert "secret-4711" not in wire and "secret-4711" not in json.dumps(reply.state, ensure_ascii=False,
                                                                          default=str)
    assert any(isinstance(e, DegradedEvent) and e.step == "orchestrate" for e in reply.events)


def test_the_planners_area_does_not_override_the_offline_reading_of_pyeong() -> None:
    """Defect 6: "강남구 30평대" is 전용 ~71-100㎡, not 99-132㎡ (x3.3)."""
    model_plan = json.dumps({"intent": {"intent_type": "market_analysis", "confidence": 0.9,
                                        "entities": {"sigungu": "강남구", "area_m2_min": 99, "area_m2_max": 132}},
                             "teams": [{"team": "search", "reason": "시세", "scopes": ["market"]}],
                             "strategy": "sequential"}, ensure_ascii=False)
    script = Script([model_plan], [decision("continue")])
    reply = scripted_supervisor(script).session().send("강남구 30평대 아파트 매매 시세 알려줘")
    area = reply.state["intent"]["entities"]["area"]
    assert 70 <= area["min_m2"] <= 72 and 99 <= area["max_m2"] <= 101
    assert "평형" in script.asked["plan"][0] and "3.3을 곱하지 마세요" in script.asked["plan"][0]


def test_amounts_beyond_64_bits_fall_back_to_the_offline_plan() -> None:
    """Issue 26, item 6: supervisor amounts of 10**30 (the checkpointer cannot store them)."""
    huge = json.dumps({"intent": {"intent_type": "loan_calc", "confidence": 0.9,
                                  "entities": {"amounts": [{"role": "price", "manwon": 10**30}]}},
                       "teams": [{"team": "search", "reason": "대출", "scopes": ["loans"]}],
                       "strategy": "sequential"})
    script = Script([huge], [decision("continue")])
    session = scripted_supervisor(script).session()
    reply = session.send("10억 아파트 살 때 대출 얼마나 돼?")
    assert ("planning", "unusable") in [(e.step, e.reason) for e in reply.events if isinstance(e, DegradedEvent)]
    assert str(10**30) not in json.dumps(reply.state, default=str)
    assert session.send("고마워").text  # the session goes on


def test_a_huge_responder_answer_is_cut_and_says_so() -> None:
    """Issue 26, item 7: a 1 MB answer was returned and cached verbatim."""
    script = Script([plan(SEARCH, ANALYSIS, intent="market_loan")], [decision("continue")],
                    reply="시세 설명입니다. " * 100_000)
    reply = scripted_supervisor(script).session().send(QUERY)
    assert "32,000자에서 잘랐어요" in reply.text and len(reply.text) < 40_000
