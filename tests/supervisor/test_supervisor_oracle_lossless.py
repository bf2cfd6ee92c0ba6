"""The gold plan loses no gold citation, on any query set.

Before: an English question reached the planner with its Korean gloss appended, so the oracle
found no label for it and planned nothing; a plan naming more than three articles had all but three
dropped by the citation cap, and more than eight by the keyword cap; a question that gave an
uncovered topic (a tax) as the reason for a covered one ("보증금을 올려") lost its search to the
scope guard, whose covered-topic patterns did not allow a particle. These labels are none of the
dev queries: they are built to hit each of those paths, plus articles drawn from the whole file.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from graphagents.agents.supervisor.oracle import oracle_model
from graphagents.agents.supervisor.spec import SPEC
from graphagents.runtime import Agent


def _labels(articles: dict[str, Any]) -> list[dict[str, Any]]:
    live = sorted(a for a, art in articles.items() if not getattr(art, "deleted", False))
    pick = random.Random(23).sample(live, 20)
    return [
        {"id": "en", "query": "Can my landlord refuse to renew my lease?", "teams": ["search"],
         "search_scopes": ["laws"], "required_citations": ["주임법:제6조의3"]},
        {"id": "five", "query": "임대차 관련해서 궁금한 게 여러 가지 있어요", "teams": ["search"],
         "search_scopes": ["laws"], "required_citations": pick[:5]},
        {"id": "nine", "query": "이 조문들을 모두 정리해 주세요 (아홉 개)", "teams": ["search", "document"],
         "search_scopes": ["laws"], "required_citations": pick[5:14]},
        # an uncovered topic's word as the reason, a covered question with a particle ("보증금을 올려"):
        # the scope guard dropped the gold plan's search
        {"id": "tax-word", "query": "종부세가 올랐다고 집주인이 보증금을 올려 달라는데 한도가 있나요?",
         "teams": ["search"], "search_scopes": ["laws"], "required_citations": ["주임법:제7조"]},
        # an uncovered topic (임대사업자) beside a covered one: the 임대차 신고 it makes is 제6조의5's
        {"id": "landlord-business",
         "query": "등록임대사업자가 임대차 계약 신고를 하면 거래신고법 신고도 한 걸로 보나요?",
         "teams": ["search"], "search_scopes": ["laws"], "required_citations": ["부동산거래신고법:제6조의5"]},
        {"id": "market", "query": "강남구 아파트 시세와 관련 법도 알려줘", "teams": ["search", "analysis"],
         "search_scopes": ["market"], "required_citations": pick[14:16]},
        *({"id": f"one-{a}", "query": f"이 조문이 궁금해요 ({i}번째)", "teams": ["search"], "search_scopes": ["laws"],
           "required_citations": [a]} for i, a in enumerate(pick[16:])),
    ]


@pytest.mark.usefixtures("dataset")
def test_the_gold_plan_cites_every_gold_article(articles: dict[str, Any]) -> None:
    labels = _labels(articles)
    agent = Agent(SPEC, llm=oracle_model(labels, articles), models={"sql": "offline"}, checkpoint_url="memory")
    lost = {}
    for label in labels:
        reply = agent.session().send(label["query"])
        cited = set(reply.state.get("citations") or [])
        if missing := set(label["required_citations"]) - cited:
            lost[label["id"]] = sorted(missing)
    assert lost == {}


def test_the_oracle_finds_the_label_of_a_glossed_english_question(articles: dict[str, Any]) -> None:
    from graphagents.agents.supervisor.oracle import Oracle

    oracle = Oracle([{"query": "Can my landlord refuse?", "teams": ["search"]},
                     {"query": "Can my landlord refuse? Really?", "teams": ["search", "analysis"]}], articles)
    assert oracle.label("Can my landlord refuse? (임대인 거절)")["teams"] == ["search"]
    assert oracle.label("Can my landlord refuse? Really? (임대인)")["teams"] == ["search", "analysis"]
    assert oracle.label("Can my landlord refuse") is None
