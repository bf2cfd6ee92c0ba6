"""Document drafts: the template the request asks for, filled only from what was said, with
backing articles that exist and the missing items listed."""

from __future__ import annotations

import re

import pytest

from graphagents.agents.supervisor.documents import compose_document, load_templates
from graphagents.agents.supervisor.offline.entities import extract_entities


def test_every_backing_article_exists_in_the_statutes(articles: dict[str, object]) -> None:
    for template in load_templates().templates:
        for section in template.sections:
            for item in section.items:
                for aid in item.articles:
                    assert aid in articles, f"{template.id}: {aid} is not in laws/articles.jsonl"


@pytest.mark.parametrize(("query", "template"), [
    ("계약이 끝났는데 보증금을 안 돌려줘요. 보증금 반환 요청 내용증명 써줘", "deposit_return_notice"),
    ("임차권등기명령 신청서 초안 작성하는 것 좀 도와줘", "lease_registration"),
    ("전세 계약 전에 확인해야 할 것들 체크리스트로 만들어줘", "lease_checklist"),
    ("묵시적 갱신 상태인데 집주인한테 보낼 계약 해지 통지서 써줘", "termination_notice"),
    ("강남구 아파트 매매 시세 알려주고 계약서 주의사항 정리해줘", "sale_checklist"),
    ("토지거래허가구역 아파트 허가 신청 준비 서류 목록 만들어줘", "land_permit_docs"),
])
def test_the_request_picks_its_template(query: str, template: str) -> None:
    doc = compose_document(query, extract_entities(query), {})
    assert doc is not None and doc["template"] == template


def test_fields_are_filled_from_the_entities_and_the_rest_is_listed_not_invented() -> None:
    query = "보증금 3억 5천 전세가 2026년 9월 30일에 끝났는데 안 돌려줘요. 내용증명 써줘"
    doc = compose_document(query, extract_entities(query), {}, cite=lambda a: a.replace(":", " "))
    assert doc is not None
    assert "3억 5,000만원" in doc["markdown"] and "2026-09-30" in doc["markdown"]
    assert "(미기재: 임대인 성명)" in doc["markdown"] and "임대인 성명" in doc["missing_items"]
    assert "보증금" not in doc["missing_items"]
    assert "근거: 주임법 제4조" in doc["markdown"]
    assert not re.search(r"\{\w+\}", doc["markdown"])


def test_analysis_handed_over_appears_in_the_draft() -> None:
    query = "집주인이 보증금 10% 올려달래. 협상안 문서로 정리해줘"
    inputs = {"analysis": {"insights": ["보증금 증액 상한 5% — 요구받은 인상률은 상한 초과"]}}
    doc = compose_document(query, extract_entities(query), inputs)
    assert doc is not None and "상한 초과" in doc["markdown"] and doc["used_inputs"] == ["analysis"]
    assert compose_document(query, extract_entities(query), {})["used_inputs"] == []  # type: ignore[index]


def test_no_template_for_a_plain_question() -> None:
    assert compose_document("확정일자가 뭐야?", {}, {}) is None
