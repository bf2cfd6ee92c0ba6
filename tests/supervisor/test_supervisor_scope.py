"""Honest scope: topics the statutes and data do not cover are said first, with the law that
governs them and where to ask, and no article of ours is quoted; a question that also asks
something we cover gets that part answered."""

from __future__ import annotations

import re

import pytest

from graphagents.agents.supervisor.offline.scope import uncovered_topics


@pytest.mark.parametrize(("query", "topic", "rest"), [
    ("청약통장 몇 년 부어야 1순위예요?", "subscription", False),
    ("재건축 안전진단 통과하면 어떻게 되나요?", "reconstruction", False),
    ("다주택자 양도세 중과는 언제까지 유예돼요?", "tax", False),
    ("재산세는 언제 내요?", "tax", False),
    ("분양권 전매 제한 기간이 얼마예요?", "redevelopment", False),
    ("상가 임대차 계약갱신요구권은 몇 년이에요?", "commercial", False),  # 상가 sets the context: not 주임법
    ("임대사업자 등록하면 의무가 뭐가 있나요?", "rental_business", False),
    ("임대사업자는 전월세 신고를 따로 해야 하나요?", "rental_business", True),  # the 신고 is 제6조의5's
    ("전세 계약서 특약 써주고, 종부세는 얼마인지도 알려줘", "tax", True),
    ("재산세가 올랐다며 집주인이 월세를 올려 달래요", "tax", True),  # the tax is the reason; the rise is ours
    ("양도세는 제1주택이면 얼마예요?", "tax", False),  # 제1주택 is no article
    ("How much is the acquisition tax on a 900 million won apartment?", "tax", False),
])
def test_uncovered_topics(query: str, topic: str, rest: bool) -> None:
    found, has_rest = uncovered_topics(query)
    assert [u.id for u in found] == [topic] and has_rest is rest


@pytest.mark.parametrize("query", [
    "집주인이 재건축한다고 갱신을 거절할 수 있나요?",  # 주임법 제6조의3 covers it
    "집주인 세금 체납 여부는 어떻게 확인해요?",  # 제3조의7
    "살던 집이 경매에 넘어갔는데 보증금은 어떻게 돼요?",  # 제3조의2, 제3조의5
    "전세 보증금 3억인데 갱신할 때 최대 얼마까지 올릴 수 있어?",
    "가게 딸린 주택에 세 들어 사는데 주택임대차보호법 적용돼요?",
    "전세를 얼마로 올려도 되나요?",  # 세 inside 전세 or 월세 is no tax
    "월세를 몇 퍼센트까지 올릴 수 있어요?",
])
def test_what_the_statutes_cover_is_not_out_of_scope(query: str) -> None:
    assert uncovered_topics(query)[0] == []


@pytest.mark.usefixtures("dataset")
def test_an_uncovered_question_runs_no_team_and_quotes_no_article() -> None:
    from graphagents.agents.supervisor.spec import SPEC
    from graphagents.runtime import Agent

    session = Agent(SPEC, llm="offline", checkpoint_url="memory").session()
    reply = session.send("신혼부부 특별공급 소득 기준이 어떻게 돼요?")
    assert reply.state.get("completed_teams") == [] and reply.state.get("citations") == []
    assert reply.text.startswith("주택 청약") and "주택공급에 관한 규칙" in reply.text
    assert not re.search(r"제\s*\d+\s*조", reply.text)
    mixed = session.send("월세 계약 해지 통지는 언제까지 해야 하고, 양도세는 얼마예요?")
    assert mixed.text.startswith("부동산 세금") and "답하지 않았습니다" in mixed.text.split("\n")[0]
    assert mixed.state.get("citations")  # the lease part is answered with its articles
