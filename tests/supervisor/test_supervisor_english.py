"""English questions: the offline brain reads them through a Korean gloss of their real-estate
words (and amounts, sizes, districts), and the answer says it answers in Korean."""

from __future__ import annotations

from typing import Any

import pytest

import graphagents as ga
from graphagents.agents.supervisor.offline.english import gloss, is_english
from graphagents.agents.supervisor.offline.entities import extract_entities


def test_the_gloss_carries_words_amounts_with_their_roles_sizes_and_districts() -> None:
    q = "How much can I borrow for a 1.2 billion won apartment in Songpa with income 80 million?"
    entities = extract_entities(f"{q} ({gloss(q)})")
    assert entities["region"]["sigungu"] == "송파구" and entities["deal_type"] == "매매"
    assert {(a["role"], a["manwon"]) for a in entities["amounts"]} == {("price", 120_000), ("income", 8_000)}
    assert "84㎡" in gloss("84 sqm apartments in Gangnam") and "강남구" in gloss("84 sqm apartments in Gangnam")


@pytest.mark.parametrize("text", ["강남구 시세 알려줘", "전세 계약 갱신청구권이 뭐야?", "LTV가 뭐야?"])
def test_a_korean_question_gets_no_gloss(text: str) -> None:
    assert not is_english(text) and gloss(text) == ""


@pytest.fixture(scope="module")
def agent() -> Any:
    return ga.load("supervisor", checkpoint_url="memory")


def test_an_english_law_question_finds_the_article(agent: Any) -> None:
    reply = agent.session().send("What is the lease renewal right in Korea?")
    assert reply.state["citations"][0] == "주임법:제6조의3"
    assert "주택임대차보호법 제6조의3" in reply.text and "answer is in Korean" in reply.text


def test_an_english_price_question_and_its_follow_up(agent: Any) -> None:
    session = agent.session()
    first = session.send("How much are 84 sqm apartments selling for in Gangnam?")
    (stats,) = [a for a in first.artifacts if a.kind == "table" and "가격 통계" in a.title]
    assert {r[0] for r in stats.rows} == {"매매"} and "합성(가상) 거래 데이터" in first.text
    second = session.send("what about jeonse?")
    (stats,) = [a for a in second.artifacts if a.kind == "table" and "가격 통계" in a.title]
    assert {r[0] for r in stats.rows} == {"전세"} and "이어받아" in second.text
