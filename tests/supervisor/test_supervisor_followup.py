"""Follow-up questions inherit the previous question's conditions (region, size, deal type ...)
only when their form says they are follow-ups, and the answer says what it carried over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import graphagents as ga
from graphagents.agents.supervisor.data import dev_queries_path
from graphagents.agents.supervisor.offline.entities import extract_entities
from graphagents.agents.supervisor.offline.followup import is_followup, rewrite

FIRST = "강남구 30평대 아파트 매매 시세 알려줘"


@pytest.mark.parametrize(("query", "standalone", "inherited"), [
    ("그럼 전세는?", "강남구 30평대 아파트 전세 시세 알려줘", ["region", "area", "property_type"]),
    ("서초구는 어때?", "서초구 30평대 아파트 매매 시세 알려줘", ["area", "property_type", "deal_type"]),
    ("59㎡는?", "강남구 59m2 아파트 매매 시세 알려줘", ["region", "property_type", "deal_type"]),
    ("그럼 대출은 얼마나 돼?", "강남구 30평대 아파트 매매 — 그럼 대출은 얼마나 돼?",
     ["region", "area", "property_type", "deal_type"]),
    ("그럼 LTV는?", "강남구 30평대 아파트 매매 — 그럼 LTV는?", ["region", "area", "property_type", "deal_type"]),
])
def test_a_follow_up_becomes_a_standalone_question(query: str, standalone: str, inherited: list[str]) -> None:
    out = rewrite(query, FIRST, extract_entities(FIRST))
    assert out is not None and out["query"] == standalone and out["inherited"] == inherited


LOAN = "송파구 12억 아파트 사려는데 연봉 8천이면 대출 얼마나 돼?"


@pytest.mark.parametrize(("previous", "query", "standalone"), [
    ("전세 보증금 3억인데 갱신할 때 집주인이 최대 얼마까지 올릴 수 있어?", "그럼 5억이면?",
     "전세 보증금 5억인데 갱신할 때 집주인이 최대 얼마까지 올릴 수 있어?"),  # a bare amount takes the old role
    (LOAN, "연봉 1억이면?", "송파구 12억 아파트 사려는데 연봉 1억이면 대출 얼마나 돼?"),
    (LOAN, "그럼 15억이면?", "송파구 15억 아파트 사려는데 연봉 8천이면 대출 얼마나 돼?"),
    (LOAN, "생애최초면?", "생애최초 송파구 12억 아파트 사려는데 연봉 8천이면 대출 얼마나 돼?"),
])
def test_a_changed_amount_or_buyer_replaces_the_old_one(previous: str, query: str, standalone: str) -> None:
    out = rewrite(query, previous, extract_entities(previous))
    assert out is not None and out["mode"] == "elliptical" and out["query"] == standalone
    amounts = extract_entities(out["query"])["amounts"]
    assert len(amounts) == len(extract_entities(previous)["amounts"])  # replaced, not added


@pytest.mark.parametrize("query", ["전세 계약 갱신청구권이 뭐야?", "보증금 반환 내용증명 써줘",
                                   "마포구 59㎡ 아파트 전세가율이 어느 정도야?"])
def test_a_new_question_is_not_a_follow_up(query: str) -> None:
    assert not is_followup(query) and rewrite(query, FIRST, extract_entities(FIRST)) is None


def test_no_standalone_dev_query_reads_as_a_follow_up(dataset: Path) -> None:
    import json

    lines = dev_queries_path().read_text("utf-8").splitlines()
    queries = [json.loads(line)["query"] for line in lines]
    assert len(queries) == 36 and [q for q in queries if is_followup(q)] == []


def test_nothing_to_inherit_means_no_rewrite() -> None:
    assert rewrite("그럼 전세는?", "안녕하세요", extract_entities("안녕하세요")) is None


def _stats(reply: Any) -> list[list[Any]]:
    (stats,) = [a for a in reply.artifacts if a.kind == "table" and "가격 통계" in a.title]
    return [list(r) for r in stats.rows]


def test_a_session_carries_the_conditions_into_the_follow_up_and_says_so() -> None:
    session = ga.load("supervisor", checkpoint_url="memory").session()
    first = session.send(FIRST)
    assert {r[0] for r in _stats(first)} == {"매매"}
    second = session.send("그럼 전세는?")
    assert {r[0] for r in _stats(second)} == {"전세"}  # 강남구 30평대 전세, not a law lookup about 전세
    assert second.state["intent"]["entities"]["region"]["sigungu"] == "강남구"
    assert second.state["intent"]["entities"]["area"]["text"] == "30평대"
    assert "이어받아" in second.text and "강남구" in second.text and "합성(가상) 거래 데이터" in second.text
    fresh = ga.load("supervisor", checkpoint_url="memory").session().send("그럼 전세는?")
    assert "이어받아" not in fresh.text  # a first question has nothing to inherit
    third = session.send("전세 계약 갱신청구권이 뭐야?")
    assert "이어받아" not in third.text and "region" not in third.state["intent"]["entities"]
    fourth = session.send("서초구는?")  # the last question that stated conditions is still the context
    assert fourth.state["intent"]["entities"]["region"]["sigungu"] == "서초구"
    assert {r[0] for r in _stats(fourth)} == {"전세"}


def test_with_models_the_planner_reads_the_standalone_question_and_code_keeps_the_notes() -> None:
    from sup_models import Script, plan, scripted_supervisor

    search = {"team": "search", "reason": "대출", "scopes": ["loans"]}
    script = Script([plan(search, intent="loan_calc")])
    session = scripted_supervisor(script).session()
    session.send("송파구 12억 아파트 사려는데 연봉 8천이면 대출 얼마나 돼?")
    reply = session.send("연봉 1억이면?")
    assert "송파구 12억 아파트 사려는데 연봉 1억이면" in script.asked["plan"][-1]  # the model sees the whole question
    assert reply.text.startswith("(앞 질문의 조건(") and "스크립트 답변" in reply.text
    assert "미검증" in reply.text  # said by code, whatever the model wrote
