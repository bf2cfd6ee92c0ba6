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
    assert "3억 5,000만원" in doc["markdown"] and "2026년 9월 30일" in doc["markdown"]
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


@pytest.mark.parametrize(("query", "filled", "still_missing"), [
    ("임대인 홍길동, 임차인 김철수, 합정동 123 집 보증금 반환 내용증명 써줘",
     ["홍길동", "김철수", "합정동 123"], ["보증금", "임대차 종료일"]),
    ("집주인 문채원 님한테 보낼 내용증명이요. 저는 세입자 안재홍, 주소 서울 은평구 불광동 302-11 2층, "
     "보증금 1억 2천, 계약 만료 2026년 5월 31일",
     ["문채원", "안재홍", "불광동 302-11 2층", "1억 2,000만원", "2026년 5월 31일"], []),
    ("공효진씨가 집주인이고 저는 류준열이에요. 계약 해지 통지서 써주세요. "
     "집은 광주 서구 치평동 1200 무등아파트 3동 1004호, 전세금 1억",
     ["공효진", "류준열", "치평동 1200 무등아파트 3동 1004호", "1억원"], ["통지일"]),
    ("집주인 이름은 김영수고 저는 세입자 박지민입니다. 보증금 5천만원 돌려달라는 내용증명 써주세요. "
     "계약 끝난 날은 2025년 10월 31일이에요. 주소는 서울 관악구 봉천동 12-3 202호",
     ["김영수", "박지민", "봉천동 12-3 202호", "5,000만원", "2025년 10월 31일"], []),
    ("계약서 초안: 임대인(남궁민) 임차인(서현진), 보증금 2억 월세 30만원, 2026.5.1부터 2028.4.30까지, "
     "주소 대구 수성구 범어동 77-3",
     ["남궁민", "서현진", "범어동 77-3", "2026년 5월 1일", "2028년 4월 30일", "30만원"], []),
])
def test_every_party_address_amount_and_date_given_is_filled(query: str, filled: list[str],
                                                            still_missing: list[str]) -> None:
    doc = compose_document(query, extract_entities(query), {})
    assert doc is not None
    for value in filled:
        assert value in doc["markdown"], value
    assert doc["missing_items"] == still_missing


def test_a_date_with_no_role_is_not_guessed_and_the_draft_says_so() -> None:
    query = "집주인 박보검 씨에게 보증금 반환 내용증명 보내려고요. 2025년 12월 20일에 이사 나왔어요"
    doc = compose_document(query, extract_entities(query), {})
    assert doc is not None and "임대차 종료일" in doc["missing_items"]
    assert "2025년 12월 20일" not in doc["markdown"].split("## 채워야 할 항목")[0]
    assert "2025년 12월 20일" in doc["notes"][0] and "박보검" in doc["markdown"]


def test_what_the_template_has_no_place_for_is_kept_not_dropped() -> None:
    query = "월세 계약 특약 문구 만들어줘. 보증금 2천만원 월세 60만원, 잔금일은 2026.3.15, 임대인 정우성"
    doc = compose_document(query, extract_entities(query), {})
    assert doc is not None
    kept = doc["markdown"].split("## 말씀하신 내용")[1]
    for value in ("2,000만원", "60만원", "정우성", "2026년 3월 15일"):
        assert value in kept
